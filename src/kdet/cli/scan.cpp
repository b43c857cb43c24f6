//===- cli/scan.cpp - `kdet scan`, `kdet merge`, `kdet compare` ---------------===//
//
// scan: runs every (input, compiler, target, option set) job of a manifest
// into a SQLite database, resumably; or, with --report, re-renders the
// reports of a database without running anything. merge: joins shard
// databases. compare: labels each job across two databases (fixed,
// regressed, ...). docs/SCAN.md is the manifest reference.
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/annotations.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/diff/reach.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/scan/defaults.hpp"
#include "kdet/scan/labels.hpp"
#include "kdet/scan/reach.hpp"
#include "kdet/scan/session.hpp"
#include "kdet/scan/status.hpp"
#include "kdet/scan/stress.hpp"
#include "kdet/scan/trace.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/cpu_time.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/file_lock.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct ReportArgs {
  OutputArgs output;
  std::string junit_path;
  std::string html_path;
  bool no_reach = false;
  bool list_failures = false; // --failures
  bool full_names = false;    // --full-names
};

// --settle and --stress: more runs on B's side of each comparison before calling a job fixed.
struct ProveArgs {
  bool settle = false, stress = false;
  uint64_t settle_budget = 0, stress_cap = 200, stress_sample = 10, stress_seed = 0;
  bool any() const { return settle || stress; }
};

void add_prove_options(CLI::App* cmd, ProveArgs& a) {
  cmd->add_flag("--settle", a.settle,
                "Run B more on each not-seen job (its scan's setting) until its bound meets "
                "the margin, it varies, or --settle-budget is spent");
  cmd->add_option("--settle-budget", a.settle_budget,
                  "B's runs per job at most under --settle (default: the runs the bound needs, "
                  "about 3 x margin / A's rate, at most 1000000)")
      ->check(whole_option({1, 1000000}));
  cmd->add_flag("--stress", a.stress,
                "Re-run on B each job A varied on (and a sample of the others) under every "
                "factor that moves addresses: fresh+aslr, same+churn, chaos, threads");
  cmd->add_option("--stress-cap", a.stress_cap,
                  "Runs per job and regime at most under --stress (default 200)")
      ->check(whole_option({1, 100000}));
  cmd->add_option("--stress-sample", a.stress_sample,
                  "Jobs A never varied on, also stressed, chosen at random (default 10)")
      ->check(whole_option({0, 1000000}));
  cmd->add_option("--stress-seed", a.stress_seed, "Seed of that sample (default 0)")
      ->check(whole_option({0, UINT64_MAX}));
}

// Settles and stresses each comparison's B side (scan::prove) and says what it spent. Returns
// false when interrupted.
bool prove(std::vector<report::CompilerComparison>& cmps, std::deque<store::JobRow>& storage,
           const std::map<std::string, std::string>& b_meta, const std::string& b_path,
           const ProveArgs& a, const char* who) {
  std::vector<scan::ProveTarget> targets;
  targets.reserve(cmps.size());
  for (auto& cmp : cmps)
    targets.push_back({&cmp.pairs, cmp.margin});
  scan::ProveOptions options{
      a.settle, a.stress, a.settle_budget, {a.stress_cap, a.stress_sample, a.stress_seed}};
  scan::ProveStats st = scan::prove(targets, storage, b_meta, b_path, options);
  fmt::print(stderr, "{}: {} on B ({} --settle, {} --stress) in {}\n", who,
             plural(st.settled + st.stressed, "run"), st.settled, st.stressed,
             human_seconds(st.seconds));
  return !st.interrupted;
}

struct ScanArgs {
  std::string manifest;
  std::string db;
  std::string report_db;
  int jobs = 0;
  std::optional<double> target_rate;
  std::optional<uint64_t> max_runs;
  std::string shard;
  bool progress = false;
  std::string trace_path;
  ReportArgs report;
  ProveArgs prove;
};

