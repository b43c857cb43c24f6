//===- engine/run_sizing.cpp - how many runs a default `kdet run` makes -------===//
#include "kdet/engine/run_sizing.hpp"

#include "kdet/stats/evidence.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kdet::engine {

void size_default_runs(RunPlan& plan, double seconds) {
  plan.runs = stats::runs_to_catch();
  plan.stop.seconds = seconds;
  plan.stop.min_runs = std::min(k_default_min_runs, plan.runs);
}

std::string default_runs_plan(const RunPlan& plan) {
  std::string s = fmt::format(
      "up to {} runs (enough to catch a 1-in-{} rate with {:.0f}% probability)", plan.runs,
      std::lround(1 / stats::k_rate_of_interest), 100 * stats::k_catch_probability);
  if (plan.stop.seconds > 0)
    s += fmt::format("; fewer, but at least {}, if they take over {}", plan.stop.min_runs,
                     human_seconds(plan.stop.seconds));
  return s;
}

} // namespace kdet::engine
