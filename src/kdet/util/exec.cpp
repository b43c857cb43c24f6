#include "kdet/util/exec.hpp"

#include "kdet/util/exec_child.hpp"
#include "kdet/util/reap.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
  for (char** e = environ; e && *e; ++e)
    env.emplace_back(*e);
  return env;
}

std::vector<std::string> with_env_changes(std::vector<std::string> env,
                                          const std::vector<std::string>& changes) {
  for (const auto& c : changes) {
    auto eq = c.find('=');
    std::string prefix = c.substr(0, eq) + "=";
    std::erase_if(env,
                  [&](const std::string& x) { return x.compare(0, prefix.size(), prefix) == 0; });
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

namespace {

// The limit on open files kdet started with, once raise_open_file_limit() raised it.
std::optional<rlimit>& started_open_files() {
  static std::optional<rlimit> limit;
  return limit;
}

const rlimit* start_open_files() {
  const auto& l = started_open_files();
  return l ? &*l : nullptr;
}

} // namespace

void raise_open_file_limit() {
  rlimit now{};
  if (started_open_files() || ::getrlimit(RLIMIT_NOFILE, &now) != 0 || now.rlim_cur >= now.rlim_max)
    return;
  rlimit raised = now;
  raised.rlim_cur = now.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) started_open_files() = now;
}

bool system_aslr_enabled() {
  std::ifstream f("/proc/sys/kernel/randomize_va_space");
  int v = 2;
  if (f >> v) return v != 0;
  return true;
}

using detail::k_stage_chdir;
using detail::Prepared;

namespace {
std::vector<int>& inherited_fds() {
  static std::vector<int> fds;
  return fds;
}
} // namespace

void note_inherited_fds() {
  std::vector<int>& fds = inherited_fds();
  fds.clear();
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  const int own = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long fd = std::strtol(e->d_name, &end, 10);
    if (*end || end == e->d_name || fd < 3 || fd == own) continue;
    int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) fds.push_back(static_cast<int>(fd));
  }
  ::closedir(d);
}

pid_t spawn(const SpawnOptions& options, ExitStatus& status) {
  status = ExitStatus{};
  if (options.argv.empty()) {
    status.error = "empty command";
    return -1;
  }
  Prepared p;
  p.program = options.program.empty() ? find_program(options.argv[0]) : options.program;
  if (p.program.empty()) {
    status.code = ENOENT;
    status.error = fmt::format("{}: not found in PATH", options.argv[0]);
    return -1;
  }
  p.argv_store = options.argv;
  for (auto& a : p.argv_store)
    p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  char** envp = environ;
  if (options.env) {
    p.env_store = *options.env;
    for (auto& e : p.env_store)
      p.env.push_back(e.data());
    p.env.push_back(nullptr);
    envp = p.env.data();
  }
  for (const auto& m : options.fds) {
    if (m.first < 0) {
      status.code = EBADF;
      status.error = fmt::format("bad fd mapping to {}", m.first);
      return -1;
    }
    p.low = std::max(p.low, m.first + 1);
  }
  p.linger_ms = options.guard_linger.count();
  p.linger_marker = options.guard_linger_marker;
  p.moved.assign(options.fds.size(), -1);
  p.is_target.assign(static_cast<size_t>(p.low), 0);
  for (const auto& m : options.fds)
    p.is_target[static_cast<size_t>(m.first)] = 1;
  if (options.inherit_fds)
    for (int fd : inherited_fds())
      if (fd >= p.low || !p.is_target[static_cast<size_t>(fd)]) p.inherited.push_back(fd);

  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    status.code = errno;
    status.error = fmt::format("pipe: {}", std::strerror(errno));
    return -1;
  }
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);

  const detail::ChildStart child{&options,          &p, envp, err_pipe[1], devnull, ::getpid(),
                                 start_open_files()};
  // A child that only sets itself up and execs shares this process's memory until it does (no
  // copy of kdet's page tables, the loop thread's largest cost per worker start); the PID
  // namespace's relay and the guard live on without exec, so they are forked.
  const bool share = detail::k_can_share_memory && !options.new_pid_namespace && !options.guard;
  pid_t pid;
  int start_errno = 0;
  {
    // Held across the start so kill_orphans() never takes the new child for an orphan.
    std::lock_guard<std::mutex> lock(detail::children_mutex());
    pid = share ? detail::start_sharing_memory(child) : -1;
    // A kernel or seccomp filter that refuses the clone gets a fork.
    if (!share || (pid < 0 && errno != EAGAIN && errno != ENOMEM)) pid = ::fork();
    start_errno = errno;
    if (pid > 0) detail::note_child(pid);
  }
  if (pid == 0) detail::run_child(child); // forked
  if (pid < 0) {
    status.code = start_errno;
    status.error = fmt::format("fork: {}", std::strerror(start_errno));
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    if (devnull >= 0) ::close(devnull);
    return -1;
  }
  ::close(err_pipe[1]);
  if (devnull >= 0) ::close(devnull);
  int msg[2] = {0, 0};
  ssize_t r;
  do {
    r = ::read(err_pipe[0], msg, sizeof msg);
  } while (r < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  if (r == sizeof msg) {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    detail::forget_child(pid);
    status.code = msg[0];
    status.error = msg[1] == k_stage_chdir
                       ? fmt::format("cannot enter the working folder {}: {}", options.cwd,
                                     std::strerror(msg[0]))
                       : fmt::format("{}: {}", options.argv[0], std::strerror(msg[0]));
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

// Reaps `pid` (blocking) and takes it off the registry.
ExitStatus reap(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      detail::forget_child(pid);
      return ExitStatus{ExitStatus::Kind::not_started, errno, 0, "waitpid failed"};
    }
  }
  detail::forget_child(pid);
  return from_wait_status(st);
}

