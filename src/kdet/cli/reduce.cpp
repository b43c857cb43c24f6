//===- cli/reduce.cpp - `kdet reduce`: the smallest input that still varies ---===//
//
// Reduces INPUT with reduce/ (flaky-aware oracle, the pass table), writes the
// best text to SMALL after every accepted step (atomically), and at the end a
// reproducer folder SMALL.repro/ for a vendor bug report: the reduced input, a
// README with the exact `kdet run` command and the rate with its 95 % interval,
// the final runs as `kdet run --out` keeps them (with kdet's environment
// record) and the diff of two variants.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/replay.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/run_options.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_defaults.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/perturb/files.hpp"
#include "kdet/reduce/reducer.hpp"
#include "kdet/report/run_report.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/store/run_dir.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

// A reduction that removed less than --min-reduction: SMALL and SMALL.repro/ are written, but
// they are (nearly) the input, which is no success. 1, kdet's code for a failed gate.
constexpr int k_exit_not_reduced = 1;

struct ReduceArgs {
  CompileArgs compile;
  FactorArgs factors;
  int jobs = 1;
  std::string out;
  double timeout_total = 0;
  bool any_variance = false;
  uint64_t runs = 64;
  uint64_t final_runs = 64;
  std::string unnamed = "vary";
  bool quiet = false;
  bool verbose = false;         // -v: a line per candidate
  double min_reduction = 5;     // percent; less is exit 1
  bool keep_names = false;      // no stand-ins for long names
  std::string cvise;            // cvise's path; empty: from PATH; "none": the line pass
  std::string llvm_reduce;      // llvm-reduce's path for NVVM IR; empty: kdet's own passes
  std::string oracle_state;     // internal: judge one candidate for cvise's script
  std::string oracle_candidate; // internal: that candidate
};

// The arguments after `reduce` this kdet was started with, for the script cvise runs.
std::vector<std::string> reduce_arguments() {
  std::string raw = read_file("/proc/self/cmdline");
  std::vector<std::string> argv;
  for (size_t p = 0; p < raw.size();) {
    size_t e = raw.find('\0', p);
    if (e == std::string::npos) e = raw.size();
    argv.push_back(raw.substr(p, e - p));
    p = e + 1;
  }
  for (size_t i = 1; i < argv.size(); ++i)
    if (argv[i] == "reduce") return {argv.begin() + static_cast<long>(i) + 1, argv.end()};
  throw Error("cannot find `reduce` in this kdet's command line (/proc/self/cmdline)");
}

// cvise's interestingness script runs this: exit 0 when the candidate still varies as the
// original did, judged by the oracle with the reference the state folder holds.
int do_oracle(const ReduceArgs& a, const engine::RunPlan& plan) {
  reduce::OracleState st = reduce::read_oracle_state(a.oracle_state);
  std::string text = read_file(a.oracle_candidate);
  if (reduce::was_accepted(a.oracle_state, text)) {
    reduce::note_oracle_test(a.oracle_state, 0, reduce::Rejection::none);
    return 0;
  }
  engine::RunPlan base = plan;
  base.jobs = 1;
  TempDir work("reduce");
  std::string ext = file_extension(a.oracle_candidate);
  reduce::Oracle oracle(base, work.path(), ext.empty() ? ext : "." + ext, a.any_variance);
  oracle.set_reference(st.kind, st.rate);
  reduce::Measure m;
  reduce::Rejection why = reduce::Rejection::none;
  bool ok = oracle.interesting(
      text, &m, &why, reduce::any_test_recorded(a.oracle_state) ? 0 : reduce::k_confirm_runs);
  // The confirming runs measure the accepted text's rate again (16 of them either way).
  if (ok && a.any_variance) m = oracle.run(text, reduce::k_confirm_runs, false);
  reduce::note_oracle_test(a.oracle_state, oracle.compiles(), why);
  if (!ok || engine::interrupted()) return engine::interrupted() ? k_exit_interrupted : 1;
  reduce::remember_accepted(a.oracle_state, text);
  if (m.runs > 0 && reduce::offer_best(a.oracle_state, a.out, text))
    reduce::write_oracle_state(a.oracle_state,
                               {st.kind, std::max(m.rate(), 1.0 / static_cast<double>(m.runs))});
  return 0;
}

