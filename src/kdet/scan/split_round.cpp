//===- scan/split_round.cpp - one scan round run on several slots ------------===//
#include "kdet/scan/split_round.hpp"

#include "kdet/engine/variants.hpp"
#include "kdet/engine/verdict.hpp"

#include <algorithm>

namespace kdet::scan {

namespace {

// The chain units plan's runs [first_index, runs) touch, as [first, first + count) in units of
// `unit` runs (unit > 1); a first unit of one run left is counted with the next, so that no
// piece is a single run.
struct ChainUnits {
  uint64_t first = 0, count = 0;
};
ChainUnits chain_units(const engine::RunPlan& plan, uint64_t unit) {
  const uint64_t lead =
      plan.first_index % unit == unit - 1 ? plan.first_index + 1 : plan.first_index;
  if (lead >= plan.runs) return {lead / unit, 0};
  return {lead / unit, (plan.runs - 1) / unit - lead / unit + 1};
}

} // namespace

Splitting splitting(const perturb::Setting& setting, const Job& job) {
  if (setting.process == perturb::ProcessMode::fresh || job.backend.kind == backend::Kind::exec)
    return {1, false};
  const uint64_t span = engine::same_chain_span(setting);
  if (span == 0 && setting.process == perturb::ProcessMode::both) return {1, true};
  return {span, false};
}

// The most pieces plan's runs [first_index, runs) make: pieces of at least two runs, each
// starting at a multiple of `unit` (the first piece starts at first_index).
uint64_t max_pieces(const engine::RunPlan& plan, uint64_t unit) {
  if (unit == 0 || plan.runs <= plan.first_index) return 1;
  if (unit == 1) return std::max<uint64_t>(1, (plan.runs - plan.first_index) / 2);
  return std::max<uint64_t>(1, chain_units(plan, unit).count);
}

// Cuts a queue round's output to the serial one's (see the header).
void serial_cut(engine::RunOutput& out) {
  const engine::RunPlan& plan = out.plan;
  std::vector<engine::Variant> pieces_variants = std::move(out.variants);
  engine::VariantFold<engine::Variant> seen;
  size_t outcomes = 0; // of seen, those that are no error of kdet's own
  uint64_t end = plan.first_index;
  while (end < plan.runs && end < out.records.size() && out.records[end].done) {
    const engine::RunRecord& r = out.records[end];
    auto [v, first_seen] = seen.add(r.variant, end);
    if (first_seen && !engine::is_kdet_error(r.status)) ++outcomes;
    // The session kept the artifacts of the outcome's first run in completion order: the same
    // bytes (same outcome id) as those of its first run in index order.
    if (first_seen)
      if (engine::Variant* p = engine::find_variant(pieces_variants, r.variant)) {
        const uint64_t count = v.count;
        v = std::move(*p);
        v.count = count;
        v.first_run = end;
      }
    ++end;
    if (plan.stop.outcomes > 0 && outcomes >= plan.stop.outcomes) break;
  }
  for (uint64_t i = end; i < out.records.size(); ++i)
    out.records[i] = engine::RunRecord{};
  out.variants = seen.take();
  out.completed = end - std::min(end, plan.first_index);
  out.stopped_early = !out.interrupted && end < plan.runs;
}

// An interrupted round keeps its runs only up to where the resumed round can go on with the
// history each run has in an uninterrupted one: a resumed round starts each chain in a new worker
// (history = N), and its same-process runs in one new worker (history = 0). So with same-process
// runs of a library backend it keeps the whole chains done (history = N) or nothing of the round
// (history = 0); a resume makes the rest again, with the same seeds and the same history. Runs
// each in a process of their own (process = fresh, exec compilers) are all kept.
void keep_resumable_runs(engine::RunOutput& out, const Job& job, const perturb::Setting& setting) {
  const engine::RunPlan& plan = out.plan;
  if (setting.process == perturb::ProcessMode::fresh || job.backend.kind == backend::Kind::exec)
    return;
  if (plan.stop.outcomes > 0 && engine::count_outcomes(out.variants) >= plan.stop.outcomes) return;
  const uint64_t first = plan.first_index;
  uint64_t end = first;
  while (end < plan.runs && out.records[end].done)
    ++end;
  const uint64_t span = engine::same_chain_span(setting);
  const uint64_t keep = span == 0 ? first : std::max(first, end / span * span);
  if (keep >= end) return;
  for (uint64_t i = keep; i < plan.runs; ++i)
    out.records[i] = engine::RunRecord{};
  for (auto& v : out.variants) {
    v.count = 0;
    for (uint64_t i = first; i < keep; ++i)
      if (out.records[i].variant == v.id) ++v.count;
  }
  out.variants.erase(std::remove_if(out.variants.begin(), out.variants.end(),
                                    [](const engine::Variant& v) { return v.count == 0; }),
                     out.variants.end());
  engine::order(out.variants); // the counts changed
  out.completed = keep - first;
}

} // namespace kdet::scan
