//===- scan/result.cpp - verdicts and bounds of stored jobs -------------------===//
#include "kdet/scan/result.hpp"

#include "kdet/stats/stats.hpp"

namespace kdet::scan {

std::string JobRow::verdict() const {
  if (runs == 0) return "no-runs";
  if (ok_runs == 0) return "failed";
  return variants.size() > 1 ? "nondeterministic" : "deterministic";
}

double JobRow::upper_bound() const {
  return stats::upper_bound(differing(), runs);
}

std::string JobRow::label() const {
  std::string s = input + " " + compiler;
  if (!target.empty()) s += " " + target;
  return s + " " + option_set;
}

} // namespace kdet::scan