// The `kdet run` command that reproduces the setting on `input`.
std::string run_command(const ReduceArgs& a, const std::string& input) {
  std::vector<std::string> argv = {"kdet", "run", input};
  if (!a.compile.backend.empty()) argv.insert(argv.end(), {"--backend", a.compile.backend});
  if (!a.compile.lib.empty()) argv.insert(argv.end(), {"--lib", a.compile.lib});
  if (!a.compile.command.empty()) argv.insert(argv.end(), {"--cmd", a.compile.command});
  if (!a.compile.output_ext.empty())
    argv.insert(argv.end(), {"--output-ext", a.compile.output_ext});
  for (const auto& [name, value] : a.factors.values)
    if (!value.empty()) argv.insert(argv.end(), {"--" + name, value});
  for (const auto& e : a.factors.env)
    argv.insert(argv.end(), {"--env", e});
  if (a.unnamed != "vary") argv.insert(argv.end(), {"--unnamed", a.unnamed});
  argv.insert(argv.end(), {"--runs", std::to_string(a.final_runs)});
  if (!a.compile.options.empty()) {
    argv.emplace_back("--");
    argv.insert(argv.end(), a.compile.options.begin(), a.compile.options.end());
  }
  return shell_join(argv);
}

// SMALL.repro must be a real folder or absent: kdet removes SMALL.repro/run, so a planted link
// (small.ll.repro -> / in a shared /tmp) would have it remove /run as root.
void check_repro_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw Error::format("-o: {} exists and is not a folder (a link is not followed); remove it or "
                        "name another SMALL",
                        dir);
}

// The README's table of long names and their stand-ins; empty when none.
std::string names_table(const reduce::ReduceResult& r) {
  if (r.renames.empty()) return "";
  std::string out = fmt::format(
      "\n## Names\n\n{}\n\n| short | original |\n| --- | --- |\n",
      r.renamed ? "Long names are renamed in the input (the renamed input still varied), so its "
                  "outputs and the diff above use the short ones:"
                : "The input keeps its long names (renamed, it no longer varied the same way); "
                  "the diff above shows them shortened:");
  for (const auto& n : r.renames)
    out += fmt::format("| `{}` | `{}` |\n", n.to, n.from);
  return out;
}

// The files a reduced input names, copied into SMALL.repro/files/.
struct NamedCopies {
  std::vector<std::pair<std::string, std::string>> copied; // (the named file, its copy's name)
  std::vector<std::string> still_original; // copied, but the input names them another way
  std::string text;                        // the input, naming the copies where it can
};

// A compile may read or record the files its input names (ptxas writes the modification time of
// each PTX `.file` into the cubin), so the reproducer keeps them: every named file that exists
// here (perturb::named_files: `.file`, `#line`, `#include`, `!DIFile`), copied into `files`, and
// each quoted absolute path to one in the input replaced by its copy's. A file named another way
// (an include found through -I, a !DIFile's folder and name) stays named as it was.
NamedCopies copy_named_files(const std::string& text, const engine::RunPlan& plan,
                             const std::string& files) {
  NamedCopies c{{}, {}, text};
  std::vector<std::string> named = perturb::named_files(
      text, plan.input_path, plan.options, std::filesystem::current_path().string(), 64);
  if (access(files.c_str(), F_OK) == 0) remove_tree(files);
  if (named.empty()) return c;
  make_dirs(files);
  std::set<std::string> taken;
  for (const auto& f : named) {
    std::string base = f.substr(f.rfind('/') + 1);
    std::string to = base;
    for (int k = 2; !taken.insert(to).second; ++k)
      to = fmt::format("{}-{}", k, base);
    write_file_atomic(files + "/" + to, read_file(f));
    c.copied.emplace_back(f, to);
    std::string quoted = "\"" + f + "\"";
    std::string copy = "\"" + absolute_path(files + "/" + to) + "\"";
    if (c.text.find(quoted) == std::string::npos) {
      c.still_original.push_back(f);
      continue;
    }
    for (size_t at = c.text.find(quoted); at != std::string::npos;
         at = c.text.find(quoted, at + copy.size()))
      c.text.replace(at, quoted.size(), copy);
  }
  return c;
}

