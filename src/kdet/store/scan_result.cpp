//===- store/scan_result.cpp - verdicts and bounds of stored jobs --------------===//
#include "kdet/store/scan_result.hpp"

#include "kdet/stats/stats.hpp"

namespace kdet::store {

engine::Verdict JobRow::verdict() const {
  if (runs == 0) return engine::Verdict::no_runs;
  if (ok_runs == 0) return engine::Verdict::failed;
  return variants.size() > 1 ? engine::Verdict::nondeterministic : engine::Verdict::deterministic;
}

double JobRow::upper_bound() const {
  return stats::upper_bound(differing(), runs);
}

std::string JobRow::label() const {
  std::string s = input + " " + compiler;
  if (!target.empty()) s += " " + target;
  return s + " " + option_set;
}

} // namespace kdet::store