// True once `pid` has ended (it stays unreaped, so its pid and process group
// id cannot be reused yet).
bool has_ended(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Waits until `pid` ends, `deadline` passes or `interrupt_fd` is readable;
// returns 0, 1 or 2 accordingly. Does not reap.
int await_end(pid_t pid, std::chrono::steady_clock::time_point deadline, int interrupt_fd) {
  using namespace std::chrono;
  steady_clock::duration nap = microseconds(200);
  for (;;) {
    if (has_ended(pid)) return 0;
    auto now = steady_clock::now();
    if (now >= deadline) return 1;
    auto wait = std::min<steady_clock::duration>(nap, deadline - now);
    pollfd pf{interrupt_fd, POLLIN, 0};
    int ms = static_cast<int>(std::max<long long>(1, duration_cast<milliseconds>(wait).count()));
    if (interrupt_fd >= 0) {
      if (::poll(&pf, 1, ms) > 0 && (pf.revents & POLLIN)) return 2;
    } else {
      ::usleep(static_cast<useconds_t>(duration_cast<microseconds>(wait).count()));
    }
    nap = std::min<steady_clock::duration>(nap * 2, milliseconds(20));
  }
}

// Kills the child's group (or the child) with `sig`.
void signal_tree(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);
}
} // namespace

void kill_and_reap(pid_t pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  reap(pid);
}

bool try_reap(pid_t pid) {
  if (pid <= 0 || !has_ended(pid)) return false;
  reap(pid);
  return true;
}

ExitStatus terminate_and_reap(pid_t pid, std::chrono::milliseconds grace) {
  if (pid <= 0) return {};
  signal_tree(pid, SIGTERM);
  await_end(pid, std::chrono::steady_clock::now() + grace, -1);
  // Whatever is left of the group (a member that ignores SIGTERM) goes now,
  // before the reap frees the group's id.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  return reap(pid);
}

ExitStatus wait_child(pid_t pid, std::optional<std::chrono::steady_clock::time_point> deadline,
                      int interrupt_fd) {
  using namespace std::chrono;
  if (!deadline && interrupt_fd < 0) return reap(pid);
  auto until = deadline ? *deadline : steady_clock::time_point::max();
  switch (await_end(pid, until, interrupt_fd)) {
  case 0:
    return reap(pid);
  case 1: {
    terminate_and_reap(pid);
    ExitStatus s;
    s.kind = ExitStatus::Kind::timed_out;
    return s;
  }
  default:
    return terminate_and_reap(pid);
  }
}

