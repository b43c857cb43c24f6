//===- util/exec_child.cpp - the child side of spawn() -------------------------===//
//
// Async-signal-safe only: this code runs before execve in a child forked from a process with
// threads, or in one that shares that process's memory (start_sharing_memory), where it must
// also write nothing the parent reads but what it was handed for that (Prepared::moved).
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
#include <memory>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

[[noreturn]] void run_child(const ChildStart& c) {
  const SpawnOptions& options = *c.options;
  const Prepared& p = *c.prepared;
  char** envp = c.envp;
  int ef = c.err_fd;
  if (options.death_signal > 0) {
    ::prctl(PR_SET_PDEATHSIG, options.death_signal);
    if (::getppid() != c.parent) ::_exit(127); // kdet died before the line above: follow it
  }
  if (options.new_process_group) ::setpgid(0, 0);
  // Handlers first, then the mask: a child sharing kdet's memory starts with every signal
  // blocked, so none of kdet's handlers ever runs in it.
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    ::signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Move the error pipe, /dev/null and every source above all targets
  // first, so no dup2 below can clobber one that is still needed.
  ef = ::fcntl(ef, F_DUPFD_CLOEXEC, p.low);
  if (ef < 0) child_fail(c.err_fd, errno);
  // /dev/null above the targets too. When kdet could not open it (no descriptor left), the
  // child tries once more, so a failure says why (EMFILE), not "bad file descriptor" later.
  int null_fd = c.devnull >= 0 ? ::fcntl(c.devnull, F_DUPFD_CLOEXEC, p.low) : -1;
  int null_errno = 0;
  if (null_fd < 0) {
    const int opened = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    null_fd = opened >= 0 ? ::fcntl(opened, F_DUPFD_CLOEXEC, p.low) : -1;
    null_errno = null_fd < 0 ? errno : 0;
    if (opened >= 0 && opened != null_fd) ::close(opened);
  }
  int report_fd = options.guard && options.guard_report_fd >= 0
                      ? ::fcntl(options.guard_report_fd, F_DUPFD_CLOEXEC, p.low)
                      : -1;
  const size_t n = options.fds.size();
  int* moved = const_cast<int*>(p.moved.data());
  for (size_t i = 0; i < n; ++i) {
    int src = options.fds[i].second < 0 ? null_fd : options.fds[i].second;
    if (src < 0) child_fail(ef, null_errno);
    moved[i] = ::fcntl(src, F_DUPFD_CLOEXEC, p.low);
    if (moved[i] < 0) child_fail(ef, errno);
  }
  for (size_t i = 0; i < n; ++i)
    if (::dup2(moved[i], options.fds[i].first) < 0) child_fail(ef, errno);
  for (int t = 0; t < 3; ++t)
    if (!p.is_target[static_cast<size_t>(t)] && ::dup2(null_fd, t) < 0)
      child_fail(ef, null_fd < 0 ? null_errno : errno);
  // Close everything else: below `low`, whatever is not a target; from
  // `low` up, all (close-on-exec, so the error pipe works until execve).
  for (int fd = 3; fd < p.low; ++fd)
    if (!p.is_target[static_cast<size_t>(fd)] &&
        std::find(p.inherited.begin(), p.inherited.end(), fd) == p.inherited.end())
      ::close(fd);
  cloexec_from(p.low);
  for (int fd : p.inherited) // the caller's, as the caller gave them to kdet
    if (fd >= p.low) ::fcntl(fd, F_SETFD, 0);
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0)
    child_fail(ef, errno, k_stage_chdir);
  if (options.umask) ::umask(static_cast<mode_t>(*options.umask));
  if (c.open_files) ::setrlimit(RLIMIT_NOFILE, c.open_files);
  if (options.disable_aslr) {
    int pers = ::personality(0xffffffff);
    if (pers != -1) {
      pers = *options.disable_aslr ? (pers | ADDR_NO_RANDOMIZE) : (pers & ~ADDR_NO_RANDOMIZE);
      ::personality(static_cast<unsigned long>(pers));
    }
  }
  if (options.new_pid_namespace) run_in_pid_namespace(p, envp, ef);
  if (options.guard) run_guarded(p, envp, ef, c.parent, report_fd);
  ::execve(p.program.c_str(), p.argv.data(), envp);
  child_fail(ef, errno);
}

namespace {

// The child's own stack: run_child's frames and cloexec_from's buffer take a few KiB.
constexpr size_t k_child_stack = size_t{64} * 1024;

int shared_child_main(void* arg) {
  run_child(*static_cast<const ChildStart*>(arg));
}

} // namespace

pid_t start_sharing_memory(const ChildStart& c) {
  // Not zeroed: the child writes its frames itself. Freed only after the child exec'd or
  // exited, which CLONE_VFORK waits for.
  std::unique_ptr<char[]> stack(new char[k_child_stack]);
  void* top = stack.get() + k_child_stack; // operator new[] aligns to 16, so does this end
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = ::clone(shared_child_main, top, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      const_cast<ChildStart*>(&c));
  const int e = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = e;
  return pid;
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
