#include "kdet/engine/verdict.hpp"

#include "kdet/util/error.hpp"

#include <algorithm>

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

bool is_kdet_error(backend::Status status) {
  return status == backend::Status::infra_error;
}

size_t count_outcomes(const std::vector<Variant>& variants) {
  return static_cast<size_t>(std::count_if(
      variants.begin(), variants.end(), [](const Variant& v) { return !is_kdet_error(v.status); }));
}

const Variant* modal_outcome(const std::vector<Variant>& variants) {
  auto it = std::find_if(variants.begin(), variants.end(),
                         [](const Variant& v) { return !is_kdet_error(v.status); });
  return it == variants.end() ? nullptr : &*it;
}

Assessment assess(const RunOutput& out) {
  Assessment a;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    if (r.status == backend::Status::ok) ++a.ok_runs;
    if (is_kdet_error(r.status)) ++a.kdet_errors;
  }
  if (out.completed == 0) {
    a.verdict = Verdict::no_runs;
    a.exit_code = out.interrupted ? k_exit_interrupted : k_exit_usage;
    return a;
  }
  a.runs = out.completed - std::min(a.kdet_errors, out.completed);
  a.outcomes = count_outcomes(out.variants);
  const Variant* modal = modal_outcome(out.variants);
  a.differing = a.runs - std::min(modal ? modal->count : 0, a.runs);
  a.rate = a.runs ? static_cast<double>(a.differing) / static_cast<double>(a.runs) : 0;
  a.interval = stats::clopper_pearson(a.differing, a.runs, a.confidence);
  a.upper_bound = stats::upper_bound(a.differing, a.runs, a.confidence);
  if (a.ok_runs == 0) {
    a.verdict = Verdict::failed; // the compiler's failures, or kdet's own errors in every run
    a.exit_code = k_exit_compiler_failed;
  } else if (a.outcomes > 1) {
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
