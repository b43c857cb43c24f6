#include "kdet/engine/verdict.hpp"

#include "kdet/util/error.hpp"

namespace kdet::engine {

const char* to_string(Verdict v) {
  switch (v) {
  case Verdict::deterministic:
    return "deterministic";
  case Verdict::nondeterministic:
    return "nondeterministic";
  case Verdict::failed:
    return "failed";
  case Verdict::no_runs:
    return "no-runs";
  case Verdict::none:
    return "none";
  case Verdict::explained:
    return "explained";
  case Verdict::inconclusive:
    return "inconclusive";
  }
  return "?";
}

Assessment assess(const RunOutput& out) {
  Assessment a;
  a.runs = out.completed;
  for (const auto& r : out.records)
    if (r.done && r.status == backend::Status::ok) ++a.ok_runs;
  if (a.runs == 0) {
    a.verdict = Verdict::no_runs;
    a.exit_code = out.interrupted ? k_exit_interrupted : k_exit_usage;
    return a;
  }
  a.differing = a.runs - (out.variants.empty() ? 0 : out.variants.front().count);
  a.rate = static_cast<double>(a.differing) / static_cast<double>(a.runs);
  a.interval = stats::clopper_pearson(a.differing, a.runs, a.confidence);
  a.upper_bound = stats::upper_bound(a.differing, a.runs, a.confidence);
  if (a.ok_runs == 0) {
    a.verdict = Verdict::failed;
    a.exit_code = k_exit_compiler_failed;
  } else if (out.variants.size() > 1) {
    // Different outcomes for the same input, including success vs failure.
    a.verdict = Verdict::nondeterministic;
    a.exit_code = k_exit_nondeterministic;
  } else {
    a.verdict = Verdict::deterministic;
    a.exit_code = k_exit_deterministic;
  }
  if (!out.compiler_changed.empty()) {
    // The runs may mix two compilers: what they gave is kept, but no verdict stands on it.
    a.verdict = Verdict::none;
    a.exit_code = k_exit_usage;
  }
  if (out.interrupted) a.exit_code = k_exit_interrupted;
  return a;
}

} // namespace kdet::engine
