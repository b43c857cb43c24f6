// A scripted engine::Executor with a virtual clock, for testing planners without processes,
// sleeps or timing races: a worker says hello `start` after its launch, a compile answers what
// the model says after the time the model says, and next() moves the clock to the next event.
#pragma once

#include "kdet/engine/executor.hpp"
#include "kdet/util/hash.hpp"

#include <functional>
#include <map>
#include <queue>
#include <string>
#include <vector>

namespace kdet::testing {

class FakeExecutor final : public engine::Executor {
public:
  // The model's answer for one compile.
  struct Answer {
    backend::Status status = backend::Status::ok;
    std::string output;                  // the artifact "ptx" of a success
    std::chrono::milliseconds takes{10}; // how long the compile takes
    bool dies = false;                   // the worker is gone after it (a crash)
  };
  // What the model sees of a compile: its message, its worker's launch, and how many compiles
  // that worker made before this one.
  using Model =
      std::function<Answer(const engine::CompileMessage&, const engine::WorkerLaunch&, int before)>;

  // Something the planner did, in order, at a virtual time (ms since the start).
  struct Step {
    enum class Kind { launch, adopt, compile, quit } kind;
    engine::WorkerId worker = 0;
    long long at_ms = 0;
    uint64_t run = 0; // compile: the run index
  };

  explicit FakeExecutor(Model model,
                        std::chrono::milliseconds start = std::chrono::milliseconds(50),
                        std::string compiler_path = "")
      : m_model(std::move(model)), m_start(start), m_compiler(std::move(compiler_path)) {}

  // At `at` (virtual, since the start) the user interrupts: every busy worker is killed.
  void interrupt_at(std::chrono::milliseconds at) { m_interrupt_at = at; }
  // Launches after the first `n` fail to start (the compiler cannot load).
  void fail_starts_after(int n) { m_fail_after = n; }

  engine::WorkerId launch(const engine::WorkerLaunch& launch) override {
    const engine::WorkerId id = ++m_last;
    m_workers[id] = Worker{launch, 0, true};
    m_steps.push_back({Step::Kind::launch, id, ms_now(), 0});
    engine::ExecutorEvent ev;
    ev.kind = engine::ExecutorEvent::Kind::started;
    ev.worker = id;
    ++m_launched;
    ev.ok = m_fail_after < 0 || m_launched <= m_fail_after;
    if (ev.ok) {
      ev.hello.ok = true;
      ev.hello.identity = {"nvvm", m_compiler, "", "fake 1.0"};
    } else {
      ev.error = "the fake compiler does not load";
      m_workers.erase(id);
    }
    schedule(m_now + m_start, std::move(ev));
    return id;
  }
  engine::WorkerId adopt(engine::WorkerProcess) override {
    const engine::WorkerId id = ++m_last;
    m_workers[id] = Worker{};
    m_steps.push_back({Step::Kind::adopt, id, ms_now(), 0});
    return id;
  }
  void compile(engine::WorkerId id, const engine::CompileMessage& m,
               std::chrono::milliseconds timeout) override {
    m_steps.push_back({Step::Kind::compile, id, ms_now(), m.run_index});
    auto it = m_workers.find(id);
    engine::ExecutorEvent ev;
    ev.kind = engine::ExecutorEvent::Kind::replied;
    ev.worker = id;
    auto& r = ev.reply.message.result;
    if (it == m_workers.end()) {
      r.detail = "the worker was gone before the compile request";
      ev.reply.worker_lost = true;
      schedule(m_now, std::move(ev));
      return;
    }
    Answer a = m_model(m, it->second.launch, it->second.compiles++);
    ++m_busy;
    m_most_busy = std::max(m_most_busy, m_busy);
    auto takes = a.takes;
    if (timeout.count() > 0 && a.takes > timeout) {
      takes = timeout;
      r.status = backend::Status::timed_out;
      r.detail = "no result (killed)";
      ev.reply.worker_lost = true;
    } else {
      r.status = a.status;
      if (a.status == backend::Status::ok) {
        backend::Artifact art("ptx", a.output);
        art.size = a.output.size();
        art.hash = hash_bytes(a.output);
        r.artifacts.push_back(std::move(art));
      } else {
        r.detail = "the fake failed";
      }
      ev.reply.worker_lost = a.dies;
      ev.reply.message.compile_ns = static_cast<uint64_t>(takes.count()) * 1000000;
    }
    it->second.busy = true;
    schedule(m_now + takes, std::move(ev));
  }
  void quit(engine::WorkerId id) override {
    m_steps.push_back({Step::Kind::quit, id, ms_now(), 0});
    m_workers.erase(id);
  }
  int pid(engine::WorkerId id) const override { return m_workers.count(id) ? 1000 + id : 0; }

