//===- engine/worker_pool.cpp - workers started ahead for the next round -------===//
#include "kdet/engine/worker_pool.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <utility>

namespace kdet::engine {

bool same_start(const WorkerLaunch& a, const WorkerLaunch& b) {
  return static_cast<const WorkerStart&>(a) == static_cast<const WorkerStart&>(b);
}

WorkerPool::WorkerPool(size_t capacity)
    : m_capacity(std::max<size_t>(1, capacity)), m_logs("pool"), m_thread([this] { loop(); }) {}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(m_mu);
    m_closing = true;
    // Told to quit before the thread that launched them ends (their parent-death signal).
    for (auto& e : m_entries)
      if (e.worker.alive()) m_quitting.push_back(e.worker.quit());
    m_entries.clear();
  }
  m_wake.notify_all();
  m_thread.join();
  stop_quitting(m_quitting, true);
}

void WorkerPool::reap_later(std::vector<pid_t>& pids) {
  {
    std::lock_guard<std::mutex> lock(m_mu);
    m_quitting.insert(m_quitting.end(), pids.begin(), pids.end());
  }
  pids.clear();
  m_wake.notify_all();
}

void WorkerPool::prestart(const WorkerLaunch& launch) {
  std::optional<Entry> evicted; // stopped (quit and reaped) by its destructor, outside the lock
  {
    std::lock_guard<std::mutex> lock(m_mu);
    if (!add(launch, evicted)) return;
  }
  m_wake.notify_all();
}

bool WorkerPool::add(const WorkerLaunch& launch, std::optional<Entry>& evicted) {
  if (m_closing) return false;
  auto same = [&](const Entry& e) { return same_start(e.launch, launch); };
  if (static_cast<size_t>(std::count_if(m_entries.begin(), m_entries.end(), same)) >= m_capacity)
    return false; // stocked already
  if (m_entries.size() >= m_capacity) {
    // Full of other starts (another compiler's): the oldest of those makes room.
    auto it = std::find_if_not(m_entries.begin(), m_entries.end(), same);
    evicted.emplace(std::move(*it));
    m_entries.erase(it);
  }
  Entry e;
  e.launch = launch;
  e.launch.log_path = fmt::format("{}/w{}.log", m_logs.path(), ++m_serial);
  m_entries.push_back(std::move(e));
  return true;
}

std::optional<WorkerProcess> WorkerPool::take(const WorkerLaunch& launch, HelloMessage* hello_out) {
  Entry e;
  std::optional<Entry> evicted;
  {
    std::lock_guard<std::mutex> lock(m_mu);
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& x) {
      return x.launched && x.worker.alive() && same_start(x.launch, launch);
    });
    if (it == m_entries.end()) return std::nullopt;
    e = std::move(*it);
    m_entries.erase(it);
    add(e.launch, evicted); // its replacement starts loading now, for a later take
  }
  m_wake.notify_all();
  HelloMessage hello;
  std::string error;
  if (!e.worker.await_hello(e.launch, hello, error)) return std::nullopt;
  if (hello_out) *hello_out = std::move(hello);
  std::lock_guard<std::mutex> lock(m_mu);
  ++m_taken;
  return std::move(e.worker);
}

size_t WorkerPool::taken() const {
  std::lock_guard<std::mutex> lock(m_mu);
  return m_taken;
}

size_t WorkerPool::launched() const {
  std::lock_guard<std::mutex> lock(m_mu);
  return static_cast<size_t>(
      std::count_if(m_entries.begin(), m_entries.end(), [](const Entry& e) { return e.launched; }));
}

bool WorkerPool::await_launched(size_t n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(m_mu);
  return m_acted.wait_for(lock, limit, [&] {
    return static_cast<size_t>(std::count_if(m_entries.begin(), m_entries.end(),
                                             [](const Entry& e) { return e.launched; })) >= n;
  });
}

bool WorkerPool::await_reaped(size_t n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(m_mu);
  return m_acted.wait_for(lock, limit, [&] { return m_reaped >= n; });
}

void WorkerPool::loop() {
  std::unique_lock<std::mutex> lock(m_mu);
  for (;;) {
    auto work = [&] {
      return m_closing || std::any_of(m_entries.begin(), m_entries.end(),
                                      [](const Entry& e) { return !e.launched; });
    };
    // Quitting workers are looked at every 10 ms until they are all reaped.
    if (m_quitting.empty())
      m_wake.wait(lock, [&] { return work() || !m_quitting.empty(); });
    else
      m_wake.wait_for(lock, std::chrono::milliseconds(10), work);
    if (m_closing) return;
    if (!m_quitting.empty()) { // reaped outside the lock: take() and prestart() go on meanwhile
      std::vector<pid_t> quitting;
      quitting.swap(m_quitting);
      const size_t before = quitting.size();
      lock.unlock();
      stop_quitting(quitting, false);
      lock.lock();
      m_reaped += before - quitting.size();
      m_quitting.insert(m_quitting.end(), quitting.begin(), quitting.end());
    }
    for (auto& e : m_entries) {
      if (e.launched) continue;
      e.launched = true;
      // Launching is a fork and an exec: quick, and the entry cannot be taken meanwhile.
      std::string error;
      e.worker.launch(e.launch, error); // a failed launch leaves it not alive: never taken
    }
    m_acted.notify_all();
  }
}

} // namespace kdet::engine