CapturedRun run_captured(SpawnOptions options, std::chrono::milliseconds timeout,
                         size_t max_capture, int interrupt_fd) {
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
  // A pidfd tells when the command ends even while a process it left behind
  // holds its output open; without one, poll in short slices.
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  // pfd[3]: an interrupt ends the command as a timeout does (its group too).
  pollfd pfd[4] = {{out_pipe[0], POLLIN, 0},
                   {err_pipe[0], POLLIN, 0},
                   {pidfd, POLLIN, 0},
                   {interrupt_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  bool timed_out = false, ended = false, interrupted = false;
  char buf[65536];
  auto read_one = [&](int i) {
    ssize_t n = ::read(pfd[i].fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
      ::close(pfd[i].fd);
      pfd[i].fd = -1;
      return false;
    }
    if (sinks[i]->size() < max_capture)
      sinks[i]->append(buf,
                       std::min<size_t>(static_cast<size_t>(n), max_capture - sinks[i]->size()));
    return true;
  };
  for (;;) {
    if (pfd[0].fd < 0 && pfd[1].fd < 0) break;
    int wait_ms = pidfd >= 0 ? -1 : 20;
    if (deadline) {
      auto left = duration_cast<milliseconds>(*deadline - steady_clock::now()).count();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(
          wait_ms < 0 ? left + 1 : std::min<long long>(left + 1, wait_ms), 1 << 30));
    }
    // Entries whose fd is -1 (no pidfd, no interrupt fd) are ignored by poll.
    int r = ::poll(pfd, 4, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (interrupt_fd >= 0 && (pfd[3].revents & POLLIN)) {
      interrupted = true;
      break;
    }
    for (int i = 0; i < 2; ++i)
      if (pfd[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) read_one(i);
    if ((pidfd >= 0 && (pfd[2].revents & POLLIN)) || (pidfd < 0 && has_ended(pid))) {
      ended = true;
      break;
    }
  }
  if (ended) {
    // Take what is already written; a process left behind holding the pipes
    // open is not waited for.
    for (int rounds = 0; rounds < 4096; ++rounds) {
      pollfd drain[2] = {{pfd[0].fd, POLLIN, 0}, {pfd[1].fd, POLLIN, 0}};
      if (::poll(drain, 2, 0) <= 0) break;
      bool any = false;
      for (int i = 0; i < 2; ++i)
        if (pfd[i].fd >= 0 && (drain[i].revents & (POLLIN | POLLHUP | POLLERR)))
          any = read_one(i) || any;
      if (!any) break;
    }
  }
  for (int i = 0; i < 2; ++i)
    if (pfd[i].fd >= 0) ::close(pfd[i].fd);
  if (pidfd >= 0) ::close(pidfd);
  if (interrupted) {
    result.status = terminate_and_reap(pid);
  } else if (timed_out) {
    terminate_and_reap(pid);
    result.status = ExitStatus{};
    result.status.kind = ExitStatus::Kind::timed_out;
  } else {
    if (!ended &&
        await_end(pid, deadline ? *deadline : steady_clock::time_point::max(), interrupt_fd) == 2) {
      result.status = terminate_and_reap(pid); // interrupted after it closed its outputs
    } else if (!has_ended(pid)) {              // it closed its outputs and ran on past the deadline
      terminate_and_reap(pid);
      result.status = ExitStatus{};
      result.status.kind = ExitStatus::Kind::timed_out;
    } else {
      // Its group may still hold members (the pid stays reserved until the reap).
      if (options.new_process_group) ::kill(-pid, SIGKILL);
      result.status = reap(pid);
    }
  }
  // Processes it left that left its group (setsid) were adopted by this subreaper.
  if (is_subreaper()) kill_orphans();
  result.seconds = duration<double>(steady_clock::now() - start).count();
  return result;
}

} // namespace kdet