// The README's list of the copied files; empty when none.
std::string files_section(const NamedCopies& c) {
  if (c.copied.empty()) return "";
  std::string out =
      "- `files/`: copies of the files the input names, which the compiler may read or record "
      "(ptxas writes the modification time of each PTX `.file` into the cubin); the input here "
      "names the copies";
  out += c.still_original.empty() ? ":\n" : ", except those marked (it names them otherwise):\n";
  for (const auto& [from, to] : c.copied) {
    bool kept =
        std::find(c.still_original.begin(), c.still_original.end(), from) != c.still_original.end();
    out += fmt::format("  - `files/{}`: `{}`{}\n", to, from, kept ? " (named as before)" : "");
  }
  return out;
}

// SMALL.repro/: what a vendor bug report needs, measured again on the result.
void write_repro(const ReduceArgs& a, const engine::RunPlan& plan, const reduce::ReduceResult& r) {
  std::string dir = a.out + ".repro";
  check_repro_dir(dir);
  make_dirs(dir);
  std::string name = a.out.substr(a.out.rfind('/') + 1);
  NamedCopies copies = copy_named_files(r.text, plan, dir + "/files");
  write_file_atomic(dir + "/" + name, copies.text);
  engine::RunPlan p = plan;
  p.input_path = absolute_path(dir + "/" + name);
  p.runs = a.final_runs;
  p.jobs = a.jobs;
  std::string run_dir = dir + "/run";
  if (access(run_dir.c_str(), F_OK) == 0) remove_tree(run_dir);
  store::prepare_run_dir(run_dir);
  engine::RunOutput out = engine::execute(p);
  engine::annotate_differences(out);
  engine::Assessment as = engine::assess(out);
  nlohmann::json result = report::run_to_json(out, as, hash_bytes(r.text), true);
  store::write_run_dir(run_dir, out, result, report::record_to_json);
  reduce::Measure m = reduce::measure_of(out);
  stats::Interval ci = stats::clopper_pearson(m.differing, m.runs);

  std::string diff_text = "(fewer than two successful variants in the final runs)\n";
  std::vector<const engine::Variant*> ok;
  for (const auto& v : out.variants)
    if (v.status == backend::Status::ok && !v.artifacts.empty()) ok.push_back(&v);
  if (ok.size() >= 2) {
    auto art = [&](const engine::Variant* v) {
      return read_file(run_dir + "/variants/" + store::variant_dir_name(v->id) + "/" +
                       v->artifacts[0].name);
    };
    diff::Report d = diff::compare(art(ok[0]), art(ok[1]));
    diff_text = diff::to_text(d, false, ok[0]->id.substr(0, 12), ok[1]->id.substr(0, 12));
    // The variants still name what the input names: the table's stand-ins shorten them.
    diff_text = reduce::apply_renames(reduce::TextFormat::text, diff_text, r.renames);
    write_file_atomic(dir + "/diff.txt", diff_text);
  }
  std::string readme = fmt::format(
      "# Nondeterministic compile: reduced reproducer\n\n"
      "Input: `{name}` ({bytes} bytes, reduced by kdet reduce from {orig} bytes).\n\n"
      "## Reproduce\n\n```sh\n{cmd}\n```\n\n"
      "Exit status 1 means two or more different outputs were seen.\n\n"
      "## Observed\n\n"
      "{runs} runs, {diff} differing from the most common output: rate {rate:.1f} % "
      "(95 % interval {lo:.1f} % .. {hi:.1f} %), {nv} distinct outcomes.\n\n"
      "Compiler: {compiler} (version {version}, content hash {hash}).\n\n"
      "## Files\n\n"
      "- `{name}`: the reduced input\n"
      "- `run/`: these runs as `kdet run --out` keeps them: `run/result.json` (with kdet's "
      "environment record under \"environment\"), `run/runs.jsonl`, one folder per variant "
      "under `run/variants/`\n"
      "- `diff.txt`: `kdet diff run` of the two most common variants\n"
      "{files}\n"
      "## Difference of two variants\n\n```\n{difftext}```\n{names}",
      fmt::arg("name", name), fmt::arg("bytes", r.text.size()), fmt::arg("orig", r.original_bytes),
      fmt::arg("cmd", run_command(a, name)), fmt::arg("runs", m.runs),
      fmt::arg("diff", m.differing), fmt::arg("rate", 100 * m.rate()), fmt::arg("lo", 100 * ci.low),
      fmt::arg("hi", 100 * ci.high), fmt::arg("nv", out.variants.size()),
      fmt::arg("compiler", out.identity.path), fmt::arg("version", out.identity.version),
      fmt::arg("hash", out.identity.content_hash), fmt::arg("difftext", diff_text),
      fmt::arg("names", names_table(r)), fmt::arg("files", files_section(copies)));
  write_file_atomic(dir + "/README.md", readme);
}

