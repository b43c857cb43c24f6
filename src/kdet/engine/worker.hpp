//===- engine/worker.hpp - the driver's handle on one worker process ---------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/engine/protocol.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/faketime_shm.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdet::engine {

// What makes a worker the worker it is. Everything here is the same for every worker of a
// session, so that with all factors fixed each one starts in the same state; two workers that
// start from equal WorkerStarts are interchangeable (the pool's test, compared whole).
struct WorkerStart {
  // The worker binary; empty: this kdet, run as /proc/self/exe, so that every worker of a
  // run or scan is the binary its driver is, even when the file at its path is replaced.
  std::string exe;
  backend::BackendConfig backend;
  // The factors' launch (perturb::plan_launch) as it came: personality, namespaces, allocating
  // threads and their seed, preloads. Its variables are in `env` too.
  perturb::Launch factors;
  std::vector<std::string> env; // the worker's whole environment
  bool operator==(const WorkerStart&) const = default;
};

// How to start a worker: its start, and where its output goes.
struct WorkerLaunch : WorkerStart {
  std::string log_path; // worker stdout+stderr (the compiler's own output)
  std::chrono::milliseconds start_timeout{60000};
};

// The outcome of one compile as the driver saw it.
struct WorkerReply {
  ResultMessage message;
  bool worker_lost = false; // the worker died or was killed; start another
  bool interrupted = false; // the user interrupted kdet while waiting
};

class WorkerProcess {
public:
  WorkerProcess() = default;
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  // Moving hands the process over; the source no longer owns it.
  WorkerProcess(WorkerProcess&& other) noexcept { *this = std::move(other); }
  WorkerProcess& operator=(WorkerProcess&& other) noexcept;

  // Starts the worker and waits for its hello. On failure returns false and
  // fills `error` (the worker's own message when it sent one).
  bool start(const WorkerLaunch& launch, HelloMessage& hello, std::string& error);

  // start() in two steps: launch() spawns the worker, which then loads the compiler on its own
  // while the caller goes on; await_hello() waits for its hello. The thread that launches must
  // outlive the worker (it dies with that thread: PR_SET_PDEATHSIG).
  bool launch(const WorkerLaunch& launch, std::string& error);
  bool await_hello(const WorkerLaunch& launch, HelloMessage& hello, std::string& error);

  // Runs one compile. A crash, a hang past `timeout` (0 = none), an early exit
  // or a garbled reply becomes a result with that status; the worker is then gone.
  WorkerReply compile(const CompileMessage& message, std::chrono::milliseconds timeout,
                      int interrupt_fd);

  // The pieces of await_hello and compile, for a loop that waits on many workers at once
  // (engine/executor). accept_hello: the end of await_hello once its read ended in `rs` (with a
  // frame when ok). send: writes a compile request; false when the worker is gone (then lost).
  // take_reply: the end of compile once its read ended in `rs`.
  bool accept_hello(ReadStatus rs, MessageType type, const std::string& payload,
                    HelloMessage& hello, std::string& error);
  bool send(const CompileMessage& message);
  WorkerReply take_reply(ReadStatus rs, MessageType type, const std::string& payload,
                         std::chrono::milliseconds timeout);
  int reply_fd() const { return m_reply_fd; }

  // Asks the worker to quit and reaps it (kills it if it does not go).
  void stop();
  // Asks the worker to quit and returns its pid at once, without waiting for it to exit (a
  // process's exit unmaps the compiler and its heap: milliseconds). The caller reaps it
  // later: try_reap while it works, stop_quitting at the end.
  pid_t quit();

  bool alive() const { return m_pid > 0; }
  pid_t pid() const { return m_pid; }

private:
  void lose(); // kill and reap after a failure
  std::string log_tail(size_t max_bytes) const;

  pid_t m_pid = -1;
  int m_request_fd = -1;
  int m_reply_fd = -1;
  std::string m_log_path;
  long long m_log_offset = 0;
  // libfaketime's shared clock for this worker's process tree; removed once it is reaped.
  std::unique_ptr<FaketimeShared> m_clock;
};

// Reaps the workers quit() left exiting: those that have ended, or (wait) all of them, each
// given until 5 s from now before it is killed; then kills what their compilers left behind.
void stop_quitting(std::vector<pid_t>& pids, bool wait);

} // namespace kdet::engine