  std::optional<engine::ExecutorEvent> next() override {
    while (!m_queue.empty()) {
      Pending p = m_queue.top();
      m_queue.pop();
      if (m_interrupt_at && m_start_time + *m_interrupt_at <= p.at) {
        m_now = std::max(m_now, m_start_time + *m_interrupt_at);
        m_interrupt_at.reset();
        return interrupt(std::move(p));
      }
      m_now = p.at;
      auto it = m_workers.find(p.ev.worker);
      if (p.ev.kind == engine::ExecutorEvent::Kind::replied) {
        --m_busy;
        if (it != m_workers.end()) it->second.busy = false;
        if (p.ev.reply.worker_lost) m_workers.erase(p.ev.worker);
      } else if (it == m_workers.end() && p.ev.ok) {
        continue; // quit before its hello
      }
      return std::move(p.ev);
    }
    return std::nullopt;
  }
  Clock::time_point now() const override { return m_now; }

  const std::vector<Step>& steps() const { return m_steps; }
  int most_busy() const { return m_most_busy; }
  long long ms_now() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(m_now - m_start_time).count();
  }
  size_t count(Step::Kind kind) const {
    size_t n = 0;
    for (const auto& s : m_steps)
      n += s.kind == kind;
    return n;
  }

private:
  struct Worker {
    engine::WorkerLaunch launch;
    int compiles = 0;
    bool busy = false;
  };
  struct Pending {
    Clock::time_point at;
    uint64_t seq = 0;
    engine::ExecutorEvent ev;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void schedule(Clock::time_point at, engine::ExecutorEvent ev) {
    m_queue.push(Pending{at, ++m_seq, std::move(ev)});
  }
  // The interrupt: every busy compile ends as interrupted, every start as failed.
  engine::ExecutorEvent interrupt(Pending first) {
    std::vector<Pending> rest{std::move(first)};
    while (!m_queue.empty()) {
      rest.push_back(m_queue.top());
      m_queue.pop();
    }
    for (auto& p : rest) {
      if (p.ev.kind == engine::ExecutorEvent::Kind::replied) {
        p.ev.reply = {};
        p.ev.reply.interrupted = p.ev.reply.worker_lost = true;
        --m_busy;
      } else {
        p.ev.ok = false;
        p.ev.error = "interrupted";
      }
      m_workers.erase(p.ev.worker);
      p.at = m_now;
      m_queue.push(std::move(p));
    }
    engine::ExecutorEvent ev;
    ev.kind = engine::ExecutorEvent::Kind::interrupted;
    return ev;
  }

  Model m_model;
  std::chrono::milliseconds m_start;
  std::string m_compiler;
  const Clock::time_point m_start_time{std::chrono::hours(1)};
  Clock::time_point m_now = m_start_time;
  std::optional<std::chrono::milliseconds> m_interrupt_at;
  int m_fail_after = -1, m_launched = 0;
  engine::WorkerId m_last = 0;
  std::map<engine::WorkerId, Worker> m_workers;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_queue;
  uint64_t m_seq = 0;
  int m_busy = 0, m_most_busy = 0;
  std::vector<Step> m_steps;
};

} // namespace kdet::testing
