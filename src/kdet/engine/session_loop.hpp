//===- engine/session_loop.hpp - many RunSessions on one executor ------------===//
//
// The one loop of a planner that runs several engine::execute calls at once (scan's rounds):
// it waits on the executor, hands each event to the session that owns its worker (the
// executor's interrupt to every session) and gives back each session that ended, at once and
// without threads. engine::execute is this loop with one session.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/run_session.hpp"

#include <exception>
#include <vector>

namespace kdet::engine {

class SessionLoop {
public:
  // A session the loop let go: it is done, or it threw (`error`: its compiler cannot load, or
  // its load was interrupted), or the executor had no event left for it.
  struct Ended {
    RunSession* session = nullptr;
    std::exception_ptr error;
  };

  // `executor` must outlive the loop.
  explicit SessionLoop(Executor& executor) : m_ex(executor) {}

  // Begins `session` (it must outlive its time in the loop) and drives it from now on. Throws
  // what its begin() throws, and then does not keep it.
  void add(RunSession& session);
  // Waits for the next event and routes it; returns the sessions that ended with it (possibly
  // none). With no event left, every session still in the loop ends.
  std::vector<Ended> step();
  // The sessions in the loop.
  size_t size() const { return m_sessions.size(); }

private:
  void take_done(std::vector<Ended>& ended);

  Executor& m_ex;
  std::vector<RunSession*> m_sessions;
};

} // namespace kdet::engine
