//===- cli/run.cpp - `kdet run`: recompile one input N times ------------------===//
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/cli/run_options.hpp"
#include "kdet/engine/differences.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_measure.hpp"
#include "kdet/engine/run_sizing.hpp"
#include "kdet/report/run_report.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/store/run_dir.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>

namespace kdet::cli {

namespace {

struct RunArgs {
  CompileArgs compile;
  FactorArgs factors;
  uint64_t runs = 0;
  double max_rate = 0;
  int jobs = 1;
  std::string out_dir;
  OutputArgs output;
  bool stop_on_variant = false;
  bool no_prestart = false;
  bool no_reach = false;
  std::string unnamed = "vary";
  double time_budget = -1; // -1: not given (engine::k_default_run_seconds)
};

// The plan of `args` (a replayed bundle's inputs in `replay`), each option checked (exit 2
// naming it); `given` gets the factors the user named a level for.
engine::RunPlan resolve_run_plan(RunArgs& args, const std::optional<capture::ReplayPlan>& replay,
                                 std::set<std::string>& given) {
  engine::RunPlan plan;
  resolve_compile_args(args.compile, plan);
  if (replay) plan.parts = replay->parts;
  resolve_factor_args(args.factors, plan);
  for (const auto& [name, value] : args.factors.values)
    if (!value.empty()) given.insert(name);

  if (args.runs > 0 && args.max_rate > 0)
    throw Error("--runs and --max-rate both choose the number of runs; give one of them");
  if (args.max_rate < 0 || args.max_rate >= 1)
    throw Error::format("--max-rate {}: must be a fraction between 0 and 1, e.g. 0.01 for 1%",
                        args.max_rate);
  if (args.time_budget >= 0 && (args.runs > 0 || args.max_rate > 0))
    throw Error("--time-budget sizes the runs when neither --runs nor --max-rate fixes them; "
                "give one of them");
  if (args.max_rate > 0)
    plan.runs = stats::runs_to_bound(args.max_rate);
  else if (args.runs > 0)
    plan.runs = args.runs;
  else
    engine::size_default_runs(plan, args.time_budget >= 0 ? args.time_budget
                                                          : engine::k_default_run_seconds);
  if (args.jobs < 1 || args.jobs > 1024)
    throw Error::format("--jobs {}: must be between 1 and 1024", args.jobs);
  plan.jobs = args.jobs;
  if (args.stop_on_variant) plan.stop.outcomes = 2;
  plan.workers.prestart = !args.no_prestart;
  return plan;
}

int do_run(RunArgs args) {
  // Before the probes and runs, not after them (the result would be lost).
  check_output_path(args.output.json_path, "--json");
  // A bundle folder of kdet capture brings its input, library and options (docs/CAPTURE.md).
  std::optional<capture::ReplayPlan> replay = capture::bundle_replay_plan(args.compile.input);
  if (replay)
    capture::apply_replay(*replay, args.compile.input, args.compile.backend, args.compile.lib,
                          args.compile.options, args.compile.command, &args.compile.py,
                          &args.compile.python);
  // A file inside a packed bundle (DIR/bundles/ID/inputs/FILE): a copy made from the pack.
  else
    args.compile.input = capture::resolve_bundle_path(args.compile.input);
  std::set<std::string> given;
  engine::RunPlan plan = resolve_run_plan(args, replay, given);
  if (!args.out_dir.empty()) {
    store::prepare_run_dir(args.out_dir);
    // Each run is appended as it ends, so the runs done survive a SIGKILL.
    plan.on_record =
        store::run_log_appender(args.out_dir, report::record_to_json, [](const std::string& w) {
          fmt::print(stderr, "kdet: warning: {}\n", terminal_text(w));
        });
  }
  std::string input_hash = hash_bytes(read_file(plan.input_path));
  // Before the runs: a $KDET_PTXAS that is no program is bad input, not a lost result.
  std::optional<diff::ReachOptions> reach_options;
  if (!args.no_reach) reach_options = engine::reach_options(plan.options, plan.backend.command);

  engine::install_interrupt_handler();
  Output output(args.output);
  // Said before the probes and runs, as scan says its plan: a default run is sized by time too.
  if (args.runs == 0 && args.max_rate == 0 && !output.quiet())
    fmt::print(stderr, "kdet run: {} (--runs N: exactly N)\n", engine::default_runs_plan(plan));
  engine::MeasureOptions mo;
  mo.vary_unnamed = args.unnamed == "vary";
  mo.given = std::move(given);
  mo.option_warnings = args.factors.warnings;
  mo.reach = reach_options;
  // The line's clock starts with the runs, after the default levels' probes (its ETA).
  std::optional<ProgressLine> line;
  mo.on_runs_start = [&line, &output] { line.emplace(output.progress()); };
  if (output.progress() != ProgressMode::off) {
    mo.progress = [&line](uint64_t done, uint64_t total, size_t variants) {
      double el = line->elapsed();
      double left = done ? el / static_cast<double>(done) * static_cast<double>(total - done) : -1;
      line->show(fmt::format("[{}/{} runs] {}, {}", done, total, plural(variants, "outcome"),
                             progress_tail(done, el, left, false)));
    };
  }
  engine::MeasuredRun m = engine::measure_run(plan, mo);
  if (line) line->clear();
  const engine::RunOutput& out = m.out;

  bool reproduced = true;
  std::optional<nlohmann::json> replayed;
  if (replay) replayed = capture::replay_json(*replay, out, reproduced);
  nlohmann::json result = report::run_to_json(out, m.assessment, input_hash, true, &m.reaches,
                                              replayed ? &*replayed : nullptr);
  if (!args.out_dir.empty())
    store::write_run_dir(args.out_dir, out, result, report::record_to_json);
  output.write_json(result);
  if (!output.quiet()) {
    std::string text =
        report::run_to_text(out, m.assessment, output.color(), args.compile.input, &m.reaches);
    if (replayed) text += capture::replay_text(*replayed);
    if (!args.out_dir.empty()) text += fmt::format("saved     {}\n", args.out_dir);
    output.print_text(text);
  }
  engine::RunExit exit = engine::run_exit(m.assessment, reproduced, out.compiler_changed);
  if (!exit.error.empty()) throw Error(exit.error, exit.code);
  return exit.code;
}

} // namespace

void add_run(CLI::App& root, Action& action) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd =
      root.add_subcommand("run", "Recompile one input N times under controlled perturbation; "
                                 "report variants, rate and bound");
  cmd->footer(
      "Examples:\n"
      "  kdet run kernel.ll -- -arch=compute_90a -opt=3\n"
      "  kdet run kernel.ll --process fresh --aslr off --heap none -- -arch=compute_90a\n"
      "  kdet run kernel.cu --max-rate 0.01 --jobs 2 -- -arch=sm_90\n"
      "  kdet run kernel.ptx --backend exec --cmd 'ptxas -arch=sm_90a {input} -o {output}'\n"
      "  kdet run kernel.mlir --py stage.py:compile --process same -n 360   (a Python-hosted\n"
      "                            stage, called in one interpreter per worker; docs/PYTHON.md)\n"
      "  kdet run cap/bundles/ID   (a kdet capture bundle: its library, input and options; says\n"
      "                            whether the captured output came back)\n"
      "Defaults: every factor not named on the command line is varied, in the regime where it\n"
      "acts, as explain's \"all varied\" cell does: library backends run --process both (odd runs\n"
      "in a fresh worker each: ASLR, pid; even runs in one shared worker: heap history), with the\n"
      "chaos allocator, 4 allocating threads, and a new path, cwd, TMPDIR, clock, locale, umask "
      "and\n"
      "thread-count variables per run. A varied level that breaks the compiler (a hang under\n"
      "libfaketime) is found by short probes and left natural, with a warning. Name a level to "
      "hold\n"
      "a factor: --process same is the reporter's repro loop.");
  add_compile_options(cmd, args->compile);
  add_factor_options(cmd, args->factors);
  cmd->add_option("--runs,-n", args->runs,
                  "Exactly this many compiles (default: sized by evidence, up to 72: enough to "
                  "catch a 1-in-16 rate with 99% probability; at least 32 when they are slow)")
      ->check(whole_option(k_runs_range));
  cmd->add_option("--time-budget", args->time_budget,
                  "Without --runs: seconds after which no new run starts, once 32 are done "
                  "(default 120; 0 = none)")
      ->check(real_option({0, 1e7}));
  cmd->add_option(
         "--max-rate", args->max_rate,
         "Pick the number of runs that bounds the per-run variance rate below this fraction at 95% "
         "confidence when no run differs (0.01 -> 299 runs)")
      ->check(real_option({1e-6, 0.5}));
  cmd->add_option("--jobs,-j", args->jobs, "Parallel workers (default 1)")
      ->check(whole_option(k_jobs_range));
  cmd->add_option("--out,-o", args->out_dir,
                  "Keep one file per variant and the record of every run in DIR");
  add_json_option(cmd, args->output, "the result", "kdet.run/1");
  add_color_option(cmd, args->output);
  cmd->add_option(
         "--unnamed", args->unnamed,
         "The factors no option names: vary (default: in the regime where each acts, as "
         "explain's \"all varied\" cell) or natural (as the backend's plain defaults leave them)")
      ->check(CLI::IsMember({"vary", "natural"}));
  cmd->add_flag("--stop-on-variant", args->stop_on_variant,
                "Stop at the first run whose outcome differs (the first sign of nondeterminism)");
  cmd->add_flag(
      "--no-prestart", args->no_prestart,
      "Start each fresh-process worker at its run's turn (default: while the previous "
      "compile runs, with no more slots than cores; the same launch, so the same verdicts)");
  cmd->add_flag("--no-reach", args->no_reach,
                "Do not assemble the variants' PTX with ptxas to say how far each difference "
                "reaches (default: when 2+ successful variants have PTX or cubin; docs/IMPACT.md)");
  add_quiet_option(cmd, args->output,
                   "No summary or progress; the exit code (and --json/--out) only");
  cmd->callback([args, &action] { action = [args] { return do_run(*args); }; });
}

} // namespace kdet::cli
