#include "kdet/util/exec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kdet {

std::string ExitStatus::describe() const {
  switch (kind) {
  case Kind::exited:
    return fmt::format("exited {}", code);
  case Kind::signaled: {
    const char* name = sigabbrev_np(signal);
    return name ? fmt::format("killed by signal {} (SIG{})", signal, name)
                : fmt::format("killed by signal {}", signal);
  }
  case Kind::timed_out:
    return "timed out";
  case Kind::not_started:
    return "could not start: " + error;
  }
  return "?";
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::vector<std::string> with_env_changes(std::vector<std::string> env, const std::vector<std::string>& changes) {
  for (const auto& c : changes) {
    auto eq = c.find('=');
    std::string prefix = c.substr(0, eq) + "=";
    std::erase_if(env, [&](const std::string& x) { return x.compare(0, prefix.size(), prefix) == 0; });
    if (eq != std::string::npos) env.push_back(c);
  }
  return env;
}

std::string find_program(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return {};
}

bool system_aslr_enabled() {
  std::ifstream f("/proc/sys/kernel/randomize_va_space");
  int v = 2;
  if (f >> v) return v != 0;
  return true;
}

namespace {

// Everything the child needs, prepared before fork so the child only makes syscalls.
struct Prepared {
  std::vector<std::string> argv_store;
  std::vector<char*> argv;
  std::vector<std::string> env_store;
  std::vector<char*> env;
  std::string program;
};

[[noreturn]] void child_fail(int err_fd, int err) {
  ssize_t ignored = ::write(err_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

// In the forked child: unshare the PID namespace and fork twice, so that the
// program runs as pid 2 under a reaper (pid 1 of a namespace ignores signals it
// has no handler for, which would hide crashes). This process (outside the
// namespace) waits and ends the same way the program did. Async-signal-safe only.
[[noreturn]] void run_in_pid_namespace(const Prepared& p, char** envp, int ef) {
  if (::unshare(CLONE_NEWPID) != 0) child_fail(ef, errno);
  int relay[2];
  if (::pipe(relay) != 0) child_fail(ef, errno);
  pid_t reaper = ::fork();
  if (reaper < 0) child_fail(ef, errno);
  if (reaper == 0) {
    pid_t prog = ::fork();
    if (prog < 0) child_fail(ef, errno);
    if (prog == 0) {
      ::close(relay[0]);
      ::close(relay[1]);
      ::execve(p.program.c_str(), p.argv.data(), envp);
      child_fail(ef, errno);
    }
    // The reaper keeps only the relay pipe; the program's fds stay the program's.
    for (int fd = 0; fd < 1024; ++fd)
      if (fd != relay[1]) ::close(fd);
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
  for (int fd = 0; fd < 1024; ++fd)
    if (fd != relay[0]) ::close(fd);
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

} // namespace

pid_t spawn(const SpawnOptions& options, ExitStatus& status) {
  status = ExitStatus{};
  if (options.argv.empty()) {
    status.error = "empty command";
    return -1;
  }
  Prepared p;
  p.program = find_program(options.argv[0]);
  if (p.program.empty()) {
    status.code = ENOENT;
    status.error = fmt::format("{}: not found in PATH", options.argv[0]);
    return -1;
  }
  p.argv_store = options.argv;
  for (auto& a : p.argv_store) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  char** envp = environ;
  if (options.env) {
    p.env_store = *options.env;
    for (auto& e : p.env_store) p.env.push_back(e.data());
    p.env.push_back(nullptr);
    envp = p.env.data();
  }

  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    status.code = errno;
    status.error = fmt::format("pipe: {}", std::strerror(errno));
    return -1;
  }
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);

  pid_t pid = ::fork();
  if (pid < 0) {
    status.code = errno;
    status.error = fmt::format("fork: {}", std::strerror(errno));
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    if (devnull >= 0) ::close(devnull);
    return -1;
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    int ef = err_pipe[1];
    if (options.new_process_group) ::setpgid(0, 0);
    sigset_t all;
    sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int s = 1; s < NSIG; ++s) {
      if (s == SIGKILL || s == SIGSTOP) continue;
      ::signal(s, SIG_DFL);
    }
    // Move sources out of the way first, so a source that equals another
    // mapping's target cannot be clobbered.
    int moved[16];
    size_t n = std::min<size_t>(options.fds.size(), 16);
    for (size_t i = 0; i < n; ++i) {
      int src = options.fds[i].second < 0 ? devnull : options.fds[i].second;
      moved[i] = ::fcntl(src, F_DUPFD_CLOEXEC, 100);
      if (moved[i] < 0) child_fail(ef, errno);
    }
    bool has[3] = {false, false, false};
    for (size_t i = 0; i < n; ++i) {
      int target = options.fds[i].first;
      if (::dup2(moved[i], target) < 0) child_fail(ef, errno);
      if (target < 3) has[target] = true;
    }
    for (int t = 0; t < 3; ++t)
      if (!has[t] && ::dup2(devnull, t) < 0) child_fail(ef, errno);
    // Close everything else except our error pipe (it is close-on-exec).
    int max_target = 2;
    for (size_t i = 0; i < n; ++i) max_target = std::max(max_target, options.fds[i].first);
    for (int fd = max_target + 1; fd < 1024; ++fd)
      if (fd != ef) ::close(fd);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) child_fail(ef, errno);
    if (options.umask) ::umask(static_cast<mode_t>(*options.umask));
    if (options.disable_aslr) {
      int pers = ::personality(0xffffffff);
      if (pers != -1) {
        pers = *options.disable_aslr ? (pers | ADDR_NO_RANDOMIZE) : (pers & ~ADDR_NO_RANDOMIZE);
        ::personality(static_cast<unsigned long>(pers));
      }
    }
    if (options.new_pid_namespace) run_in_pid_namespace(p, envp, ef);
    ::execve(p.program.c_str(), p.argv.data(), envp);
    child_fail(ef, errno);
  }

  ::close(err_pipe[1]);
  if (devnull >= 0) ::close(devnull);
  int child_errno = 0;
  ssize_t r;
  do {
    r = ::read(err_pipe[0], &child_errno, sizeof child_errno);
  } while (r < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  if (r == sizeof child_errno) {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    status.code = child_errno;
    status.error = fmt::format("{}: {}", options.argv[0], std::strerror(child_errno));
    return -1;
  }
  return pid;
}

namespace {
ExitStatus from_wait_status(int st) {
  ExitStatus s;
  if (WIFEXITED(st)) {
    s.kind = ExitStatus::Kind::exited;
    s.code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    s.kind = ExitStatus::Kind::signaled;
    s.signal = WTERMSIG(st);
  }
  return s;
}
} // namespace

void kill_and_reap(pid_t pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int st;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}

ExitStatus wait_child(pid_t pid, std::optional<std::chrono::steady_clock::time_point> deadline) {
  using namespace std::chrono;
  int st = 0;
  if (!deadline) {
    while (::waitpid(pid, &st, 0) < 0) {
      if (errno != EINTR) return ExitStatus{ExitStatus::Kind::not_started, errno, 0, "waitpid failed"};
    }
    return from_wait_status(st);
  }
  // Poll with a short back-off; children that need precise timeouts are
  // waited for through their pipes instead (see run_captured and the pool).
  auto sleep_for = microseconds(200);
  for (;;) {
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) return from_wait_status(st);
    if (r < 0 && errno != EINTR)
      return ExitStatus{ExitStatus::Kind::not_started, errno, 0, "waitpid failed"};
    if (steady_clock::now() >= *deadline) {
      kill_and_reap(pid);
      ExitStatus s;
      s.kind = ExitStatus::Kind::timed_out;
      return s;
    }
    ::usleep(static_cast<useconds_t>(sleep_for.count()));
    sleep_for = std::min(sleep_for * 2, microseconds(20000));
  }
}

CapturedRun run_captured(SpawnOptions options, std::chrono::milliseconds timeout,
                         size_t max_capture) {
  using namespace std::chrono;
  CapturedRun result;
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.status.error = std::strerror(errno);
    return result;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.status.error = std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return result;
  }
  options.fds.erase(std::remove_if(options.fds.begin(), options.fds.end(),
                                   [](auto& m) { return m.first == 1 || m.first == 2; }),
                    options.fds.end());
  options.fds.push_back({1, out_pipe[1]});
  options.fds.push_back({2, err_pipe[1]});
  auto start = steady_clock::now();
  pid_t pid = spawn(options, result.status);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (pid < 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return result;
  }
  std::optional<steady_clock::time_point> deadline;
  if (timeout.count() > 0) deadline = start + timeout;
  pollfd pfd[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  bool timed_out = false;
  char buf[65536];
  while (open_count > 0) {
    int wait_ms = -1;
    if (deadline) {
      auto left = duration_cast<milliseconds>(*deadline - steady_clock::now()).count();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    int r = ::poll(pfd, 2, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(pfd[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(pfd[i].fd);
        pfd[i].fd = -1;
        --open_count;
        continue;
      }
      if (sinks[i]->size() < max_capture)
        sinks[i]->append(buf, std::min<size_t>(static_cast<size_t>(n), max_capture - sinks[i]->size()));
    }
  }
  for (auto& p : pfd)
    if (p.fd >= 0) ::close(p.fd);
  if (timed_out) {
    kill_and_reap(pid);
    result.status = ExitStatus{};
    result.status.kind = ExitStatus::Kind::timed_out;
  } else {
    // Pipes closed; the child may still run (it closed its outputs). Respect the deadline.
    result.status = wait_child(pid, deadline);
  }
  result.seconds = duration<double>(steady_clock::now() - start).count();
  return result;
}

} // namespace kdet
