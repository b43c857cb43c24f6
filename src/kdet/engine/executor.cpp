#include "kdet/engine/executor.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kdet::engine {

using namespace std::chrono;

namespace {

// epoll tags: the interrupt fd, else a worker's id shifted left, its low bit set for the pidfd.
constexpr uint64_t k_interrupt_tag = 0;
uint64_t pipe_tag(WorkerId id) {
  return static_cast<uint64_t>(id) << 1;
}
uint64_t pidfd_tag(WorkerId id) {
  return (static_cast<uint64_t>(id) << 1) | 1;
}

void set_nonblocking(int fd) {
  if (fd < 0) return;
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

} // namespace

struct ProcessExecutor::Entry {
  enum class State { starting, idle, compiling };
  WorkerProcess proc;
  State state = State::idle;
  // A pidfd wakes the loop when the worker dies, even while a process its compiler left holds
  // the reply pipe open (so that EOF never comes); -1 on a kernel without pidfd_open.
  int pidfd = -1;
  bool watched = false;
  FrameReader frames;
  std::optional<Clock::time_point> deadline;
  milliseconds timeout{0};

  Entry() = default;
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  ~Entry() {
    if (pidfd >= 0) ::close(pidfd);
  }
  bool busy() const { return state != State::idle; }
};

ProcessExecutor::ProcessExecutor(std::shared_ptr<WorkerPool> pool) : m_pool(std::move(pool)) {
  m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
  if (m_epoll < 0) throw Error::format("epoll_create1: {}", std::strerror(errno));
  if (interrupt_fd() >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = k_interrupt_tag;
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, interrupt_fd(), &ev);
  }
}

ProcessExecutor::~ProcessExecutor() {
  std::vector<WorkerId> ids;
  for (const auto& [id, e] : m_workers)
    ids.push_back(id);
  for (WorkerId id : ids)
    quit(id);
  if (m_pool)
    m_pool->reap_later(m_quitting);
  else
    stop_quitting(m_quitting, true);
  ::close(m_epoll);
}

void ProcessExecutor::watch(WorkerId id, Entry& e) {
  if (e.watched) return;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = pipe_tag(id);
  ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, e.proc.reply_fd(), &ev);
  if (e.pidfd >= 0) {
    ev.data.u64 = pidfd_tag(id);
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, e.pidfd, &ev);
  }
  e.watched = true;
}

void ProcessExecutor::unwatch(Entry& e) {
  if (!e.watched) return;
  if (e.proc.reply_fd() >= 0) ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, e.proc.reply_fd(), nullptr);
  if (e.pidfd >= 0) ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, e.pidfd, nullptr);
  e.watched = false;
}

WorkerId ProcessExecutor::launch(const WorkerLaunch& launch) {
  const WorkerId id = ++m_last;
  auto e = std::make_unique<Entry>();
  std::string error;
  if (!e->proc.launch(launch, error)) {
    ExecutorEvent ev;
    ev.kind = ExecutorEvent::Kind::started;
    ev.worker = id;
    ev.error = error;
    m_ready.push_back(std::move(ev));
    return id;
  }
  e->state = Entry::State::starting;
  e->deadline = Clock::now() + launch.start_timeout;
  set_nonblocking(e->proc.reply_fd());
  e->pidfd = static_cast<int>(::syscall(SYS_pidfd_open, e->proc.pid(), 0));
  watch(id, *e);
  m_workers.emplace(id, std::move(e));
  return id;
}

WorkerId ProcessExecutor::adopt(WorkerProcess worker) {
  const WorkerId id = ++m_last;
  auto e = std::make_unique<Entry>();
  e->proc = std::move(worker);
  set_nonblocking(e->proc.reply_fd());
  e->pidfd = static_cast<int>(::syscall(SYS_pidfd_open, e->proc.pid(), 0));
  m_workers.emplace(id, std::move(e));
  return id;
}

void ProcessExecutor::compile(WorkerId id, const CompileMessage& message, milliseconds timeout) {
  auto it = m_workers.find(id);
  ExecutorEvent ev;
  ev.kind = ExecutorEvent::Kind::replied;
  ev.worker = id;
  if (it == m_workers.end() || it->second->busy()) {
    WorkerProcess none; // "the worker was gone before the compile request"
    ev.reply = none.take_reply(ReadStatus::error, MessageType::quit, {}, timeout);
    m_ready.push_back(std::move(ev));
    return;
  }
  Entry& e = *it->second;
  if (!e.proc.send(message)) {
    ev.reply = e.proc.take_reply(ReadStatus::error, MessageType::quit, {}, timeout);
    m_ready.push_back(std::move(ev));
    m_workers.erase(it);
    return;
  }
  e.state = Entry::State::compiling;
  e.timeout = timeout;
  e.deadline.reset();
  if (timeout.count() > 0) e.deadline = Clock::now() + timeout;
  watch(id, e);
}

void ProcessExecutor::quit(WorkerId id) {
  auto it = m_workers.find(id);
  if (it == m_workers.end()) return;
  unwatch(*it->second);
  if (pid_t pid = it->second->proc.quit(); pid > 0) m_quitting.push_back(pid);
  m_workers.erase(it);
}

