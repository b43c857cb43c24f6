//===- store/scan_result.cpp - verdicts and bounds of stored jobs --------------===//
#include "kdet/store/scan_result.hpp"

#include "kdet/engine/compiler_log.hpp"
#include "kdet/engine/variant_order.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>

namespace kdet::store {

engine::Verdict JobRow::verdict() const {
  if (runs == 0) return engine::Verdict::no_runs;
  if (ok_runs == 0) return engine::Verdict::failed;
  return variants.size() > 1 ? engine::Verdict::nondeterministic : engine::Verdict::deterministic;
}

double JobRow::upper_bound() const {
  return stats::upper_bound(differing(), runs);
}

std::string JobRow::input_label(size_t name_width) const {
  if (kernels.empty()) return input;
  return display_names(kernels, name_width) + " (" + input + ")";
}

std::string JobRow::label(size_t name_width) const {
  std::string s = input_label(name_width) + " " + compiler;
  if (!target.empty()) s += " " + target;
  return s + " " + option_set;
}

std::vector<const engine::Variant*> merge_variants(JobRow& row, const engine::RunOutput& out,
                                                   uint64_t offset, bool artifacts) {
  std::vector<const engine::Variant*> added;
  for (const auto& v : out.variants) {
    auto it = std::find_if(row.variants.begin(), row.variants.end(),
                           [&](const VariantRow& x) { return x.id == v.id; });
    if (it != row.variants.end()) {
      it->count += v.count;
      continue;
    }
    VariantRow nv;
    nv.id = v.id;
    nv.count = v.count;
    nv.first_run = offset + v.first_run;
    nv.status = backend::to_string(v.status);
    nv.detail = v.detail;
    if (artifacts)
      for (const auto& a : v.artifacts)
        nv.artifacts.push_back({a.name, a.hash, a.size});
    // The compiler's words on a failure, for the reports (scan/failures.hpp).
    if (v.status != backend::Status::ok && v.first_run < out.records.size()) {
      const std::string& log = out.records[v.first_run].log;
      nv.log = utf8_safe(std::string_view(log).substr(0, engine::k_max_failure_log));
    }
    row.variants.push_back(std::move(nv));
    added.push_back(&v);
  }
  for (const auto& r : out.records)
    if (r.done && r.status == backend::Status::ok) ++row.ok_runs;
  engine::order_most_common_first(row.variants);
  row.runs += out.completed;
  row.seconds += out.wall_seconds;
  return added;
}

} // namespace kdet::store
