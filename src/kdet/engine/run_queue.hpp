//===- engine/run_queue.hpp - which run a slot makes next --------------------===//
//
// Run indices and the processes they run in: which runs get a worker of their own, the chains
// of same-process runs (history = N), and the queue that the pieces of a split scan round take
// their runs from.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/perturb/setting.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace kdet::engine {

// True when run `index` gets a worker of its own: always for fresh, never for
// same, and for both every run with an even 0-based index (runs 1, 3, 5, ...).
bool runs_in_fresh_process(perturb::ProcessMode mode, uint64_t index);

// The same-process chain that run `index` belongs to when setting.history is set: the same-process
// runs (every run for same, the odd-numbered 0-based ones for both) in index order, cut into
// pieces of `history`. A chain's runs share one worker, started afresh for the chain's first run
// (and after a crash), whichever slot runs it. 0 for every run when history is 0.
uint64_t same_chain(const perturb::Setting& setting, uint64_t index);

// The run indices one chain spans: history for same, 2 x history for both (its fresh runs
// interleave); 0 when same-process runs are not chained (history 0, or process fresh).
uint64_t same_chain_span(const perturb::Setting& setting);

// Run indices [first, end) handed out in units: the pieces of one split scan round take their
// runs from one queue, so a slot that joins the round late takes what is still left. A unit
// starts at a multiple of `unit` (the first at `first`) and ends at the next one: with history =
// N a unit is a chain (same_chain_span), kept whole so it has the history it has on one slot.
// shared_worker() hands out a `both` round without history instead, whose same-process runs are
// one worker's history: the first piece to take a run holds that worker; other pieces take only
// the fresh-process runs. The holder takes every run in index order while it is alone (so one
// piece makes the serial order), and once another piece has taken a run, the shared worker's
// runs first, which only it can make.
class RunQueue {
public:
  struct Unit {
    uint64_t first = 0, end = 0; // the runs [first, end)
    bool operator==(const Unit&) const = default;
  };
  RunQueue(uint64_t first, uint64_t end, uint64_t unit);
  static std::shared_ptr<RunQueue> shared_worker(uint64_t first, uint64_t end);
  // The next unit for a piece, or nullopt when none is left for it (every run taken, or past a
  // stop). `holds_shared` is the piece's own: false at first, set when it gets the shared
  // worker's runs (shared_worker()).
  std::optional<Unit> take(bool& holds_shared);
  std::optional<Unit> take() {
    bool none = false;
    return take(none);
  }
  uint64_t left() const; // runs not taken yet
  // A piece reached stop.outcomes at run `index`: the one plan run serially stops there, so
  // no run after it is handed out, and pieces skip what is left of their unit past it. The runs
  // before it that are left are still handed out (with shared_worker(), fresh runs may have
  // gone ahead of the shared worker's), so that every run of the serial round is made.
  void stop(uint64_t index);
  bool wanted(uint64_t index) const; // not past a stop, nor closed
  // Nothing more is wanted: its round will not run (the round before it ended the job).
  void close();

private:
  uint64_t end_now() const { return m_last == UINT64_MAX ? m_end : std::min(m_end, m_last + 1); }
  mutable std::mutex m_mu;
  uint64_t m_next, m_end, m_unit;
  uint64_t m_last = UINT64_MAX; // the run a piece stopped at
  bool m_shared = false;        // shared_worker(): m_next is the next fresh run
  uint64_t m_next_same = 0;     // shared_worker(): the next same-process run
  bool m_shared_held = false;   // shared_worker(): a piece holds the shared worker's runs
  bool m_helped = false;        // shared_worker(): another piece took a run
  bool m_closed = false;
};

} // namespace kdet::engine
