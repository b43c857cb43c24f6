//===- store/scan_result.cpp - verdicts and bounds of stored jobs --------------===//
#include "kdet/store/scan_result.hpp"

#include "kdet/backend/backend.hpp"
#include "kdet/engine/compiler_log.hpp"
#include "kdet/engine/variants.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>

namespace kdet::store {

namespace {

// engine::is_kdet_error, of a stored variant's status spelling.
bool kdet_error(const VariantRow& v) {
  backend::Status status{};
  return backend::parse_status(v.status, status) && engine::is_kdet_error(status);
}

} // namespace

engine::Verdict JobRow::verdict() const {
  if (runs == 0) return engine::Verdict::no_runs;
  if (ok_runs == 0) return engine::Verdict::failed;
  return outcomes() > 1 ? engine::Verdict::nondeterministic : engine::Verdict::deterministic;
}

uint64_t JobRow::outcomes() const {
  return static_cast<uint64_t>(std::count_if(variants.begin(), variants.end(),
                                             [](const VariantRow& v) { return !kdet_error(v); }));
}

const VariantRow* JobRow::modal_outcome() const {
  for (const auto& v : variants) // most common first
    if (!kdet_error(v)) return &v;
  return nullptr;
}

uint64_t JobRow::kdet_errors() const {
  uint64_t n = 0;
  for (const auto& v : variants)
    if (kdet_error(v)) n += v.count;
  return std::min(n, runs);
}

uint64_t JobRow::differing() const {
  const uint64_t counted = runs - kdet_errors();
  const VariantRow* modal = modal_outcome();
  return modal ? counted - std::min(modal->count, counted) : 0;
}

double JobRow::upper_bound() const {
  return stats::upper_bound(differing(), runs - kdet_errors());
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
  engine::VariantFold<VariantRow> fold(std::move(row.variants));
  for (const auto& v : out.variants) {
    // A round's runs come after the row's, so a known id only counts more runs; the fields of
    // a variant are those of its first run.
    auto [nv, first] = fold.add(v.id, offset + v.first_run, v.count);
    if (!first) continue;
    nv.status = backend::to_string(v.status);
    nv.detail = v.detail;
    nv.artifacts.clear();
    nv.log.clear();
    if (artifacts)
      for (const auto& a : v.artifacts)
        nv.artifacts.push_back({a.name, a.hash, a.size});
    // The compiler's words on a failure, for the reports (scan/failures.hpp).
    if (v.status != backend::Status::ok && v.first_run < out.records.size()) {
      const std::string& log = out.records[v.first_run].log;
      nv.log = utf8_safe(std::string_view(log).substr(0, engine::k_max_failure_log));
    }
    added.push_back(&v);
  }
  for (const auto& r : out.records)
    if (r.done && r.status == backend::Status::ok) ++row.ok_runs;
  row.variants = fold.take();
  row.runs += out.completed;
  row.seconds += out.wall_seconds;
  return added;
}

} // namespace kdet::store
