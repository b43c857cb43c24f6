//===- engine/run_sizing.hpp - how many runs a default `kdet run` makes -------===//
//
// Without -n, the runs are sized by the evidence they must give, as hyperfine
// sizes its runs by time: enough to catch a 1-in-16 rate with 99 % probability
// (stats::runs_to_catch(), 72 runs), unless they take longer than a time budget,
// and then no fewer than a floor. -n N is exactly N runs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <cstdint>
#include <string>

namespace kdet::engine {

// The runs a default run makes at least, however slow they are (kdet's default before runs
// were sized by evidence).
constexpr uint64_t k_default_min_runs = 32;
// Seconds after which a default run stops handing out runs, once it has k_default_min_runs.
constexpr double k_default_run_seconds = 120;

// Sizes `plan` as a default run: stats::runs_to_catch() runs, stopping after `seconds` (0: no
// time budget) once k_default_min_runs are done.
void size_default_runs(RunPlan& plan, double seconds = k_default_run_seconds);

// The plan said before the runs: "up to 72 runs (enough to catch a 1-in-16 rate with 99%
// probability); fewer, but at least 32, if they take over 120 s".
std::string default_runs_plan(const RunPlan& plan);

} // namespace kdet::engine
