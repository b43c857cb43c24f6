//===- engine/run_measure.hpp - `kdet run`'s measurement, start to verdict -===//
//
// One run session below the CLI: the default levels of the factors not named,
// the runs, kdet's own CPU cost, each variant's one-line difference, how far
// each difference reaches, and the assessment. The CLI parses options and
// prints; what the runs say and the exit code they give are decided here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/differences.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kdet::engine {

// What a run session needs besides its plan.
struct MeasureOptions {
  bool vary_unnamed = true;                 // --unnamed vary: vary_unset_factors first
  std::set<std::string> given;              // the factors the user named a level for
  std::vector<std::string> option_warnings; // the options' warnings, first in the result's
  std::optional<diff::ReachOptions> reach;  // set: each variant's reach is computed
  std::function<void()> on_runs_start;      // after the default levels' probes, before the runs
  ProgressFn progress;                      // the runs' progress (execute's)
};

// A run session's result: the runs (with every annotation) and what they say.
struct MeasuredRun {
  RunOutput out;
  Assessment assessment;
  VariantReaches reaches;
};

// kdet's own CPU cost of a session.
struct CpuCost {
  double total_seconds = 0;   // this process and every reaped worker
  double compile_seconds = 0; // the part spent in compiles: the probes' and every done run's
};

// The cost from `own_cpu_ns` (process plus children), the probes' compile seconds and the
// records (only done runs count: a run not reached measured nothing).
CpuCost cpu_cost(uint64_t own_cpu_ns, double probe_compile_seconds,
                 const std::vector<RunRecord>& records);

// Runs `plan` as `kdet run` does: default levels (options.vary_unnamed; they change `plan`),
// execute, the options' warnings before the runs' and the probes' findings after, the CPU
// cost, annotate_differences, reaches, assess. Throws Error as execute() does.
MeasuredRun measure_run(RunPlan& plan, const MeasureOptions& options);

// What `kdet run` ends with: its exit code, or an error to stop with (exit 2).
struct RunExit {
  int code = 0;
  std::string error; // non-empty: no verdict stands (kdet: error: ...)
};

// The exit of a run assessed `a`: an error when the compiler changed during the runs
// (`compiler_changed`, RunOutput's), else a's exit code, but 1 (nondeterministic) when a
// replayed capture's output never came back (`reproduced` false) though the runs agreed.
RunExit run_exit(const Assessment& a, bool reproduced, const std::string& compiler_changed);

} // namespace kdet::engine
