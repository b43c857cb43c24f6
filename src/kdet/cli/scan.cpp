//===- cli/scan.cpp - `kdet scan`, `kdet merge`, `kdet compare` ---------------===//
//
// scan: runs every (input, compiler, target, option set) job of a manifest
// into a SQLite database, resumably; or, with --report, re-renders the
// reports of a database without running anything. merge: joins shard
// databases. compare: labels each job across two databases (fixed,
// regressed, ...). docs/SCAN.md is the manifest reference.
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/scan/labels.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/scan/status.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <fmt/format.h>
#include <memory>
#include <thread>
#include <unistd.h>

namespace kdet::cli {

namespace {

struct ReportArgs {
  std::string json_path;
  std::string junit_path;
  std::string html_path;
  std::string color = "auto";
  bool quiet = false;
};

struct ScanArgs {
  std::string manifest;
  std::string db;
  std::string report_db;
  int jobs = 0;
  std::string shard;
  bool progress = false;
  ReportArgs report;
};

void add_report_options(CLI::App* cmd, ReportArgs& r) {
  cmd->add_option("--json", r.json_path,
                  "Write the result as JSON (schema kdet.scan/1) to FILE, or - for stdout");
  cmd->add_option("--junit", r.junit_path,
                  "Write JUnit XML (one test case per job) to FILE, or - for stdout");
  cmd->add_option("--report-html", r.html_path,
                  "Write one self-contained HTML report with SVG charts to FILE");
  cmd->add_option("--color", r.color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--quiet,-q", r.quiet, "No summary or progress line");
}

// Writes the requested reports of a result and prints the summary.
void emit_reports(const scan::ScanResult& result, store::ScanDb& db, const ReportArgs& r) {
  bool json_stdout = r.json_path == "-";
  if (!r.json_path.empty()) {
    std::string text = json_text(report::scan_to_json(result)) + "\n";
    if (json_stdout)
      fmt::print("{}", text);
    else
      write_output(r.json_path, text, "--json");
  }
  if (!r.junit_path.empty()) write_output(r.junit_path, report::scan_to_junit(result), "--junit");
  if (!r.html_path.empty())
    write_output(r.html_path,
                 report::scan_to_html(result, [&db](const std::string& h) { return db.blob(h); }),
                 "--report-html");
  if (!r.quiet) {
    FILE* to = json_stdout ? stderr : stdout;
    bool color = r.color == "always" || (r.color == "auto" && ::isatty(::fileno(to)));
    fmt::print(to, "{}", report::scan_to_text(result, color));
  }
}

int do_report(const ScanArgs& a) {
  if (::access(a.report_db.c_str(), R_OK) != 0)
    throw Error::format("--report {}: {}", a.report_db, std::strerror(errno));
  store::ScanDb db(a.report_db, store::Access::read);
  scan::ScanResult result = db.load();
  if (result.meta.empty())
    throw Error::format("--report {}: the database holds no scan", a.report_db);
  emit_reports(result, db, a.report);
  return scan::scan_exit_code(scan::count(result));
}

int do_scan(const ScanArgs& a) {
  if (!a.report_db.empty()) {
    if (!a.manifest.empty() || !a.db.empty())
      throw Error("--report DB re-renders a database; give no manifest or --db");
    return do_report(a);
  }
  if (a.manifest.empty())
    throw Error("kdet scan needs a MANIFEST (or --report DB); see docs/SCAN.md");
  if (a.db.empty())
    throw Error(
        "kdet scan needs --db FILE: the SQLite database the results go to (and resume from)");
  int threads =
      a.jobs ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads < 1 || threads > 1024)
    throw Error::format("--jobs {}: must be between 1 and 1024", a.jobs);
  scan::Shard shard;
  if (!a.shard.empty()) shard = scan::parse_shard(a.shard);

  scan::Manifest m = scan::load_manifest(a.manifest);
  auto compilers = scan::resolve_compilers(m);
  std::vector<scan::Job> all = scan::plan_jobs(m, compilers), jobs;
  for (auto& j : all)
    if (scan::in_shard(j.id, shard)) jobs.push_back(std::move(j));

  store::ScanDb db(a.db);
  auto meta = db.meta();
  if (!meta.empty() && meta["manifest_hash"] != m.text_hash)
    throw Error::format(
        "--db {}: it holds a scan of another manifest (or an earlier version of {}); give a new "
        "--db file, or delete it to start over",
        a.db, a.manifest);
  if (meta.empty())
    db.set_meta({{"name", m.name},
                 {"manifest", a.manifest},
                 {"manifest_hash", m.text_hash},
                 {"manifest_text", read_file(a.manifest)},
                 {"kdet_version", k_version},
                 {"setting", json_text(perturb::to_json(m.setting), -1)},
                 {"target_rate", fmt::format("{}", m.target_rate)},
                 {"budget", std::to_string(scan::job_budget(m))}});

  std::vector<scan::CompilerRow> crow;
  crow.reserve(compilers.size());
  for (const auto& c : compilers)
    crow.push_back({c.name, c.config.kind, c.path, c.content_hash, ""});
  std::vector<scan::JobRow> planned;
  std::vector<std::pair<std::string, std::string>> inputs;
  planned.reserve(jobs.size());
  for (const auto& j : jobs)
    planned.push_back(scan::initial_row(m, j));
  for (const auto& in : m.inputs)
    inputs.emplace_back(in.name, backend::cached_file_hash(in.path));
  db.plan(crow, planned, inputs);

  std::map<std::string, scan::JobRow> state;
  {
    scan::ScanResult stored = db.load();
    for (auto& j : stored.jobs)
      state[j.id] = std::move(j);
  }
  size_t resumed = 0;
  for (const auto& j : jobs)
    resumed += state.at(j.id).runs > 0;
  bool progress = !a.report.quiet && (a.progress || ::isatty(2));
  if (!a.report.quiet)
    fmt::print(
        stderr,
        "kdet scan: {} jobs{} ({} inputs, {} compilers, {} targets, {} option sets), {} at once, "
        "up to {} runs each{}\n",
        jobs.size(),
        shard.count > 1 ? fmt::format(" in shard {}/{} of {}", shard.index, shard.count, all.size())
                        : "",
        m.inputs.size(), m.compilers.size(), std::max<size_t>(1, m.targets.size()),
        m.option_sets.size(), threads, scan::job_budget(m),
        resumed ? fmt::format("; resuming {} started jobs", resumed) : "");

  engine::install_interrupt_handler();
  int64_t scan_id = db.begin_scan(a.shard.empty() ? "1/1" : a.shard, invocation());
  scan::ScheduleStats stats;
  {
    store::ScanWriter writer(db);
    stats = scan::run_jobs(m, jobs, state, writer, {threads, progress});
  }
  db.finish_scan(scan_id, stats.interrupted ? "interrupted" : "finished");

  scan::ScanResult result = db.load();
  emit_reports(result, db, a.report);
  for (const auto& e : stats.errors)
    fmt::print(stderr, "kdet: error: {}\n", e);
  if (stats.interrupted) {
    fmt::print(
        stderr,
        "kdet scan: interrupted; {} runs recorded in {}. Run the same command again to resume.\n",
        db.run_count(), a.db);
    return k_exit_interrupted;
  }
  if (!stats.errors.empty()) return k_exit_usage;
  return scan::scan_exit_code(scan::count(result));
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
      "Exit (the first that applies): 130 interrupted (run the same command again to resume);\n"
      "2 bad manifest, option or compiler; 1 a job varies unexpectedly, or an [[expect]]ed job no\n"
      "longer varies (its 95% bound is below budget.target_rate; fewer runs give 'not-seen', not "
      "a\n"
      "failure); 3 a job's compiler failed on every run; 0 nothing unexpected.\n"
      "Manifest reference: docs/SCAN.md");
  cmd->add_option("manifest", a->manifest, "The scan manifest (TOML)");
  cmd->add_option(
      "--db", a->db,
      "SQLite database for the results; an existing one of the same manifest is resumed");
  cmd->add_option("--report", a->report_db, "Re-render the reports of this database; run nothing");
  cmd->add_option("--jobs,-j", a->jobs, "Jobs compiled at once (default: one per core)")
      ->check(whole_option(k_jobs_range));
  cmd->add_option("--shard", a->shard,
                  "Run only slice I of N (1-based, stable by job id), e.g. 2/8");
  cmd->add_flag("--progress", a->progress,
                "Show the progress line even when stderr is not a terminal");
  add_report_options(cmd, a->report);
  cmd->callback([a, &action] { action = [a] { return do_scan(*a); }; });
}

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
        if (absolute_path(in) == absolute_path(a->out))
          throw Error::format("merge: {} is both output and input", in);
      store::ScanDb db(a->out);
      for (const auto& in : a->inputs)
        db.merge_from(in);
      scan::ScanResult result = db.load();
      emit_reports(result, db, a->report);
      return scan::scan_exit_code(scan::count(result));
    };
  });
}