void add_report_options(CLI::App* cmd, ReportArgs& r) {
  add_json_option(cmd, r.output, "the result", "kdet.scan/2");
  cmd->add_option("--junit", r.junit_path,
                  "Write JUnit XML (one test case per job) to FILE, or - for stdout");
  cmd->add_option("--report-html", r.html_path,
                  "Write one self-contained HTML report with SVG charts to FILE");
  add_color_option(cmd, r.output);
  add_quiet_option(cmd, r.output, "No summary or progress line");
  cmd->add_flag("--no-reach", r.no_reach,
                "Leave out the reach of the varying jobs (default: their stored PTX assembled "
                "with ptxas when the reports are written; docs/IMPACT.md)");
  cmd->add_flag("--full-names", r.full_names,
                "Name captured kernels in full in the summary (by default a name past 72 "
                "characters is cut, with a hash of the whole; JSON, the JUnit property "
                "\"kernels\" and the HTML tooltips always hold the full names)");
  cmd->add_flag("--failures", r.list_failures,
                "List every failed job in the summary under its group (by default one line per "
                "way of failing: how many jobs, the compiler, its exit, its first error line)");
}

// The report files' paths, checked before the runs (a folder there lost the scan's summary).
void check_report_paths(const ReportArgs& r) {
  check_output_path(r.output.json_path, "--json");
  check_output_path(r.junit_path, "--junit");
  check_output_path(r.html_path, "--report-html");
  // A $KDET_PTXAS that is no program is bad input: said before the runs, not after them.
  if (!r.no_reach) diff::find_ptxas("", "KDET_PTXAS");
}

// Writes the requested reports of a result and prints the summary.
void emit_reports(const store::ScanResult& result, store::ScanDb& db, const ReportArgs& r,
                  const std::vector<report::CompilerComparison>* cmps = nullptr) {
  Output output(r.output);
  auto blob = [&db](const std::string& h) { return db.blob(h); };
  // The varying jobs' reach, from their stored artifacts, once for every report that shows it.
  std::optional<scan::ScanReaches> reaches;
  if (!r.no_reach && (!output.quiet() || !r.output.json_path.empty() || !r.html_path.empty()))
    reaches = scan::scan_reaches(result, blob, diff::find_ptxas("", "KDET_PTXAS"));
  const scan::ScanReaches* rp = reaches ? &*reaches : nullptr;
  if (!r.output.json_path.empty()) output.write_json(report::scan_to_json(result, cmps, rp));
  if (!r.junit_path.empty()) write_output(r.junit_path, report::scan_to_junit(result), "--junit");
  if (!r.html_path.empty())
    write_output(r.html_path, report::scan_to_html(result, blob, 200, cmps, rp), "--report-html");
  if (!output.quiet())
    output.print_text(report::scan_to_text(
        result, {output.color(), 30, r.list_failures, r.full_names ? 0 : k_name_width}, cmps, rp));
}

int do_report(const ScanArgs& a) {
  if (::access(a.report_db.c_str(), R_OK) != 0)
    throw Error::format("--report {}: {}", a.report_db, std::strerror(errno));
  store::ScanDb db(a.report_db, store::Access::read);
  store::ScanResult result = db.load();
  if (result.meta.empty())
    throw Error::format("--report {}: the database holds no scan", a.report_db);
  emit_reports(result, db, a.report);
  return scan::scan_exit_code(scan::count(result));
}

