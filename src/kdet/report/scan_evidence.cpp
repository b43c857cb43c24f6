//===- report/scan_evidence.cpp - what a scan's jobs and pairs stand on -------===//
//
// The evidence lines of scan and compare reports: a pair's runs on each side, what --stress
// showed, and what the jobs with one output would have shown (stats::no_variance_seen, the
// phrasing every command shares).
//
//===----------------------------------------------------------------------===//
#include "kdet/report/scan_report.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::report {

std::string quiet_jobs_line(const store::ScanResult& r) {
  size_t quiet = 0;
  uint64_t fewest = UINT64_MAX;
  for (const auto& j : r.jobs)
    if (j.verdict() == engine::Verdict::deterministic) {
      ++quiet;
      fewest = std::min(fewest, j.runs - std::min(j.runs, j.kdet_errors()));
    }
  if (!quiet) return "";
  return fmt::format("  one output:    {}; {}{}\n", plural(quiet, "job"),
                     stats::no_variance_seen(fewest, "run"),
                     quiet > 1 ? " (the job with the fewest runs)" : "");
}

std::string pair_evidence(const scan::Pairing& pr, double margin) {
  if (!pr.a || !pr.b || !pr.a->varies() || pr.b->runs == 0) return "";
  std::string s = fmt::format("A: {} of {} runs differ ({})", pr.a->differing(), pr.a->runs,
                              percent(scan::observed_rate(*pr.a)));
  if (pr.b->verdict() == engine::Verdict::deterministic)
    s += fmt::format("; B: one output in {}, rate < {} at 95%", plural(pr.b->runs, "run"),
                     percent(pr.b->upper_bound()));
  if (pr.b_is_a_variant > 0)
    s += fmt::format("; B emits A's variant {} ({})", pr.b_is_a_variant,
                     pr.b->modal().substr(0, 12));
  else if (pr.b_is_a_variant == 0)
    s += "; B emits code A never gave";
  if (pr.settle_runs) s += fmt::format(" ({} of them added by --settle)", pr.settle_runs);
  if (pr.unfixable == "input")
    s += ": the input changed between A's scan and B's, so B's one output is no fix";
  else if (pr.unfixable == "setting")
    s += ": A and B ran under different settings, so B's one output is no fix";
  else if (pr.label == scan::Label::not_seen)
    s +=
        fmt::format(": not {:g}x below A's rate; give B more runs before calling it fixed", margin);
  return s;
}

std::string stress_evidence(const scan::Pairing& pr) {
  switch (pr.stress) {
  case scan::Pairing::Stress::not_run:
    return "";
  case scan::Pairing::Stress::fixed:
    return fmt::format("fixed under stress: one output in {} over every regime{}, rate < {} "
                       "at 95%",
                       plural(pr.stress_runs, "run"),
                       pr.stress_skipped.empty() ? ""
                                                 : fmt::format(" left to run here (left out: {})",
                                                               fmt::join(pr.stress_skipped, "; ")),
                       percent(pr.stress_bound));
  case scan::Pairing::Stress::hidden:
    // The regime stops at its first other output: a count, not a rate.
    return fmt::format("hidden: varies under stress ({}: another output after {})",
                       pr.stress_regime, plural(pr.stress_regime_runs, "run"));
  case scan::Pairing::Stress::inconclusive:
    return fmt::format("inconclusive under stress after {} ({})", plural(pr.stress_runs, "run"),
                       pr.stress_regime);
  }
  return "";
}

} // namespace kdet::report
