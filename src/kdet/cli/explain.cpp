//===- cli/explain.cpp - `kdet explain`: which factor causes the variance ----===//
#include "kdet/engine/explain.hpp"

#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/cli/run_options.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/report/explain_report.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <optional>

namespace kdet::cli {

namespace {

// Runs every cell together may make by default: about what the old 270 s budget allowed at a
// tenth of a second a run, counted now in runs so that load changes only when it ends.
constexpr uint64_t k_default_budget_runs = 3000;

struct ExplainArgs {
  CompileArgs compile;
  FactorArgs factors;
  std::string only;
  std::string skip;
  uint64_t runs = stats::runs_to_catch();
  uint64_t min_cell_runs = 5;
  uint64_t max_cell_runs = 150;
  double budget = 0;
  uint64_t budget_runs = k_default_budget_runs;
  int jobs = 1;
  OutputArgs output;
};

int do_explain(ExplainArgs args) {
  // A bundle folder of kdet capture brings its input, library and options, as for run.
  std::string shown = args.compile.input;
  std::optional<capture::ReplayPlan> replay = capture::bundle_replay_plan(args.compile.input);
  if (replay)
    capture::apply_replay(*replay, args.compile.input, args.compile.backend, args.compile.lib,
                          args.compile.options, args.compile.command, &args.compile.py,
                          &args.compile.python);
  // A file inside a packed bundle (DIR/bundles/ID/inputs/FILE): a copy made from the pack.
  else
    args.compile.input = capture::resolve_bundle_path(args.compile.input);
  engine::ExplainOptions opt;
  resolve_compile_args(args.compile, opt.base);
  if (replay) opt.base.parts = replay->parts; // every cell's plan is a copy of base
  resolve_factor_args(args.factors, opt.base);
  if (!args.only.empty()) opt.only = split(args.only, ',');
  if (!args.skip.empty()) opt.skip = split(args.skip, ',');
  if (args.runs < 2) throw Error("--runs: explain needs at least 2 runs to see variance");
  if (args.min_cell_runs < 2 || args.max_cell_runs < args.min_cell_runs)
    throw Error("--min-cell-runs must be >= 2 and <= --max-cell-runs");
  opt.baseline_runs = args.runs;
  opt.min_cell_runs = args.min_cell_runs;
  opt.max_cell_runs = args.max_cell_runs;
  if (args.budget < 0)
    throw Error::format("--budget {}: must be >= 0 (0 = no budget)", args.budget);
  opt.budget_seconds = args.budget;
  opt.budget_runs = args.budget_runs;
  opt.base.jobs = args.jobs;
  engine::install_interrupt_handler();
  Output output(args.output);
  ProgressLine line(output.progress());
  uint64_t cell_runs = 0;
  size_t cells = 0;
  // The number of cells depends on what the earlier ones show, so there is no ETA.
  auto on_cell = [&](const engine::Cell& c) {
    cell_runs += c.runs;
    ++cells;
    line.show(fmt::format("[cell {}] {}: {}, {}; {}", cells, c.name, plural(c.runs, "run"),
                          engine::to_string(c.result),
                          progress_tail(cell_runs, line.elapsed(), std::nan(""))));
  };
  engine::ExplainResult r = engine::explain(opt, on_cell);
  line.clear();
  output.write_json(report::explain_to_json(opt, r, replay ? &*replay : nullptr));
  std::string text = report::explain_to_text(opt, r, output.color(), shown);
  if (replay) text += fmt::format("bundle      {} replayed with {}\n", replay->id, replay->lib);
  output.print_text(text);
  return r.exit_code;
}

} // namespace

void add_explain(CLI::App& root, Action& action) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = root.add_subcommand(
      "explain", "Find which factor (heap, ASLR, threads, pid, paths, time, ...) makes "
                 "a compile nondeterministic");
  cmd->footer(
      "It times two plain compiles, probes the fixed and varied levels with short runs (killed "
      "after\n"
      "10x the median compile time, at least 2 s) so a level that hangs or breaks the compiler is "
      "left\n"
      "at its natural level with a finding, confirms variance with every factor varied "
      "(process=both:\n"
      "fresh workers and one shared worker, so factors acting across processes and inside one "
      "process\n"
      "both vary), then runs cells: everything fixed, each factor varied alone, the sufficient "
      "factors\n"
      "fixed together (and each alone), and pairs where single factors do not explain it. Each "
      "cell\n"
      "runs enough times to catch half the baseline rate (bounded by --min/--max-cell-runs) and "
      "stops\n"
      "at its second outcome. The conclusion rules are in docs/EXPLAIN.md.\n"
      "Exit: 0 deterministic, 1 variance found (explained or not), 3 the compiler always failed.\n"
      "Example: kdet explain kernel.ll -- -arch=compute_90a -opt=3\n"
      "         kdet explain cap/bundles/ID   (a kdet capture bundle: its library, input and\n"
      "                                       options, as kdet run replays it)");
  add_compile_options(cmd, args->compile);
  cmd->add_option("--env", args->factors.env, "Set K=V in the compiler's environment (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--env-vary", args->factors.env_vary,
                  "NAME=V1,V2,...: also test this variable as a factor")
      ->allow_extra_args(false);
  cmd->add_option("--seed", args->factors.seed, "Master seed (default: random, printed)");
  cmd->add_option(
      "--factors", args->only, "Only these factors (comma-separated): " + [] {
        std::string names;
        for (const auto& f : perturb::factor_registry())
          if (f.name != "env-vary") names += f.name + ", ";
        return names + "env:NAME";
      }());
  cmd->add_option("--skip", args->skip, "Leave these factors out (comma-separated)");
  cmd->add_option("--runs,-n", args->runs,
                  "Runs with every factor varied, to confirm and measure the variance (default "
                  "72: enough to catch a 1-in-16 rate with 99% probability; the first 15 suffice "
                  "when half of them or more differ)")
      ->check(whole_option({2, 1000000}));
  cmd->add_option("--min-cell-runs", args->min_cell_runs, "Fewest runs per cell (default 5)")
      ->check(whole_option({2, 1000000}));
  cmd->add_option("--max-cell-runs", args->max_cell_runs, "Most runs per cell (default 150)")
      ->check(whole_option({2, 1000000}));
  cmd->add_option("--budget-runs", args->budget_runs,
                  "Runs the whole experiment may make (default 3000; 0 = no limit): cells after "
                  "the baseline get fewer runs, and weaker bounds, to fit, and the conclusion "
                  "names what was left untried; a loaded machine gives the same conclusion")
      ->check(whole_option({0, 100000000}));
  cmd->add_option(
         "--budget", args->budget,
         "Also a time budget: seconds the experiment should take, estimated from run times "
         "(default 0 = none; unlike --budget-runs it depends on the machine's load)")
      ->check(real_option({0, 1e7}));
  cmd->add_option("--jobs,-j", args->jobs, "Parallel workers per cell (default 1)")
      ->check(whole_option(k_jobs_range));
  add_json_option(cmd, args->output, "the result", "kdet.explain/1");
  add_color_option(cmd, args->output);
  cmd->callback([args, &action] { action = [args] { return do_explain(*args); }; });
}

} // namespace kdet::cli
