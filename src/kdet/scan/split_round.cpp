//===- scan/split_round.cpp - one scan round run in pieces on idle slots ----===//
#include "kdet/scan/split_round.hpp"

#include "kdet/engine/variants.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

namespace kdet::scan {

namespace {

using Clock = std::chrono::steady_clock;

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

// The most pieces the runs left in `queue` make (each at least two runs, or a whole unit).
uint64_t max_pieces(const engine::RunQueue& queue, uint64_t unit) {
  const uint64_t left = queue.left();
  if (unit <= 1) return std::max<uint64_t>(1, left / 2);
  return std::max<uint64_t>(1, (left + unit - 1) / unit);
}

// Runs plan's runs [first_index, runs) from plan.queue: `own` runs this slot's piece (or returns
// it, started earlier: see close_round in run_jobs), beside the pieces other slots run from the
// same queue (same master seed, so every run keeps its index and seed; a chain is taken whole),
// whose outputs `joined` returns (it waits for them). Returns what the one plan would have given
// run serially: the runs up to the first whose outcome is the stop_at_outcomes-th distinct one,
// or up to the first run not done (interrupted). A piece stops early only at its own
// stop_at_outcomes-th outcome, which the serial order reaches no later, so every run the serial
// plan does is done by some piece; the runs past the cut are dropped.
engine::RunOutput run_split(const engine::RunPlan& plan,
                            const std::function<engine::RunOutput()>& own,
                            const std::function<std::vector<engine::RunOutput>()>& joined) {
  auto t0 = Clock::now();
  const uint64_t first = plan.first_index;
  std::vector<engine::RunOutput> outs(1);
  std::exception_ptr error;
  try {
    outs[0] = own();
  } catch (...) {
    error = std::current_exception();
  }
  std::vector<engine::RunOutput> more = joined();
  if (error) std::rethrow_exception(error);
  for (auto& o : more)
    outs.push_back(std::move(o));
  const size_t pieces = outs.size();

  engine::RunOutput out;
  out.plan = plan;
  out.identity = outs[0].identity;
  out.compiler_file = outs[0].compiler_file;
  out.records.resize(plan.runs);
  std::vector<size_t> owner(plan.runs, 0); // the piece that ran each run
  for (size_t p = 0; p < pieces; ++p) {
    out.interrupted = out.interrupted || outs[p].interrupted;
    out.workers_started += outs[p].workers_started;
    out.workers_prestarted += outs[p].workers_prestarted;
    out.probes.insert(out.probes.end(), outs[p].probes.begin(), outs[p].probes.end());
    out.warnings.insert(out.warnings.end(), outs[p].warnings.begin(), outs[p].warnings.end());
    if (out.compiler_changed.empty()) out.compiler_changed = outs[p].compiler_changed;
    for (auto& r : outs[p].records)
      if (r.done && r.index < plan.runs) {
        owner[r.index] = p;
        out.records[r.index] = std::move(r);
      }
  }
  engine::VariantFold<engine::Variant> seen;
  uint64_t end = first;
  while (end < plan.runs && out.records[end].done) {
    const engine::RunRecord& r = out.records[end];
    auto [v, first_seen] = seen.add(r.variant, end);
    // The piece that ran the first occurrence kept its artifacts.
    if (first_seen)
      if (engine::Variant* p = engine::find_variant(outs[owner[end]].variants, r.variant)) {
        const uint64_t count = v.count; // the piece's own count and first run are not the round's
        v = std::move(*p);
        v.count = count;
        v.first_run = end;
      }
    ++end;
    if (plan.stop_at_outcomes > 0 && seen.size() >= plan.stop_at_outcomes) break;
  }
  for (uint64_t i = end; i < plan.runs; ++i)
    out.records[i] = engine::RunRecord{};
  out.variants = seen.take();
  out.completed = end - first;
  out.stopped_early = !out.interrupted && end < plan.runs;
  out.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
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
  if (plan.stop_at_outcomes > 0 && out.variants.size() >= plan.stop_at_outcomes) return;
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
