//===- engine/verdict.hpp - what a set of runs says ---------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/stats/stats.hpp"

#include <string>

namespace kdet::engine {

// The one verdict vocabulary of kdet run, kdet explain (its cells and its conclusion), kdet scan
// (its jobs) and their reports. Each command draws only some of them:
//   run, explain's cells, scan jobs (assess(), store::JobRow::verdict()): deterministic (one
//     outcome), nondeterministic (more than one, success against a failure too), failed (no
//     run succeeded), no_runs (none completed), none (run only: no verdict is drawn, as the
//     compiler file changed while the runs went on, so they may mix two compilers);
//   explain's conclusion (ExplainResult::verdict): deterministic (the compile did not vary),
//     explained (the factors that make it vary were found), inconclusive (they were not),
//     failed (it could not be measured).
enum class Verdict {
  deterministic,
  nondeterministic,
  failed,
  no_runs,
  none,
  explained,
  inconclusive,
};

// Its one spelling, in every JSON document and report: "deterministic", "nondeterministic",
// "failed", "no-runs", "none", "explained", "inconclusive".
const char* to_string(Verdict v);

// A run that ended in an error of kdet's own (infra-error: a worker that could not start, a garbled
// reply, a run's file kdet could not place or keep) is no outcome of the compiler. Such runs are
// kept and shown with their variant, but no verdict counts them: a deterministic compiler whose
// runs sometimes meet a full disk or a refused fork is not nondeterministic.
bool is_kdet_error(backend::Status status);

// The distinct outcomes of the compiler among `variants` (those that are no error of kdet's own).
size_t count_outcomes(const std::vector<Variant>& variants);
// The most common of them (variants come most common first); null when there is none.
const Variant* modal_outcome(const std::vector<Variant>& variants);

// The verdict with its numbers. "Differing" runs are those whose outcome is not the most common
// one; the rate and its bounds are over the counted runs (completed, less kdet's own errors).
struct Assessment {
  Verdict verdict = Verdict::no_runs;
  uint64_t runs = 0;        // counted: completed runs that ended in an outcome of the compiler
  uint64_t kdet_errors = 0; // completed runs that ended in kdet's own error (not counted)
  uint64_t outcomes = 0;    // distinct outcomes of the counted runs
  uint64_t ok_runs = 0;     // runs where the compiler succeeded
  uint64_t differing = 0;   // runs not giving the most common outcome
  double rate = 0;          // differing / runs
  stats::Interval interval; // two-sided 95% Clopper-Pearson
  double upper_bound = 1;   // one-sided 95% upper bound
  double confidence = 0.95;
  int exit_code = 0;
};

Assessment assess(const RunOutput& out);

} // namespace kdet::engine