int do_reduce(ReduceArgs args) {
  // A bundle folder of kdet capture brings its input, library or command and options, as for
  // run (bundles of one input: the README's kdet run command names that input alone).
  std::optional<capture::ReplayPlan> replay = capture::bundle_replay_plan(args.compile.input);
  if (replay) {
    capture::require_single_input(*replay, "kdet reduce");
    capture::apply_replay(*replay, args.compile.input, args.compile.backend, args.compile.lib,
                          args.compile.options, args.compile.command);
  }
  engine::RunPlan plan;
  resolve_compile_args(args.compile, plan);
  resolve_factor_args(args.factors, plan);
  if (args.out.empty() || args.out.back() == '/')
    throw Error("-o/--out: name the file the reduced input goes to");
  {
    // Found now, not at the first accepted step minutes later.
    std::string parent = absolute_path(args.out);
    parent = parent.substr(0, parent.rfind('/'));
    struct stat st {};
    if (::stat(parent.empty() ? "/" : parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Error::format("-o {}: folder {} does not exist", args.out, parent);
  }
  if (absolute_path(args.out) == plan.input_path)
    throw Error::format("-o {}: is the input; name another file", args.out);
  if (args.oracle_state.empty() != args.oracle_candidate.empty())
    throw Error("--oracle-state and --oracle-candidate go together (internal options of the "
                "script kdet reduce writes for cvise)");
  {
    // SMALL is replaced by a rename: a device, FIFO or folder there would be replaced (as
    // root, -o /dev/null removed the device), and the input reached through another path
    // (a linked folder) would be overwritten.
    struct stat ost {};
    struct stat ist {};
    if (::stat(args.out.c_str(), &ost) == 0) {
      if (!S_ISREG(ost.st_mode))
        throw Error::format("-o {}: exists and is not a regular file; kdet reduce writes SMALL "
                            "as a new file (and SMALL.repro/ beside it): name a file",
                            args.out);
      if (::stat(plan.input_path.c_str(), &ist) == 0 && ist.st_dev == ost.st_dev &&
          ist.st_ino == ost.st_ino)
        throw Error::format("-o {}: is the input; name another file", args.out);
    }
  }
  check_repro_dir(args.out + ".repro");
  std::set<std::string> given;
  for (const auto& [name, value] : args.factors.values)
    if (!value.empty()) given.insert(name);
  engine::install_interrupt_handler();
  bool oracle_mode = !args.oracle_state.empty();
  for (const auto& w : args.factors.warnings)
    if (!oracle_mode) fmt::print(stderr, "kdet: warning: {}\n", w);
  if (args.unnamed == "vary") {
    engine::DefaultLevels d = engine::vary_unset_factors(plan, given);
    for (const auto& w : d.findings)
      if (!oracle_mode) fmt::print(stderr, "kdet: warning: {}\n", w);
  }
  if (oracle_mode) return do_oracle(args, plan);
  TempDir work("reduce");
  reduce::ReduceOptions o;
  o.plan = plan;
  o.jobs = args.jobs;
  o.any_variance = args.any_variance;
  o.initial_runs = args.runs;
  o.timeout_total = args.timeout_total;
  o.work_dir = work.path();
  o.rename = !args.keep_names;
  if (args.verbose)
    o.log = [](const std::string& line) { fmt::print(stderr, "reduce: {}\n", line); };
  reduce::TextFormat format = reduce::format_of(plan.input_path);
  if (format == reduce::TextFormat::nvvm_ir && !args.llvm_reduce.empty()) {
    o.cvise.tool = reduce::CviseOptions::Tool::llvm_reduce;
    o.cvise.program = reduce::find_cvise(args.llvm_reduce);
    if (o.cvise.program.empty())
      throw Error::format("--llvm-reduce {}: not a program (Debian: apt-get install llvm-14, "
                          "then --llvm-reduce llvm-reduce-14)",
                          args.llvm_reduce);
  }
  if (format == reduce::TextFormat::cxx || !o.cvise.program.empty()) {
    if (format == reduce::TextFormat::cxx) o.cvise.program = reduce::find_cvise(args.cvise);
    if (format == reduce::TextFormat::cxx && o.cvise.program.empty() && args.cvise != "none")
      fmt::print(stderr,
                 "kdet: warning: {}: cvise not found{}; reducing C++ with the line pass only "
                 "(install the Debian package cvise, or give --cvise PATH)\n",
                 args.compile.input, args.cvise.empty() ? " in PATH" : " at " + args.cvise);
    o.cvise.kdet = self_exe();
    o.cvise.reduce_args = reduce_arguments();
    o.cvise.cwd = absolute_path(".");
    if (const char* t = std::getenv("TMPDIR")) o.cvise.tmpdir = std::string(t);
    o.cvise.best_path = args.out;
  }
  bool tty = !args.quiet && isatty(2) != 0;
  size_t shown = 0;
  // On a terminal one line redrawn; elsewhere (a log) a line per size reached.
  auto progress = [tty, quiet = args.quiet, &shown](const reduce::Progress& p) {
    if (quiet || (!tty && p.bytes == shown)) return;
    shown = p.bytes;
    fmt::print(stderr, "{}{} -> {} bytes ({:.1f} %), rate {:.0f} %, {} tests, {:.0f} s, {}{}",
               tty ? "\r\033[K" : "reduce: ", p.original_bytes, p.bytes,
               p.original_bytes
                   ? 100.0 * static_cast<double>(p.bytes) / static_cast<double>(p.original_bytes)
                   : 100.0,
               100 * p.rate, p.tests, p.elapsed, p.pass, tty ? "" : "\n");
  };
  std::string out_path = args.out;
  std::atomic<bool> wrote = false;
  auto on_best = [&out_path, &wrote](const std::string& text) {
    write_file_atomic(out_path, text);
    wrote = true;
  };
  reduce::ReduceResult r = reduce::reduce(o, on_best, progress);
  if (tty) fmt::print(stderr, "\n");
  if (!r.warning.empty()) fmt::print(stderr, "kdet: warning: {}\n", r.warning);
  // Nothing smaller varied (or nothing was tried): SMALL is the input itself, also where an
  // older SMALL was there (it was kept, stale, beside a repro of this input).
  if (!wrote) write_file_atomic(out_path, r.text);
  if (r.interrupted) {
    fmt::print(stderr, "kdet: interrupted; {} keeps the best so far ({} bytes)\n", args.out,
               r.text.size());
    return k_exit_interrupted;
  }
  write_repro(args, plan, r);
  double smaller = 100.0 * (1.0 - static_cast<double>(r.text.size()) /
                                      static_cast<double>(std::max<size_t>(1, r.original_bytes)));
  bool enough = smaller >= args.min_reduction;
  if (!args.quiet || !enough)
    fmt::print("reduced   {} -> {} bytes ({:.1f} % smaller), {} tests, {} compiles, {:.1f} s{}{}\n"
               "wrote     {} and {}.repro/ (README.md: the kdet run command, rate, diff)\n",
               r.original_bytes, r.text.size(), smaller, r.tests, r.compiles, r.seconds,
               std::string(r.engine) == "passes" ? "" : ", " + std::string(r.engine),
               r.timed_out ? " (stopped at --timeout-total)" : "", args.out, args.out);
  if (!args.quiet || !enough) {
    std::string passes = reduce::describe_passes(r.passes);
    for (const auto& line : split(passes, '\n'))
      if (!line.empty()) fmt::print("pass      {}\n", line);
    if (r.renamed)
      fmt::print("names     {} long names renamed (table in the README)\n", r.renames.size());
  }
  if (!enough) {
    fmt::print(stderr,
               "kdet: reduce: only {:.1f} % smaller (less than --min-reduction {:g} %){}; the "
               "passes tried and why their candidates were rejected are listed above (-v: every "
               "candidate)\n",
               smaller, args.min_reduction, r.timed_out ? ", stopped at --timeout-total" : "");
    return k_exit_not_reduced;
  }
  return 0;
}

} // namespace

void add_reduce(CLI::App& root, Action& action) {
  auto args = std::make_shared<ReduceArgs>();
  auto* cmd = root.add_subcommand(
      "reduce", "Reduce an input that varies to the smallest one that still varies, with a "
                "reproducer folder for a bug report");
  cmd->footer(
      "Examples:\n"
      "  kdet reduce kernel.ll -o small.ll -- -arch=compute_90a -opt=3\n"
      "  kdet reduce k.ptx --backend exec --cmd 'ptxas -arch=sm_90a {input} -o {output}' -o s.ptx\n"
      "  kdet reduce k.cu -o small.cu -j 2 -- -arch=compute_90a   (C++ and CUDA C++: cvise)\n"
      "  kdet reduce capture/bundles/ID -o small.ll     (a capture bundle brings its setting)\n"
      "Writes SMALL after every accepted step (an interrupt keeps it; exit 130) and, at the end,\n"
      "SMALL.repro/ (README.md with the kdet run command and the rate, run/, diff.txt).\n"
      "Exit 0 reduced; 1 when the result is less than --min-reduction (default 5 %) smaller (the\n"
      "summary names the passes tried and why candidates were rejected); 2 when the input does\n"
      "not compile or does not vary under the setting; 130 interrupted.\n"
      "Passes and the oracle: docs/REDUCE.md.");
  add_compile_options(cmd, args->compile);
  add_factor_options(cmd, args->factors);
  cmd->add_option("--out,-o", args->out, "File the reduced input goes to (SMALL)")->required();
  cmd->add_option("--jobs,-j", args->jobs, "Candidates tested at once (default 1)")
      ->check(whole_option(k_jobs_range));
  cmd->add_option("--timeout-total", args->timeout_total,
                  "Stop reducing after this many seconds and keep the best (default 0: none)")
      ->check(real_option({0, 1e9}));
  cmd->add_option("--runs,-n", args->runs, "Runs of the first check that INPUT varies (default 64)")
      ->check(whole_option(k_runs_range));
  cmd->add_option("--final-runs", args->final_runs,
                  "Runs measuring the result for the reproducer (default 64)")
      ->check(whole_option(k_runs_range));
  cmd->add_flag("--any-variance", args->any_variance,
                "Accept a candidate whose variance changed kind (e.g. crashes where outputs "
                "differed)");
  cmd->add_option("--unnamed", args->unnamed,
                  "The factors no option names: vary (default, as kdet run) or natural")
      ->check(CLI::IsMember({"vary", "natural"}));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line or summary");
  cmd->add_flag("--verbose,-v", args->verbose,
                "A line per candidate on stderr: its size, pass and outcome (accepted, did not "
                "compile, stopped varying, changed kind)");
  cmd->add_option("--min-reduction", args->min_reduction,
                  "Percent smaller the result must be, else exit 1 (default 5)")
      ->check(real_option({0, 100}));
  cmd->add_flag("--keep-names", args->keep_names,
                "Keep long names in the result (default: stand-ins, when the result still varies "
                "with them; the README has the table)");
  cmd->add_option("--cvise", args->cvise,
                  "cvise program reducing C, C++ and CUDA C++ inputs (default: cvise in PATH; "
                  "none: the line pass)");
  cmd->add_option("--llvm-reduce", args->llvm_reduce,
                  "NVVM IR: reduce with this llvm-reduce (e.g. llvm-reduce-14) driven by kdet's "
                  "oracle instead of kdet's passes; its LLVM 14 text may not parse for "
                  "libNVVM's typed-pointer dialect (docs/REDUCE.md)");
  // Internal: the script kdet writes for cvise calls kdet back with these.
  cmd->add_option("--oracle-state", args->oracle_state)->group("");
  cmd->add_option("--oracle-candidate", args->oracle_candidate)->group("");
  cmd->callback([args, &action] { action = [args] { return do_reduce(*args); }; });
}

} // namespace kdet::cli
