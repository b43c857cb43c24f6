//===- scan/split_round.hpp - one scan round run on several slots ------------===//
//
// Internal to scan/: how a round may be split (docs/SCAN.md, "Splitting rounds"), its slots' runs
// (taken from one engine::RunQueue) cut to the output the one serial round would have given, and
// what an interrupted round keeps for a resume.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/scan/planner.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace kdet::scan {

// How a round may be split. `unit`: the run indices a piece must start at a multiple of, or 0
// when the round may not be split: 1 when each run starts a worker of its own (process = fresh)
// or the compiler is a program started per run (exec), so no run sees another's in-process
// history; the chain span when same-process runs come in chains of `history`
// (engine::same_chain_span), as a chain kept whole has the history it has on one slot. Without
// history, the same-process runs share a heap across the round, which a split would cut short:
// with process = same the round is not split; with both, its same-process runs stay with one
// piece (`shared_worker`: engine::RunQueue::shared_worker) and only its fresh runs spread.
struct Splitting {
  uint64_t unit = 0;
  bool shared_worker = false;
  // The queue of a split round's runs [first, end).
  std::shared_ptr<engine::RunQueue> queue(uint64_t first, uint64_t end) const {
    if (shared_worker) return engine::RunQueue::shared_worker(first, end);
    return std::make_shared<engine::RunQueue>(first, end, unit);
  }
};
Splitting splitting(const perturb::Setting& setting, const Job& job);

// The most pieces plan's runs [first_index, runs) make: pieces of at least two runs, each
// starting at a multiple of `unit` (the first piece starts at first_index).
uint64_t max_pieces(const engine::RunPlan& plan, uint64_t unit);

// Cuts the output of a round whose runs came from RunPlan::shared.queue, on one slot or more (same
// master seed, so every run keeps its index and seed; a chain is taken whole), to what the plan
// would have given run serially: the runs up to the first whose outcome is the
// stop.outcomes-th distinct one, or up to the first run not done (interrupted); the variants
// folded again in that order. A slot stops early only at its own stop.outcomes-th outcome,
// which the serial order reaches no later, so every run the serial plan does was done; the runs
// past the cut are dropped.
void serial_cut(engine::RunOutput& out);

// An interrupted round keeps its runs only up to where the resumed round can go on with the
// history each run has in an uninterrupted one: a resumed round starts each chain in a new worker
// (history = N), and its same-process runs in one new worker (history = 0). So with same-process
// runs of a library backend it keeps the whole chains done (history = N) or nothing of the round
// (history = 0); a resume makes the rest again, with the same seeds and the same history. Runs
// each in a process of their own (process = fresh, exec compilers) are all kept.
void keep_resumable_runs(engine::RunOutput& out, const Job& job, const perturb::Setting& setting);

} // namespace kdet::scan
