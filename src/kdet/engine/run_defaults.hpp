//===- engine/run_defaults.hpp - what `kdet run` varies when not told ---------===//
//
// A run whose user named no level for a factor varies that factor, in the
// regime where it acts, exactly as explain's "all varied" cell does: a
// compiler that follows its load address, its heap history, the clock, its
// paths or any other factor kdet controls cannot pass `kdet run`'s defaults.
// A varied level that breaks the compiler (libfaketime hangs nvcc 13.0) is
// found by two one-run probes with a short timeout and left at its natural
// level, with a finding, instead of costing --timeout per run.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/explain.hpp"
#include "kdet/engine/runner.hpp"

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace kdet::engine {

struct DefaultLevels {
  std::vector<std::string> varied;   // "time=vary": the factors this set to their varied level
  std::vector<std::string> findings; // levels left natural because they break the compiler
  uint64_t probe_runs = 0;           // compiles spent on probes (not part of the result)
  double worker_start_seconds = 0;   // the first probe's worker start + compiler load
  double compile_cpu_seconds = 0;    // CPU time of the probes' compiles
  // Wall time of one run at the levels chosen (the varied probe's when it ran like the plain
  // compile, else the plain compile's), as a slot sees it; 0 when neither ran. Sizes estimates.
  double run_seconds = 0;
  // Nonzero when levels the caller named break the compiler (a hang where a compile with every
  // factor natural took t): each run's time limit (probe_timeout(t)); the runs end after two
  // failures with no success (RunPlan::stop.after_failures).
  std::chrono::milliseconds run_limit{0};
};

// The probe timeout: `factor` times a plain compile's time, at least `floor`,
// and never past the plan's own --timeout (when it has one).
std::chrono::milliseconds probe_timeout(double plain_seconds,
                                        std::chrono::milliseconds plan_timeout, double factor = 10,
                                        std::chrono::milliseconds floor = std::chrono::seconds(2));

// Sets every factor that applies to the plan's backend and is not in `given`
// to its varied level (explain's design, engine::explain_factors), then probes:
// one plain compile (those factors natural) to time it, one compile with them
// varied; if only the varied one fails, each factor alone, and a factor whose
// level fails is left natural. Throws Error as execute() does (a compiler that
// cannot be loaded).
DefaultLevels vary_unset_factors(RunPlan& plan, const std::set<std::string>& given);

// What runs one probe: engine::execute in kdet, a script in the unit tests.
using ProbeRunner = std::function<RunOutput(const RunPlan&)>;

// Levels named at other than their natural level (`named`, set in `with_named`): a compile with
// every factor natural (--timeout), then one with them (a probe's limit). True when they give
// another outcome, a kdet error aside: then `plan` keeps `with_named` with RunPlan::timeout
// and stop.after_failures set as DefaultLevels::run_limit says, and `d` has the finding.
bool named_levels_break(RunPlan& plan, const perturb::Setting& with_named,
                        const std::vector<Factor>& named, const ProbeRunner& run, RunOutput& out,
                        DefaultLevels& d);
// The same decisions over the given factors, each probe run by `run`.
DefaultLevels vary_unset_factors_with(RunPlan& plan, const std::set<std::string>& given,
                                      std::vector<Factor> factors, const ProbeRunner& run);

} // namespace kdet::engine