void add_compare(CLI::App& root, Action& action) {
  struct CompareArgs {
    std::string a, b, ca, cb, json_path, color = "auto";
    bool all = false;
  };
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = root.add_subcommand("compare",
                                  "Label each job across two scan databases: identical, changed, "
                                  "fixed, regressed, varies-both");
  cmd->footer("Example:\n  kdet compare nvvm-13.3.db nvvm-13.4.db\n"
              "Jobs are matched on (input, target, option set) for the compiler chosen on each "
              "side; with one\n"
              "compiler per database none need be named. Exit 1 when any job regressed.");
  cmd->add_option("a", a->a, "The baseline database (before)")->required();
  cmd->add_option("b", a->b, "The database to compare with it (after)")->required();
  cmd->add_option("--a-compiler", a->ca,
                  "Compiler name in A (default: its only one, or the one named as in B)");
  cmd->add_option("--b-compiler", a->cb, "Compiler name in B");
  cmd->add_option("--json", a->json_path, "Write the comparison as JSON to FILE, or - for stdout");
  cmd->add_option("--color", a->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([a, &action] {
    action = [a] {
      for (const auto* p : {&a->a, &a->b})
        if (::access(p->c_str(), R_OK) != 0)
          throw Error::format("compare: {}: {}", *p, std::strerror(errno));
      store::ScanDb da(a->a, store::Access::read), db(a->b, store::Access::read);
      scan::ScanResult ra = da.load(), rb = db.load();
      auto pick = [](const scan::ScanResult& r, const std::string& given, const std::string& other,
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
      report::CompilerComparison cmp{a->a + ":" + ca, a->b + ":" + cb,
                                     scan::pair_jobs(ra.jobs, ca, rb.jobs, cb)};
      bool json_stdout = a->json_path == "-";
      if (!a->json_path.empty()) {
        std::string text = json_text(report::comparison_to_json(cmp)) + "\n";
        if (json_stdout)
          fmt::print("{}", text);
        else
          write_output(a->json_path, text, "--json");
      }
      FILE* to = json_stdout ? stderr : stdout;
      bool color = a->color == "always" || (a->color == "auto" && ::isatty(::fileno(to)));
      fmt::print(to, "{}", report::comparison_to_text(cmp, color));
      return scan::compare_exit_code(cmp.pairs);
    };
  });
}

} // namespace kdet::cli
