//===- util/exec_child.cpp - the child side of spawn() -------------------------===//
//
// Async-signal-safe only: this code runs in a child forked from a process with
// threads, before execve.
//
//===----------------------------------------------------------------------===//
#include "kdet/util/exec_child.hpp"

#include "kdet/util/reap.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::detail {

[[noreturn]] void child_fail(int err_fd, int err, int stage) {
  int msg[2] = {err, stage};
  ssize_t ignored = ::write(err_fd, msg, sizeof msg);
  (void)ignored;
  ::_exit(127);
}

// Marks every fd from `low` up close-on-exec, so they are gone in the program
// while the error pipe still works if execve fails. Async-signal-safe.
void cloexec_from(int low) {
  if (::syscall(SYS_close_range, static_cast<unsigned>(low), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  // Kernels before 5.11: walk /proc/self/fd (not limited to the first 1024 fds).
  int dir = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    alignas(8) char ents[4096];
    long got;
    while ((got = ::syscall(SYS_getdents64, dir, ents, sizeof ents)) > 0) {
      for (long off = 0; off < got;) {
        unsigned short reclen;
        std::memcpy(&reclen, ents + off + 16, sizeof reclen);
        const char* name = ents + off + 19;
        off += reclen;
        int fd = 0;
        bool num = *name != 0;
        for (const char* c = name; *c; ++c) {
          if (*c < '0' || *c > '9')
            num = false;
          else
            fd = fd * 10 + (*c - '0');
        }
        if (num && fd >= low && fd != dir) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
      }
    }
    ::close(dir);
    return;
  }
  rlimit rl{};
  long max = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                 ? static_cast<long>(rl.rlim_cur)
                 : 1 << 20;
  for (long fd = low; fd < max; ++fd)
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
}

// Closes every fd but `keep` and `keep2` (-1: none). Async-signal-safe.
void close_all_but(int keep, int keep2) {
  int a = keep2 < 0 ? keep : std::min(keep, keep2), b = std::max(keep, keep2);
  auto close_span = [](long lo, long hi) {
    if (lo > hi) return;
    if (::syscall(SYS_close_range, static_cast<unsigned>(lo), static_cast<unsigned>(hi), 0U) == 0)
      return;
    for (long fd = lo; fd <= std::min<long>(hi, 65535); ++fd)
      ::close(static_cast<int>(fd));
  };
  close_span(0, a - 1);
  close_span(a + 1, b - 1);
  close_span(b + 1, 0xffffffffL);
}

// In the forked child: unshare the PID namespace and fork twice, so that the
// program runs as pid 2 under a reaper (pid 1 of a namespace ignores signals it
// has no handler for, which would hide crashes). This process (outside the
// namespace) waits and ends the same way the program did. The reaper dies with
// this relay (PR_SET_PDEATHSIG), and the kernel then kills everything in the
// namespace, so killing the relay ends the whole tree. Async-signal-safe only.
[[noreturn]] void run_in_pid_namespace(const Prepared& p, char** envp, int ef) {
  if (::unshare(CLONE_NEWPID) != 0) child_fail(ef, errno);
  int relay[2], life[2];
  if (::pipe(relay) != 0 || ::pipe(life) != 0) child_fail(ef, errno);
  pid_t reaper = ::fork();
  if (reaper < 0) child_fail(ef, errno);
  if (reaper == 0) {
    // getppid() is 0 inside the namespace, so the relay's death is seen on the
    // `life` pipe instead: it may have died before the death signal was set.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::close(life[1]);
    pollfd pf{life[0], POLLIN, 0};
    if (::poll(&pf, 1, 0) > 0) ::_exit(125);
    pid_t prog = ::fork();
    if (prog < 0) child_fail(ef, errno);
    if (prog == 0) {
      ::close(relay[0]);
      ::close(relay[1]);
      ::close(life[0]);
      ::execve(p.program.c_str(), p.argv.data(), envp);
      child_fail(ef, errno);
    }
    // The reaper keeps only the relay pipe; the program's fds stay the program's.
    close_all_but(relay[1]);
    int st = 0;
    for (;;) {
      pid_t r = ::waitpid(-1, &st, 0);
      if (r == prog) break;
      if (r < 0 && errno != EINTR) break;
    }
    ssize_t ignored = ::write(relay[1], &st, sizeof st);
    (void)ignored;
    ::_exit(0);
  }
  close_all_but(relay[0], life[1]); // life[1] stays open until this relay ends
  int st = 0;
  ssize_t n;
  do {
    n = ::read(relay[0], &st, sizeof st);
  } while (n < 0 && errno == EINTR);
  int ignored_status;
  while (::waitpid(reaper, &ignored_status, 0) < 0 && errno == EINTR) {
  }
  if (n != sizeof st) ::_exit(125);
  if (WIFSIGNALED(st)) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(WTERMSIG(st), &dfl, nullptr);
    ::kill(::getpid(), WTERMSIG(st));
  }
  ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

namespace {

// The guarded program's pid, for the guard's signal handlers.
volatile pid_t g_guarded = 0;
// Set by SIGTERM (kdet ending the run): once the program has ended, do not wait for what it left.
volatile sig_atomic_t g_stop_waiting = 0;

void guard_forward(int sig) {
  g_stop_waiting = 1;
  if (g_guarded > 0) ::kill(g_guarded, sig);
}

void guard_parent_gone(int) {
  kill_all_children_now();
  ::_exit(128 + SIGKILL);
}

} // namespace

// In the forked child: stay between kdet and the program as a subreaper, so
// that whatever the program starts (setsid, double fork) is ended with it, even
// when kdet is SIGKILLed (the guard's parent-death signal is handled).
// SIGTERM is passed on to the program; the program's end is this process's
// end. Async-signal-safe only.
[[noreturn]] void run_guarded(const Prepared& p, char** envp, int ef, pid_t parent, int report_fd) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = guard_parent_gone;
  ::sigaction(SIGUSR2, &sa, nullptr);
  sa.sa_handler = guard_forward;
  ::sigaction(SIGTERM, &sa, nullptr);
  // A terminal's SIGINT, SIGQUIT and SIGHUP reach the program directly (same group).
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGQUIT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ::prctl(PR_SET_PDEATHSIG, SIGUSR2);
  if (::getppid() != parent) guard_parent_gone(SIGUSR2);
  pid_t prog = ::fork();
  if (prog < 0) child_fail(ef, errno);
  if (prog == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (int s : {SIGUSR2, SIGTERM, SIGINT, SIGQUIT, SIGHUP})
      ::signal(s, SIG_DFL);
    ::execve(p.program.c_str(), p.argv.data(), envp);
    child_fail(ef, errno);
  }
  g_guarded = prog;
  close_all_but(report_fd); // the program's fds (and the error pipe) stay the program's
  int st = 0;
  for (;;) {
    pid_t r = ::waitpid(-1, &st, 0);
    if (r == prog) break;
    if (r < 0 && errno != EINTR) ::_exit(125);
  }
  g_guarded = 0;
  if (report_fd >= 0 || p.linger_ms > 0)
    linger_and_report(p.linger_ms, p.linger_marker.c_str(), report_fd, &g_stop_waiting);
  kill_all_children_now(); // what the program left behind
  if (WIFSIGNALED(st)) {
    ::signal(WTERMSIG(st), SIG_DFL);
    ::kill(::getpid(), WTERMSIG(st));
  }
  ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

} // namespace kdet::detail
