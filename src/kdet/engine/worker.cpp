#include "kdet/engine/worker.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/worker_main.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/reap.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace kdet::engine {

using namespace std::chrono;

namespace {

bool readable(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

// One fd that becomes readable when the interrupt fd does or the process
// `pid` ends (an epoll set over the interrupt fd and a pidfd), so the frame
// reader, which watches one extra fd, wakes for either.
class WakeFd {
public:
  WakeFd(int interrupt_fd, pid_t pid) {
    m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (m_pidfd < 0) {
      m_fd = interrupt_fd; // old kernel: wake on the interrupt only, as before
      return;
    }
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    if (m_epoll < 0 || ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_pidfd, &ev) != 0 ||
        (interrupt_fd >= 0 && ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, interrupt_fd, &ev) != 0)) {
      m_fd = interrupt_fd;
      return;
    }
    m_fd = m_epoll;
  }
  ~WakeFd() {
    if (m_epoll >= 0) ::close(m_epoll);
    if (m_pidfd >= 0) ::close(m_pidfd);
  }
  WakeFd(const WakeFd&) = delete;
  WakeFd& operator=(const WakeFd&) = delete;
  int fd() const { return m_fd; }

private:
  int m_pidfd = -1, m_epoll = -1, m_fd = -1;
};

} // namespace

WorkerProcess::~WorkerProcess() {
  stop();
}

WorkerProcess& WorkerProcess::operator=(WorkerProcess&& other) noexcept {
  if (this == &other) return *this;
  stop();
  m_pid = std::exchange(other.m_pid, -1);
  m_request_fd = std::exchange(other.m_request_fd, -1);
  m_reply_fd = std::exchange(other.m_reply_fd, -1);
  m_log_path = std::move(other.m_log_path);
  m_log_offset = other.m_log_offset;
  m_clock = std::move(other.m_clock);
  return *this;
}

bool WorkerProcess::start(const WorkerLaunch& launch, HelloMessage& hello, std::string& error) {
  return this->launch(launch, error) && await_hello(launch, hello, error);
}

bool WorkerProcess::launch(const WorkerLaunch& launch, std::string& error) {
  int req[2], rep[2];
  if (::pipe2(req, O_CLOEXEC) != 0 || ::pipe2(rep, O_CLOEXEC) != 0) {
    error = fmt::format("pipe: {}", std::strerror(errno));
    return false;
  }
  int log_fd = ::open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  m_log_path = launch.log_path;
  struct stat st {};
  m_log_offset = (log_fd >= 0 && ::fstat(log_fd, &st) == 0) ? st.st_size : 0;

  SpawnOptions opt;
  const bool this_kdet = launch.exe.empty();
  opt.argv = {this_kdet ? self_exe() : launch.exe, k_worker_command, "--backend",
              backend::to_string(launch.backend.kind)};
  if (this_kdet) opt.program = k_self_exe_link;
  if (!launch.backend.lib.empty()) opt.argv.insert(opt.argv.end(), {"--lib", launch.backend.lib});
  if (!launch.backend.command.empty())
    opt.argv.insert(opt.argv.end(), {"--cmd", launch.backend.command});
  if (!launch.backend.output_ext.empty())
    opt.argv.insert(opt.argv.end(), {"--ext", launch.backend.output_ext});
  if (!launch.backend.function.empty())
    opt.argv.insert(opt.argv.end(), {"--function", launch.backend.function});
  if (!launch.backend.python.empty())
    opt.argv.insert(opt.argv.end(), {"--python", launch.backend.python});
  const perturb::Launch& f = launch.factors;
  if (f.threads > 0) {
    opt.argv.insert(opt.argv.end(), {"--threads", std::to_string(f.threads), "--thread-seed",
                                     std::to_string(f.thread_seed)});
  }
  if (f.private_mounts) opt.argv.insert(opt.argv.end(), {"--private-mounts", "1"});
  if (f.private_uts) opt.argv.insert(opt.argv.end(), {"--private-uts", "1"});
  opt.env = launch.env;
  if (env_sets_faketime(launch.env)) {
    m_clock = std::make_unique<FaketimeShared>();
    if (!m_clock->env().empty()) opt.env = with_env_changes(launch.env, {m_clock->env()});
  }
  opt.disable_aslr = f.disable_aslr;
  opt.new_pid_namespace = f.pid_namespace;
  opt.fds = {{0, -1}, {1, log_fd}, {2, log_fd}, {3, req[0]}, {4, rep[1]}};
  ExitStatus status;
  m_pid = spawn(opt, status);
  ::close(req[0]);
  ::close(rep[1]);
  if (log_fd >= 0) ::close(log_fd);
  m_request_fd = req[1];
  m_reply_fd = rep[0];
  if (m_pid < 0) {
    error = status.describe();
    ::close(m_request_fd);
    ::close(m_reply_fd);
    m_request_fd = m_reply_fd = -1;
    m_clock.reset();
    return false;
  }
  return true;
}

bool WorkerProcess::await_hello(const WorkerLaunch& launch, HelloMessage& hello,
                                std::string& error) {
  MessageType type{};
  std::string payload;
  ReadStatus rs = read_frame(m_reply_fd, type, payload, steady_clock::now() + launch.start_timeout,
                             interrupt_fd());
  return accept_hello(rs, type, payload, hello, error);
}

bool WorkerProcess::accept_hello(ReadStatus rs, MessageType type, const std::string& payload,
                                 HelloMessage& hello, std::string& error) {
  if (rs != ReadStatus::ok || type != MessageType::hello || !decode(payload, hello)) {
    std::string tail = log_tail(2048);
    lose();
    error = rs == ReadStatus::interrupted ? "interrupted"
            : rs == ReadStatus::timed_out
                ? "the worker did not start in time (loading the compiler hung?)"
                : "the worker died while loading the compiler";
    if (!tail.empty()) error += ": " + tail;
    return false;
  }
  if (!hello.ok) {
    error = hello.error;
    stop();
    return false;
  }
  return true;
}

