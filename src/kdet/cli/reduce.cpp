//===- cli/reduce.cpp - `kdet reduce`: the smallest input that still varies ---===//
//
// Parses and checks the options, then has reduce/ reduce INPUT (reduce/session:
// the best text to SMALL after every accepted step) and write the reproducer
// folder SMALL.repro/ (reduce/repro), and prints the progress and summary.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/run_options.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_defaults.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/reduce/repro.hpp"
#include "kdet/reduce/session.hpp"
#include "kdet/report/run_report.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

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

// The `kdet run` command that reproduces the setting on `input`.
std::string run_command(const ReduceArgs& a, const std::string& input, uint64_t runs) {
  std::vector<std::string> argv = {"kdet", "run", input};
  if (!a.compile.backend.empty()) argv.insert(argv.end(), {"--backend", a.compile.backend});
  if (!a.compile.lib.empty()) argv.insert(argv.end(), {"--lib", a.compile.lib});
  if (!a.compile.command.empty()) argv.insert(argv.end(), {"--cmd", a.compile.command});
  if (!a.compile.output_ext.empty())
    argv.insert(argv.end(), {"--output-ext", a.compile.output_ext});
  if (!a.compile.py.empty()) argv.insert(argv.end(), {"--py", a.compile.py});
  if (!a.compile.python.empty()) argv.insert(argv.end(), {"--python", a.compile.python});
  for (const auto& [name, value] : a.factors.values)
    if (!value.empty()) argv.insert(argv.end(), {"--" + name, value});
  for (const auto& e : a.factors.env)
    argv.insert(argv.end(), {"--env", e});
  if (a.unnamed != "vary") argv.insert(argv.end(), {"--unnamed", a.unnamed});
  argv.insert(argv.end(), {"--runs", std::to_string(runs)});
  if (!a.compile.options.empty()) {
    argv.emplace_back("--");
    argv.insert(argv.end(), a.compile.options.begin(), a.compile.options.end());
  }
  return shell_join(argv);
}

// Checks -o (SMALL) and the oracle's options against `plan`'s input (exit 2 naming them).
void check_out_options(const ReduceArgs& args, const engine::RunPlan& plan) {
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
  reduce::check_repro_dir(args.out + ".repro");
}

// The summary on stdout (also under --quiet when the result is not small enough) and the
// exit code: 1 when the result is less than --min-reduction smaller.
int print_summary(const ReduceArgs& args, const reduce::ReduceResult& r,
                  const reduce::ReproResult& final) {
  double smaller = reduce::percent_smaller(r.original_bytes, r.text.size());
  bool enough = smaller >= args.min_reduction;
  if (!args.quiet || !enough || !final.varied()) {
    fmt::print("reduced   {} -> {} bytes ({:.1f} % smaller), {} tests, {} compiles, {:.1f} s{}{}\n"
               "wrote     {} and {}.repro/ (README.md: the kdet run command, rate, diff)\n",
               r.original_bytes, r.text.size(), smaller, r.tests, r.compiles, r.seconds,
               std::string(r.engine) == "passes" ? "" : ", " + std::string(r.engine),
               r.timed_out ? " (stopped at --timeout-total)" : "", args.out, args.out);
    fmt::print("final     {} runs: {} differing, rate {:.1f} %, {} distinct outcomes\n",
               final.measure.runs, final.measure.differing, 100 * final.measure.rate(),
               final.outcomes);
  }
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
  if (!final.varied()) {
    // The reduction's own runs saw it vary; the final ones did not: no reproducer to report.
    fmt::print(stderr,
               "kdet: reduce: {} did not vary in its {} final runs (it varied at {:.1f} % in its "
               "last measurement while reducing): {}.repro/README.md says so; run its command "
               "with more runs before reporting it\n",
               args.out, final.measure.runs, 100 * r.last.rate(), args.out);
    return k_exit_not_reduced;
  }
  return 0;
}

