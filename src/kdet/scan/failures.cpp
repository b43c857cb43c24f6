//===- scan/failures.cpp - a scan's failed jobs, grouped by how they failed ----===//
#include "kdet/scan/failures.hpp"

#include "kdet/engine/compiler_log.hpp"
#include "kdet/scan/status.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace kdet::scan {

std::vector<FailureGroup> group_failures(const store::ScanResult& r) {
  const double rate = expected_rate(r);
  std::vector<FailureGroup> groups;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> index;
  for (const auto& j : r.jobs) {
    if (job_status(j, rate) != JobStatus::failed || j.variants.empty()) continue;
    // Variants are most common first: the job's usual way of failing.
    const store::VariantRow& v = j.variants.front();
    FailureGroup key{j.compiler,
                     v.status,
                     v.detail,
                     engine::generic_failure(engine::first_error_line(v.log)),
                     {}};
    auto [it, added] = index.try_emplace(
        std::make_tuple(key.compiler, key.status, key.detail, key.message), groups.size());
    if (added) groups.push_back(std::move(key));
    groups[it->second].jobs.push_back(&j);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.jobs.size() > b.jobs.size();
  });
  return groups;
}

std::string describe(const FailureGroup& g) {
  std::string s = g.status;
  if (!g.detail.empty()) s += ": " + g.detail;
  if (!g.message.empty() && g.message != g.detail) s += ": " + g.message;
  return s;
}

} // namespace kdet::scan