int do_scan(const ScanArgs& a) {
  if (!a.report_db.empty()) {
    if (!a.manifest.empty() || !a.db.empty())
      throw Error("--report DB re-renders a database; give no manifest or --db");
    if (!a.trace_path.empty())
      throw Error("--trace records the runs of a scan; --report DB runs nothing");
    return do_report(a);
  }
  if (a.manifest.empty())
    throw Error("kdet scan needs a MANIFEST (or --report DB); see docs/SCAN.md");
  if (a.db.empty())
    throw Error(
        "kdet scan needs --db FILE: the SQLite database the results go to (and resume from)");
  check_report_paths(a.report);
  check_output_path(a.trace_path, "--trace");
  // Begins before the manifest is read: the trace's first phase is kdet's own start-up.
  std::unique_ptr<scan::ScanTrace> trace;
  if (!a.trace_path.empty()) trace = std::make_unique<scan::ScanTrace>();
  // By default a slot per usable CPU, as many as --jobs allows (a machine may have more).
  int threads =
      a.jobs ? a.jobs : static_cast<int>(std::min<uint64_t>(usable_cores(), k_jobs_range.hi));
  if (threads < 1 || threads > 1024)
    throw Error::format("--jobs {}: must be between 1 and 1024", a.jobs);

  scan::SessionRequest req;
  req.manifest_path = a.manifest;
  req.db_path = a.db;
  req.shard = a.shard;
  req.threads = threads;
  req.target_rate = a.target_rate;
  req.max_runs = a.max_runs;
  req.invocation = invocation();
  req.trace = trace.get();
  if (!a.report.output.quiet)
    req.on_start = [](const scan::SessionStart& s) {
      fmt::print(
          stderr, "kdet scan: {}{} ({}{}), {} at once, up to {} each{}\n", plural(s.jobs, "job"),
          s.shard.count > 1
              ? fmt::format(" in shard {}/{} of {}", s.shard.index, s.shard.count, s.all_jobs)
              : "",
          s.inputs ? fmt::format("{}, {}, {}, {}", plural(s.inputs, "input"),
                                 plural(s.compilers, "compiler"), plural(s.targets, "target"),
                                 plural(s.option_sets, "option set"))
                   : "",
          s.bundles ? fmt::format("{}{}", s.inputs ? "; " : "", plural(s.bundles, "bundle")) : "",
          s.threads, plural(s.budget, "run"),
          s.resumed ? fmt::format("; resuming {}", plural(s.resumed, "started job")) : "");
      // A job stops early once it varies; a job that never does runs all of its budget. Said
      // before the first run: a census can cost days of CPU at the manifest's budget.
      fmt::print(stderr, "kdet scan: at most {} planned (--max-runs or --target-rate change it)\n",
                 plural(s.runs_left, "run"));
      if (s.timed_runs > 0) {
        const double per_run = s.estimate_seconds / static_cast<double>(s.timed_runs);
        // Runs of untimed compilers (none timed their probes) count at the timed ones' mean.
        const double slot_seconds = per_run * static_cast<double>(s.runs_left);
        fmt::print(stderr,
                   "kdet scan: estimate: {} of slot time at {} a run (each compiler's first job "
                   "timed), about {} on {}{}\n",
                   human_seconds(slot_seconds), human_seconds(per_run),
                   human_seconds(slot_seconds / std::max(1, s.threads)), plural(s.threads, "slot"),
                   s.timed_runs < s.runs_left ? "; some compilers untimed, counted at that mean"
                                              : "");
      } else if (s.runs_left > 0) {
        fmt::print(stderr, "kdet scan: estimate: none before the first runs (no compiler was "
                           "timed: unnamed = \"natural\" probes nothing); the progress line "
                           "estimates from the runs' own times\n");
      }
      for (const auto& d : s.defaults)
        fmt::print(stderr, "kdet scan: setting: {}\n", d);
    };
  auto line = std::make_shared<ProgressLine>(
      decide_progress(a.report.output.quiet, a.progress, terminal_facts(2)));
  if (line->on())
    req.progress = [line](const scan::ScanProgress& p) {
      line->show(fmt::format("[{}/{} jobs] {} varying, {}", p.done, p.total, p.varying,
                             progress_tail(p.runs, line->elapsed(), p.seconds_left)),
                 p.last);
    };
  scan::SessionEnd end = scan::run_session(req);

  // --settle/--stress: each other compiler's side of the comparisons, once every job ran.
  std::vector<report::CompilerComparison> cmps;
  std::deque<store::JobRow> extended;
  bool proved = a.prove.any() && !end.stats.interrupted && end.stats.errors.empty();
  if (proved) {
    cmps = report::compare_compilers(end.result);
    if (!prove(cmps, extended, end.db->meta(), a.db, a.prove, "kdet scan"))
      end.stats.interrupted = true;
  }
  emit_reports(end.result, *end.db, a.report, proved ? &cmps : nullptr);
  if (trace) {
    trace->mark(proved ? "compare and reports" : "reports");
    write_output(a.trace_path, trace->json(threads), "--trace");
  }
  if (!a.report.output.quiet && end.stats.compile_cpu_seconds > 0) {
    // kdet's own cost, directly: this process and every worker (reaped by now), less the compiles.
    double total = static_cast<double>(process_cpu_ns() + children_cpu_ns()) * 1e-9;
    double own = std::max(0.0, total - end.stats.compile_cpu_seconds);
    fmt::print(
        stderr,
        "kdet scan: cpu in this invocation: compile {}, kdet {} ({:.2f} % of the compile CPU)\n",
        human_seconds(end.stats.compile_cpu_seconds), human_seconds(own),
        100 * own / end.stats.compile_cpu_seconds);
  }
  for (const auto& e : end.stats.errors)
    print_error(e);
  if (end.stats.interrupted) {
    fmt::print(stderr,
               "kdet scan: interrupted; {} recorded in {}. Run the same command again to resume.\n",
               plural(end.db->run_count(), "run"), a.db);
    return k_exit_interrupted;
  }
  if (!end.stats.errors.empty()) return k_exit_usage;
  int code = scan::scan_exit_code(scan::count(end.result));
  // A sampled job that varies under stress is a regression the scan's own runs did not see.
  for (const auto& c : cmps)
    if (code != 1 && scan::any_regressed(c.pairs)) code = 1;
  return code;
}

} // namespace