int do_reduce(ReduceArgs args) {
  // A bundle folder of kdet capture brings its input, library or command and options, as for
  // run (bundles of one input: the README's kdet run command names that input alone).
  std::optional<capture::ReplayPlan> replay = capture::bundle_replay_plan(args.compile.input);
  if (replay) {
    capture::require_single_input(*replay, "kdet reduce");
    capture::apply_replay(*replay, args.compile.input, args.compile.backend, args.compile.lib,
                          args.compile.options, args.compile.command, &args.compile.py,
                          &args.compile.python);
  } else {
    // A file inside a packed bundle (DIR/bundles/ID/inputs/FILE): a copy made from the pack.
    args.compile.input = capture::resolve_bundle_path(args.compile.input);
  }
  engine::RunPlan plan;
  resolve_compile_args(args.compile, plan);
  resolve_factor_args(args.factors, plan);
  check_out_options(args, plan);
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
  if (oracle_mode)
    return reduce::judge_candidate(plan, args.oracle_state, args.oracle_candidate,
                                   args.any_variance, args.out);
  reduce::SessionOptions so;
  reduce::ReduceOptions& o = so.reduce;
  o.plan = plan;
  o.jobs = args.jobs;
  o.any_variance = args.any_variance;
  o.initial_runs = args.runs;
  o.timeout_total = args.timeout_total;
  o.rename = !args.keep_names;
  if (args.verbose)
    o.log = [](const std::string& line) { fmt::print(stderr, "reduce: {}\n", line); };
  so.out = args.out;
  so.input_display = args.compile.input;
  so.cvise = args.cvise;
  so.llvm_reduce = args.llvm_reduce;
  bool tty = !args.quiet && isatty(2) != 0;
  size_t shown = 0;
  // On a terminal one line redrawn; elsewhere (a log) a line per size reached.
  auto progress = [tty, quiet = args.quiet, &shown](const reduce::Progress& p) {
    if (quiet || (!tty && p.bytes == shown)) return;
    shown = p.bytes;
    fmt::print(stderr, "{}{} -> {} bytes ({:.1f} % smaller), rate {:.0f} %, {} tests, {:.0f} s{}{}",
               tty ? "\r\033[K" : "reduce: ", p.original_bytes, p.bytes,
               reduce::percent_smaller(p.original_bytes, p.bytes), 100 * p.rate, p.tests, p.elapsed,
               p.pass && *p.pass ? ", " + std::string(p.pass) : std::string(), tty ? "" : "\n");
  };
  auto warn = [](const std::string& w) { fmt::print(stderr, "kdet: warning: {}\n", w); };
  reduce::ReduceResult r = reduce::reduce_to_file(so, warn, progress);
  if (tty) fmt::print(stderr, "\n");
  if (!r.warning.empty()) warn(r.warning);
  if (r.interrupted) {
    fmt::print(stderr, "kdet: interrupted; {} keeps the best so far ({} bytes)\n", args.out,
               r.text.size());
    return k_exit_interrupted;
  }
  reduce::ReproOptions ro;
  ro.out = args.out;
  // As many final runs as the reduced input's rate needs to show a second outcome.
  ro.final_runs = reduce::final_runs_for(r.last.rate(), args.final_runs);
  ro.jobs = args.jobs;
  ro.run_command = run_command(args, args.out.substr(args.out.rfind('/') + 1), ro.final_runs);
  ro.render.result = [](const engine::RunOutput& out, const engine::Assessment& a,
                        const std::string& input_hash) {
    return report::run_to_json(out, a, input_hash, true);
  };
  ro.render.record = report::record_to_json;
  const reduce::ReproResult final = reduce::write_repro(ro, plan, r);
  return print_summary(args, r, final);
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
      "  kdet reduce k.ll --py stage.py:compile -o small.ll   (a Python stage is the oracle's)\n"
      "  kdet reduce capture/bundles/ID -o small.ll     (a capture bundle brings its setting)\n"
      "Writes SMALL after every accepted step (an interrupt keeps it; exit 130) and, at the end,\n"
      "SMALL.repro/ (README.md with the kdet run command and the rate, run/, diff.txt).\n"
      "Exit 0 reduced; 1 when the result is less than --min-reduction (default 5 %) smaller (the\n"
      "summary names the passes tried and why candidates were rejected), or did not vary in its\n"
      "final runs; 2 when the input does not compile or does not vary under the setting; 130\n"
      "interrupted.\n"
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
                  "Runs measuring the result for the reproducer (default 64; up to 8 times more "
                  "where the result's rate is low)")
      ->check(whole_option(k_runs_range));
  cmd->add_flag("--any-variance", args->any_variance,
                "Accept a candidate whose variance changed kind (e.g. crashes where outputs "
                "differed)");
  cmd->add_option("--unnamed", args->unnamed,
                  "The factors no option names: vary (default, as kdet run) or natural")
      ->check(CLI::IsMember({"vary", "natural"}));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress line or summary");
  cmd->add_flag("--verbose,-v", args->verbose,
                "A line per candidate on stderr: its size, pass, outcome (accepted; invalid: "
                "the compiler refused it; failed: it crashed or hung; stopped varying; changed "
                "kind) and the runs that judged it");
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