int ProcessExecutor::pid(WorkerId id) const {
  auto it = m_workers.find(id);
  return it == m_workers.end() ? 0 : it->second->proc.pid();
}

std::optional<ExecutorEvent> ProcessExecutor::next() {
  for (;;) {
    if (m_ready_next < m_ready.size()) {
      ExecutorEvent ev = std::move(m_ready[m_ready_next++]);
      if (m_ready_next == m_ready.size()) m_ready.clear(), m_ready_next = 0;
      return ev;
    }
    // Workers told to quit that have ended, reaped while the others work.
    stop_quitting(m_quitting, false);
    if (std::none_of(m_workers.begin(), m_workers.end(),
                     [](const auto& w) { return w.second->busy(); }))
      return std::nullopt;
    wait_once();
  }
}

void ProcessExecutor::wait_once() {
  const auto now = Clock::now();
  int wait_ms = -1;
  for (const auto& [id, e] : m_workers) {
    if (!e->busy() || !e->deadline) continue;
    auto left = duration_cast<milliseconds>(*e->deadline - now).count() + 1;
    left = std::clamp<long long>(left, 0, 1 << 30);
    if (wait_ms < 0 || left < wait_ms) wait_ms = static_cast<int>(left);
  }
  epoll_event evs[64];
  int n = ::epoll_wait(m_epoll, evs, 64, wait_ms);
  if (n < 0 && errno != EINTR) throw Error::format("epoll_wait: {}", std::strerror(errno));
  if (n > 0 && std::any_of(evs, evs + n,
                           [](const epoll_event& e) { return e.data.u64 == k_interrupt_tag; })) {
    interrupt_all();
    return;
  }
  // Pipes first: a worker that wrote its reply and then ended has a whole frame to read.
  for (int i = 0; i < n; ++i)
    if ((evs[i].data.u64 & 1) == 0) on_readable(static_cast<WorkerId>(evs[i].data.u64 >> 1));
  for (int i = 0; i < n; ++i)
    if ((evs[i].data.u64 & 1) == 1) on_exit(static_cast<WorkerId>(evs[i].data.u64 >> 1));
  const auto after = Clock::now();
  std::vector<WorkerId> late;
  for (const auto& [id, e] : m_workers)
    if (e->busy() && e->deadline && *e->deadline <= after) late.push_back(id);
  for (WorkerId id : late)
    conclude(id, ReadStatus::timed_out);
}

void ProcessExecutor::on_readable(WorkerId id) {
  auto it = m_workers.find(id);
  if (it == m_workers.end() || !it->second->busy()) return;
  switch (it->second->frames.read_some(it->second->proc.reply_fd())) {
  case FrameReader::Got::more:
    return;
  case FrameReader::Got::frame:
    return conclude(id, ReadStatus::ok);
  case FrameReader::Got::eof:
    return conclude(id, ReadStatus::eof);
  case FrameReader::Got::bad_frame:
    return conclude(id, ReadStatus::bad_frame);
  case FrameReader::Got::error:
    return conclude(id, ReadStatus::error);
  }
}

void ProcessExecutor::on_exit(WorkerId id) {
  auto it = m_workers.find(id);
  if (it == m_workers.end() || !it->second->busy()) return;
  // A reply it wrote just before it ended is still in the pipe; anything less is a death.
  if (it->second->frames.read_some(it->second->proc.reply_fd()) == FrameReader::Got::frame)
    return conclude(id, ReadStatus::ok);
  conclude(id, ReadStatus::eof);
}

void ProcessExecutor::conclude(WorkerId id, ReadStatus rs) {
  auto it = m_workers.find(id);
  if (it == m_workers.end()) return;
  Entry& e = *it->second;
  unwatch(e);
  e.deadline.reset();
  ExecutorEvent ev;
  ev.worker = id;
  bool gone = false;
  if (e.state == Entry::State::starting) {
    ev.kind = ExecutorEvent::Kind::started;
    ev.ok = e.proc.accept_hello(rs, e.frames.type(), e.frames.payload(), ev.hello, ev.error);
    gone = !ev.ok;
  } else {
    ev.kind = ExecutorEvent::Kind::replied;
    ev.reply = e.proc.take_reply(rs, e.frames.type(), e.frames.payload(), e.timeout);
    gone = ev.reply.worker_lost;
  }
  e.state = Entry::State::idle;
  m_ready.push_back(std::move(ev));
  if (gone) m_workers.erase(it);
}

void ProcessExecutor::interrupt_all() {
  ExecutorEvent ev;
  ev.kind = ExecutorEvent::Kind::interrupted;
  m_ready.push_back(std::move(ev));
  std::vector<WorkerId> busy;
  for (const auto& [id, e] : m_workers)
    if (e->busy()) busy.push_back(id);
  for (WorkerId id : busy)
    conclude(id, ReadStatus::interrupted);
}

} // namespace kdet::engine