void add_scan(CLI::App& root, Action& action) {
  auto a = std::make_shared<ScanArgs>();
  auto* cmd = root.add_subcommand(
      "scan", "Run a manifest's (input, compiler, target, options) jobs into a SQLite "
              "database; resumable; reports in text, JSON, JUnit and HTML");
  cmd->footer(
      "Examples:\n"
      "  kdet scan census.toml --db census.db --report-html census.html --junit census.xml\n"
      "  kdet scan census.toml --db shard3.db --shard 3/8     # then: kdet merge all.db shard*.db\n"
      "  kdet scan --report census.db --json -                 # re-render, run nothing\n"
      "  kdet scan cap/manifest.toml --db cap.db   # what kdet capture --out cap wrote: one job\n"
      "                                            # per captured compile (bundles = [...])\n"
      "Exit (the first that applies): 130 interrupted (run the same command again to resume);\n"
      "2 bad manifest, option or compiler; 1 a job varies unexpectedly ('nondeterministic'), or\n"
      "an [[expect]]ed job no longer varies ('no-longer-nondeterministic': its 95% bound is below\n"
      "budget.target_rate; fewer runs give 'not-seen', not a failure); 3 a job's compiler failed\n"
      "on every run; 0 nothing unexpected.\n"
      "Manifest reference: docs/SCAN.md");
  cmd->add_option("manifest", a->manifest, "The scan manifest (TOML)");
  cmd->add_option(
      "--db", a->db,
      "SQLite database for the results; an existing one of the same manifest is resumed");
  cmd->add_option("--report", a->report_db, "Re-render the reports of this database; run nothing");
  cmd->add_option(
         "--jobs,-j", a->jobs,
         "Jobs compiled at once (default: one per usable CPU: the affinity mask, bounded by a "
         "cgroup CPU quota)")
      ->check(whole_option(k_jobs_range));
  cmd->add_option("--target-rate", a->target_rate,
                  "Runs per job until no variance bounds its rate below R at 95% confidence "
                  "(overrides the manifest's [budget] target_rate)")
      ->check(real_option({1e-6, 0.5}));
  cmd->add_option("--max-runs", a->max_runs,
                  "Runs per job at most (overrides the manifest's [budget] max_runs)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
  cmd->add_option("--shard", a->shard,
                  "Run only slice I of N (1-based, stable by job id), e.g. 2/8");
  cmd->add_flag("--progress", a->progress,
                "Show progress even when stderr is not a terminal: plain lines (no \\r, no "
                "escape codes), one every 10 s and the last");
  cmd->add_option("--trace", a->trace_path,
                  "Write where the scan's time went to FILE: every run on a lane (worker ready, "
                  "compile) and kdet's own phases, as Chrome trace-event JSON for "
                  "ui.perfetto.dev or chrome://tracing");
  add_report_options(cmd, a->report);
  add_prove_options(cmd, a->prove);
  cmd->callback([a, &action] { action = [a] { return do_scan(*a); }; });
}

namespace {

// The inputs are merged into a new database beside `out` first, so an input that is refused
// (unsound, of another manifest, absent) leaves `out` as it was: no new file, and an existing
// one without half of the inputs. Then the new database becomes `out` (link(2), which never
// replaces a file that appeared meanwhile) or is merged into the existing one in one step.
void merge_all_or_nothing(const std::string& out, const std::vector<std::string>& inputs) {
  const std::string tmp = fmt::format("{}.kdet-merge-{}", out, ::getpid());
  auto remove_tmp = [&tmp] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      ::unlink((tmp + suffix).c_str());
  };
  struct stat st {};
  const bool existed = ::lstat(out.c_str(), &st) == 0;
  // The output's lock first: a database another kdet writes is named as in use, before any input.
  std::optional<store::ScanDb> held;
  if (existed) held.emplace(out);
  // An unsound input (counts that do not add up) is refused as a resume or compare refuses it.
  for (const auto& in : inputs) {
    struct stat in_st {};
    if (::stat(in.c_str(), &in_st) != 0)
      throw Error::format("merge: {}: {}", in, std::strerror(errno));
    store::ScanDb check(in, store::Access::read);
    (void)check.load();
  }
  remove_tmp();
  try {
    {
      store::ScanDb db(tmp);
      if (existed) db.merge_from(out); // first, so an input of another manifest is named as such
      for (const auto& in : inputs)
        db.merge_from(in);
    }
    if (existed)
      held->merge_from(tmp);
    else if (::link(tmp.c_str(), out.c_str()) != 0)
      throw Error::format("merge: cannot create {}: {}", out, std::strerror(errno));
  } catch (...) {
    remove_tmp();
    throw;
  }
  remove_tmp();
}

} // namespace

