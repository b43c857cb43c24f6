#include "kdet/engine/session_loop.hpp"

#include <algorithm>

namespace kdet::engine {

void SessionLoop::add(RunSession& session) {
  session.begin();
  m_sessions.push_back(&session);
}

std::vector<SessionLoop::Ended> SessionLoop::step() {
  std::vector<Ended> ended;
  // A session can end without an event: its runs may all fail at once (no worker to start),
  // or stop conditions may hold from the start.
  take_done(ended);
  if (!ended.empty() || m_sessions.empty()) return ended;
  auto ev = m_ex.next();
  if (!ev) {
    for (RunSession* s : m_sessions)
      ended.push_back({s, nullptr});
    m_sessions.clear();
    return ended;
  }
  const bool to_all = ev->kind == ExecutorEvent::Kind::interrupted;
  // A session that throws leaves the loop at once with its error; the others go on.
  for (size_t i = 0; i < m_sessions.size();) {
    RunSession* s = m_sessions[i];
    if (!to_all && !s->owns(ev->worker)) {
      ++i;
      continue;
    }
    try {
      s->on_event(*ev);
      ++i;
    } catch (...) {
      ended.push_back({s, std::current_exception()});
      m_sessions.erase(m_sessions.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (!to_all) break; // one owner per worker
  }
  take_done(ended);
  return ended;
}

void SessionLoop::take_done(std::vector<Ended>& ended) {
  auto it = std::stable_partition(m_sessions.begin(), m_sessions.end(),
                                  [](RunSession* s) { return !s->done(); });
  for (auto d = it; d != m_sessions.end(); ++d)
    ended.push_back({*d, nullptr});
  m_sessions.erase(it, m_sessions.end());
}

} // namespace kdet::engine
