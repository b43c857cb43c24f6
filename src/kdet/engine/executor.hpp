//===- engine/executor.hpp - every worker process of a call, in one loop -----===//
//
// The executor owns the worker processes of one engine::execute call and waits on all of them
// in one loop: their reply pipes, their pidfds (a worker's death), their deadlines (a start or a
// compile past its time) and the interrupt fd. It knows nothing of runs, slots, rounds or
// variants: a planner asks it to launch a worker, send it a compile or let it quit, and takes
// the events that follow, one at a time, from next().
//
// ProcessExecutor is the real one. Tests give a planner a scripted executor with a virtual
// clock (tests/unit/fake_executor.hpp), so that every decision is tested without processes,
// sleeps or timing races (ninja's CommandRunner and its fake are the model).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/worker.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdet::engine {

class WorkerPool;

// A worker of one executor: 1, 2, ... in launch order; 0 is none.
using WorkerId = int;

// What a planner learns from next().
struct ExecutorEvent {
  enum class Kind {
    started,     // a launched worker said hello (ok) or could not start (error)
    replied,     // a compile ended: reply (worker_lost: the worker is gone)
    interrupted, // the user interrupted kdet: every worker was killed
  };
  Kind kind = Kind::started;
  WorkerId worker = 0;
  bool ok = false; // started
  HelloMessage hello;
  std::string error;
  WorkerReply reply; // replied
};

class Executor {
public:
  using Clock = std::chrono::steady_clock;
  virtual ~Executor() = default;

  // Launches a worker; a `started` event follows (also when it could not be launched at all).
  virtual WorkerId launch(const WorkerLaunch& launch) = 0;
  // Takes over a worker that already said hello (one started ahead by a WorkerPool); no event.
  virtual WorkerId adopt(WorkerProcess worker) = 0;
  // Sends an idle worker a compile; a `replied` event follows. Past `timeout` (0 = none) the
  // worker is killed and the reply says timed-out.
  virtual void compile(WorkerId worker, const CompileMessage& message,
                       std::chrono::milliseconds timeout) = 0;
  // Tells a worker to quit, started or not; it is reaped later, off the planner's path.
  virtual void quit(WorkerId worker) = 0;
  // The worker's process id (0 when it is gone).
  virtual int pid(WorkerId worker) const = 0;
  // The next event; waits for it. Nullopt when nothing is pending (no start, no compile).
  virtual std::optional<ExecutorEvent> next() = 0;
  virtual Clock::time_point now() const = 0;
};

// The real executor: worker processes, one epoll loop in the calling thread. Every worker is
// launched from that thread (a worker dies with the thread that launched it: PR_SET_PDEATHSIG).
class ProcessExecutor final : public Executor {
public:
  // Workers told to quit are reaped in the background by `pool` when given (so that no call
  // waits for its workers' exits), else before the destructor returns.
  explicit ProcessExecutor(std::shared_ptr<WorkerPool> pool = nullptr);
  ~ProcessExecutor() override;
  ProcessExecutor(const ProcessExecutor&) = delete;
  ProcessExecutor& operator=(const ProcessExecutor&) = delete;

  WorkerId launch(const WorkerLaunch& launch) override;
  WorkerId adopt(WorkerProcess worker) override;
  void compile(WorkerId worker, const CompileMessage& message,
               std::chrono::milliseconds timeout) override;
  void quit(WorkerId worker) override;
  int pid(WorkerId worker) const override;
  std::optional<ExecutorEvent> next() override;
  Clock::time_point now() const override { return Clock::now(); }

private:
  struct Entry;
  // Waits (until the nearest deadline) and turns what happened into events.
  void wait_once();
  void watch(WorkerId id, Entry& e); // its pipe and pidfd into the epoll set
  void unwatch(Entry& e);            // and out again
  void on_readable(WorkerId id);     // its reply pipe has data or was closed
  void on_exit(WorkerId id);         // its pidfd: the process ended
  void conclude(WorkerId id, ReadStatus rs);
  void interrupt_all();

  std::shared_ptr<WorkerPool> m_pool;
  int m_epoll = -1;
  WorkerId m_last = 0;
  std::map<WorkerId, std::unique_ptr<Entry>> m_workers;
  std::vector<ExecutorEvent> m_ready; // events found, not handed out yet (oldest first)
  size_t m_ready_next = 0;
  std::vector<pid_t> m_quitting; // told to quit, not reaped yet
};

} // namespace kdet::engine