void add_merge(CLI::App& root, Action& action) {
  struct MergeArgs {
    std::string out;
    std::vector<std::string> inputs;
    ReportArgs report;
  };
  auto a = std::make_shared<MergeArgs>();
  auto* cmd = root.add_subcommand(
      "merge", "Join shard databases of one manifest (kdet scan --shard) into one");
  cmd->footer("Example:\n  kdet merge census.db shard1.db shard2.db shard3.db --junit census.xml\n"
              "A job found in several inputs keeps the finished copy with the most runs.");
  cmd->add_option("output", a->out, "The merged database (created, or added to)")->required();
  cmd->add_option("inputs", a->inputs, "Shard databases")->required();
  add_report_options(cmd, a->report);
  cmd->callback([a, &action] {
    action = [a] {
      for (const auto& in : a->inputs)
        if (absolute_path(in) == absolute_path(a->out) || same_file(in, a->out))
          throw Error::format("merge: {} is both output and input (the same file as {})", in,
                              a->out);
      check_report_paths(a->report);
      merge_all_or_nothing(a->out, a->inputs);
      store::ScanDb db(a->out);
      store::ScanResult result = db.load();
      emit_reports(result, db, a->report);
      return scan::scan_exit_code(scan::count(result));
    };
  });
}

void add_compare(CLI::App& root, Action& action) {
  struct CompareArgs {
    std::string a, b, ca, cb;
    OutputArgs output;
    bool all = false;
    bool annotations = false; // --annotations
    bool full_names = false;  // --full-names
    std::string junit_path;   // --junit
    double margin = scan::k_default_fix_margin;
    ProveArgs prove;
  };
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = root.add_subcommand("compare",
                                  "Label each job across two scan databases: identical, changed, "
                                  "fixed, not-seen, regressed, nondeterministic-both");
  cmd->footer(
      "Example:\n  kdet compare nvvm-13.3.db nvvm-13.4.db\n"
      "Jobs are matched on (input, target, option set) for the compiler chosen on each "
      "side; with one\n"
      "compiler per database none need be named. A job that varied in A and gave one "
      "output in B\n"
      "is 'fixed' only when B's 95% bound lies --margin times below A's rate; else "
      "'not-seen'.\n"
      "--settle runs B more until that bound is met (or --settle-budget is spent).\n"
      "--stress re-runs B under every factor that moves addresses (fresh+aslr, "
      "same+churn, chaos,\n"
      "threads): 'fixed under stress' (with a bound), 'hidden' (the regime and rate; the "
      "label\n"
      "becomes nondeterministic-both) or 'inconclusive'. Both re-run B's jobs from the manifest "
      "its "
      "database\n"
      "stores and write neither database. docs/SCAN.md, \"Settling and stressing B\".\n"
      "Exit status: 1 when B varies anywhere (regressed, nondeterministic-both, a job only B "
      "ran,\n"
      "hidden under --stress); else 3 when B failed on every run of a job, never ran a "
      "job A\n"
      "ran (its scan stopped early), or no job ran on both sides; else 0 (not-seen "
      "passes:\n"
      "B gave one output);\n"
      "2 usage, 130 interrupted. README, \"Exit status\".");
  cmd->add_option("a", a->a, "The baseline database (before)")->required();
  cmd->add_option("b", a->b, "The database to compare with it (after)")->required();
  cmd->add_option("--a-compiler", a->ca,
                  "Compiler name in A (default: its only one, or the one named as in B)");
  cmd->add_option("--b-compiler", a->cb, "Compiler name in B");
  add_json_option(cmd, a->output, "the comparison", "");
  add_color_option(cmd, a->output);
  cmd->add_option("--margin", a->margin,
                  "Call a job fixed only when B gave one output and its 95% upper bound on the "
                  "variance rate lies this many times below A's observed rate (else: not-seen)")
      ->check(real_option({1, 1e6, false}));
  add_prove_options(cmd, a->prove);
  cmd->add_flag("--full-names", a->full_names,
                "Name captured kernels in full (by default a name past 72 characters is cut, "
                "with a hash of the whole; --json's pairs hold the full names)");
  cmd->add_flag(
      "--annotations", a->annotations,
      "Also write GitHub Actions annotations (::error file=...::message) to stderr, one per "
      "failure of the gate");
  cmd->add_option("--junit", a->junit_path,
                  "Write JUnit XML to FILE (or - for stdout): a test case per job, a failure "
                  "where B varies, an error where B failed or never ran it");
  cmd->callback([a, &action] {
    action = [a] {
      for (const auto* p : {&a->a, &a->b})
        if (::access(p->c_str(), R_OK) != 0)
          throw Error::format("compare: {}: {}", *p, std::strerror(errno));
      store::ScanDb da(a->a, store::Access::read), db(a->b, store::Access::read);
      store::ScanResult ra = da.load(), rb = db.load();
      auto pick = [](const store::ScanResult& r, const std::string& given, const std::string& other,
                     const std::string& path, const char* opt) {
        auto has = [&](const std::string& n) {
          return std::any_of(r.compilers.begin(), r.compilers.end(),
                             [&](const auto& c) { return c.name == n; });
        };
        std::string names;
        for (const auto& c : r.compilers)
          names += (names.empty() ? "" : ", ") + c.name;
        if (!given.empty()) {
          if (!has(given))
            throw Error::format("{} {}: {} has no such compiler; it has: {}", opt, given, path,
                                names);
          return given;
        }
        if (r.compilers.size() == 1) return r.compilers[0].name;
        if (!other.empty() && has(other)) return other;
        throw Error::format("{} has several compilers ({}); choose one with {}", path, names, opt);
      };
      std::string ca = a->ca, cb = a->cb;
      if (ca.empty() && !cb.empty()) ca = pick(ra, "", cb, a->a, "--a-compiler");
      cb = pick(rb, cb, ca, a->b, "--b-compiler");
      ca = pick(ra, ca, cb, a->a, "--a-compiler");
      // Jobs that ran under different settings are never called fixed.
      const scan::SettingsDiffer sd = scan::settings_differ(ra, ca, rb, cb);
      report::CompilerComparison cmp{
          a->a + ":" + ca,
          a->b + ":" + cb,
          scan::pair_jobs(ra.jobs, ca, rb.jobs, cb, a->margin, !sd.differ()),
          a->margin,
          sd.a,
          sd.b};
      std::deque<store::JobRow> extended; // B's rows with the runs --settle added
      check_output_path(a->output.json_path, "--json");
      check_output_path(a->junit_path, "--junit");
      if (a->junit_path == "-" && a->output.json_path == "-")
        throw Error("--json - and --junit -: only one can take stdout; give the other a FILE");
      if (a->prove.any()) {
        std::vector<report::CompilerComparison> one{std::move(cmp)};
        bool whole = prove(one, extended, db.meta(), a->b, a->prove, "kdet compare");
        cmp = std::move(one.front());
        if (!whole) {
          fmt::print(stderr, "kdet compare: interrupted\n");
          return static_cast<int>(k_exit_interrupted);
        }
      }
      Output output(a->output);
      if (!a->output.json_path.empty()) output.write_json(report::comparison_to_json(cmp));
      std::string text =
          report::comparison_to_text(cmp, output.color(), 50, a->full_names ? 0 : k_name_width);
      // --junit -: stdout is the XML's, so the summary goes to stderr.
      if (a->junit_path == "-")
        fmt::print(stderr, "{}", terminal_text(text, output.color()));
      else
        output.print_text(text);
      if (a->annotations) fmt::print(stderr, "{}", compare_annotations(cmp.pairs));
      if (!a->junit_path.empty())
        write_output(a->junit_path, report::comparison_to_junit(cmp), "--junit");
      return scan::compare_exit_code(cmp.pairs);
    };
  });
}

} // namespace kdet::cli
