// Helpers for unit tests about processes.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::test {

// A pid that no longer runs: a child that has exited and been reaped.
inline pid_t dead_pid() {
  pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  int st;
  ::waitpid(p, &st, 0);
  return p;
}

// One process's end, seen through a pidfd opened at construction (so a pid reused later cannot
// pass for it): a test waits for that event instead of sleeping and looking at /proc.
class ProcessEnd {
public:
  // Opens the pidfd; a process already gone (reaped) counts as ended.
  explicit ProcessEnd(pid_t pid) : m_fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {
    m_gone = m_fd < 0 && errno == ESRCH;
  }
  ~ProcessEnd() {
    if (m_fd >= 0) ::close(m_fd);
  }
  ProcessEnd(const ProcessEnd&) = delete;
  ProcessEnd& operator=(const ProcessEnd&) = delete;
  ProcessEnd(ProcessEnd&& o) noexcept : m_fd(o.m_fd), m_gone(o.m_gone) { o.m_fd = -1; }
  ProcessEnd& operator=(ProcessEnd&&) = delete;

  // True once the process has ended (a zombie counts), waiting up to `deadline` for it: the
  // deadline only guards against a hang, the wait ends at the exit itself.
  bool wait_until(std::chrono::steady_clock::time_point deadline) const {
    if (m_gone) return true;
    if (m_fd < 0) return false; // no pidfd (another error than ESRCH): nothing to wait on
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{m_fd, POLLIN, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
      if (n > 0) return true;
      if (n == 0 || errno != EINTR) return false;
    }
  }
  bool wait_for(std::chrono::milliseconds limit) const {
    return wait_until(std::chrono::steady_clock::now() + limit);
  }

private:
  int m_fd;
  bool m_gone = false;
};

} // namespace kdet::test
