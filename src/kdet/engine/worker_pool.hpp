//===- engine/worker_pool.hpp - workers started ahead for the next round ------===//
//
// A scan runs its jobs as many short engine::execute calls (rounds), each of which used to start
// its first worker at its first run's turn: a process start and a compiler load on the critical
// path of every round. A WorkerPool, shared by the rounds of one scan (RunPlan::workers.pool),
// holds workers started ahead: a round asks for one while its last compile runs, and the next round
// that needs a worker started exactly so takes it. Each is still a separate exec that compiled
// nothing (its own ASLR layout, no history), so taking one changes no run.
//
// Workers are launched from the pool's own thread, which lives as long as the pool: a worker
// dies with the thread that launched it (PR_SET_PDEATHSIG), and rounds run on threads that end.
// The same thread reaps the workers rounds are done with, whose exits (unmapping the compiler
// and its heap) took milliseconds off every round's end.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/worker.hpp"
#include "kdet/util/tempdir.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kdet::engine {

// Whether a worker launched as `a` starts exactly as one launched as `b`: everything but where
// its log goes, how long its start may take, and the seed of allocating threads it has none of.
bool same_start(const WorkerLaunch& a, const WorkerLaunch& b);

class WorkerPool {
public:
  // Holds at most `capacity` workers (started or asked for). Each one taken is replaced at once,
  // so the workers a slot takes have had a whole round to load.
  explicit WorkerPool(size_t capacity);
  ~WorkerPool(); // stops every worker not taken, then the thread
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Asks for a worker launched as `launch` (with a log of the pool's own), started on the
  // pool's thread; returns at once. Nothing happens when `capacity` such are held already;
  // when the pool is full of other starts, the oldest of them is stopped to make room.
  void prestart(const WorkerLaunch& launch);

  // A worker started as `launch` would start one, once it said hello (given in `hello` when not
  // null); nullopt when none was started so, or it failed to load (then the caller starts one as
  // usual).
  std::optional<WorkerProcess> take(const WorkerLaunch& launch, HelloMessage* hello = nullptr);

  // Reaps these workers, told to quit (WorkerProcess::quit), on the pool's thread as they end,
  // so that no round waits for its workers' exits; the destructor waits for the rest. `pids`
  // is left empty.
  void reap_later(std::vector<pid_t>& pids);

  // Workers taken so far (for tests and benchmarks).
  size_t taken() const;
  // Workers launched and not taken yet (for tests: prestart() only asks the pool's thread).
  size_t launched() const;
  // Waits up to `limit` until launched() is at least `n`; false when it is not by then. For
  // tests, which wait for the pool's thread to act rather than sleep and look.
  bool await_launched(size_t n, std::chrono::milliseconds limit);
  // Waits up to `limit` until at least `n` workers handed to reap_later were reaped (by the
  // pool's thread); false when fewer were by then. For tests, as await_launched.
  bool await_reaped(size_t n, std::chrono::milliseconds limit);

private:
  struct Entry {
    WorkerLaunch launch;
    WorkerProcess worker;
    bool launched = false; // false: asked for, not launched yet
  };
  void loop();
  // prestart() under m_mu: false when nothing was added; `evicted` gets what made room.
  bool add(const WorkerLaunch& launch, std::optional<Entry>& evicted);

  const size_t m_capacity;
  TempDir m_logs;
  mutable std::mutex m_mu;
  std::condition_variable m_wake;
  std::condition_variable m_acted; // the pool's thread launched or reaped workers (await_*)
  std::deque<Entry> m_entries;     // oldest first
  std::vector<pid_t> m_quitting;   // reap_later's
  bool m_closing = false;
  size_t m_serial = 0, m_taken = 0, m_reaped = 0;
  std::thread m_thread; // last: started once the rest is set up
};

} // namespace kdet::engine