bool WorkerProcess::send(const CompileMessage& message) {
  if (write_frame(m_request_fd, MessageType::compile, encode(message))) return true;
  lose();
  return false;
}

WorkerReply WorkerProcess::compile(const CompileMessage& message, milliseconds timeout,
                                   int interrupt_fd) {
  if (!send(message)) return take_reply(ReadStatus::error, MessageType::quit, {}, timeout);
  std::optional<steady_clock::time_point> deadline;
  if (timeout.count() > 0) deadline = steady_clock::now() + timeout;
  MessageType type{};
  std::string payload;
  // Wake on the interrupt or on the worker's death: a process the compiler
  // left behind may hold the reply pipe open, so EOF alone cannot tell.
  WakeFd wake(interrupt_fd, m_pid);
  ReadStatus rs = read_frame(m_reply_fd, type, payload, deadline, wake.fd());
  if (rs == ReadStatus::interrupted && !readable(interrupt_fd)) {
    // The worker ended. A reply it wrote just before is still in the pipe.
    rs = read_frame(m_reply_fd, type, payload, steady_clock::now() + milliseconds(100));
    if (rs != ReadStatus::ok) rs = ReadStatus::eof;
  }
  return take_reply(rs, type, payload, timeout);
}

WorkerReply WorkerProcess::take_reply(ReadStatus rs, MessageType type, const std::string& payload,
                                      milliseconds timeout) {
  WorkerReply reply;
  auto& r = reply.message.result;
  if (m_pid <= 0) {
    // The worker was gone before kdet could ask (send() failed and lost it).
    r.status = backend::Status::infra_error;
    r.detail = "the worker was gone before the compile request";
    reply.worker_lost = true;
    return reply;
  }
  if (rs == ReadStatus::ok && type == MessageType::result && decode(payload, reply.message))
    return reply;

  reply.worker_lost = true;
  r = backend::CompileResult{};
  switch (rs) {
  case ReadStatus::timed_out:
    r.status = backend::Status::timed_out;
    r.detail = fmt::format("no result after {} (killed)",
                           timeout.count() % 1000 ? fmt::format("{} ms", timeout.count())
                                                  : fmt::format("{} s", timeout.count() / 1000));
    lose();
    break;
  case ReadStatus::interrupted:
    reply.interrupted = true;
    r.status = backend::Status::infra_error;
    r.detail = "interrupted";
    lose();
    break;
  case ReadStatus::eof: {
    // The worker died mid-compile: the compiler crashed or called exit().
    ::close(m_request_fd);
    ::close(m_reply_fd);
    m_request_fd = m_reply_fd = -1;
    ExitStatus st = wait_child(m_pid, steady_clock::now() + seconds(10));
    m_pid = -1;
    kill_orphans();
    r.log = log_tail(4096);
    if (st.kind == ExitStatus::Kind::signaled) {
      r.status = backend::Status::crashed;
      r.signal = st.signal;
      r.detail = fmt::format("compiler {}", st.describe());
    } else {
      r.status = backend::Status::crashed;
      r.code = st.code;
      r.detail = fmt::format("the process {} during the compile (the compiler called exit?)",
                             st.describe());
    }
    break;
  }
  default:
    r.status = backend::Status::infra_error;
    r.detail = "garbled reply from the worker (the compiler wrote into kdet's pipe?)";
    r.log = log_tail(4096);
    lose();
    break;
  }
  return reply;
}

void WorkerProcess::lose() {
  if (m_request_fd >= 0) ::close(m_request_fd);
  if (m_reply_fd >= 0) ::close(m_reply_fd);
  m_request_fd = m_reply_fd = -1;
  if (m_pid > 0) kill_and_reap(m_pid);
  m_pid = -1;
  // Its compiler and whatever that started were handed to this process.
  kill_orphans();
  m_clock.reset();
}

pid_t WorkerProcess::quit() {
  if (m_pid <= 0) return -1;
  write_frame(m_request_fd, MessageType::quit, {});
  ::close(m_request_fd);
  m_request_fd = -1;
  if (m_reply_fd >= 0) ::close(m_reply_fd);
  m_reply_fd = -1;
  m_clock.reset();
  return std::exchange(m_pid, -1);
}

void stop_quitting(std::vector<pid_t>& pids, bool wait) {
  if (pids.empty()) return;
  auto until = steady_clock::now() + seconds(5);
  size_t left = 0;
  for (pid_t pid : pids)
    if (wait)
      wait_child(pid, until, interrupt_fd());
    else if (!try_reap(pid))
      pids[left++] = pid;
  const bool reaped = left < pids.size() || wait;
  pids.resize(wait ? 0 : left);
  // A compiler's own children that outlived their worker were handed to this process.
  if (reaped) kill_orphans();
}

void WorkerProcess::stop() {
  if (m_pid <= 0) return;
  std::vector<pid_t> pid{quit()};
  stop_quitting(pid, true);
}

std::string WorkerProcess::log_tail(size_t max_bytes) const {
  int fd = ::open(m_log_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  ::fstat(fd, &st);
  long long start =
      std::max<long long>(m_log_offset, st.st_size - static_cast<long long>(max_bytes));
  std::string out;
  if (st.st_size > start) {
    out.resize(static_cast<size_t>(st.st_size - start));
    ssize_t n = ::pread(fd, out.data(), out.size(), start);
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  ::close(fd);
  return out;
}

} // namespace kdet::engine
