//===- scan/scheduler.cpp - adaptive rounds of each job on a thread pool -------===//
//
// The slots' loop and the choice of each slot's next job (JobScheduler::take); a job's rounds
// are in job_rounds.cpp.
//
//===----------------------------------------------------------------------===//
#include "kdet/scan/scheduler.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/scan/job_scheduler.hpp"
#include "kdet/util/cores.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <thread>

namespace kdet::scan {

store::JobRow initial_row(const Manifest& m, const Job& job) {
  store::JobRow r;
  r.id = job.id;
  r.input = job.input->name;
  r.input_hash = job.input_hash;
  r.compiler = m.compilers[job.compiler].name;
  r.target = job.target;
  r.option_set = option_set_name(m, job);
  r.options = job.options;
  r.seed = job.seed;
  r.budget = job_budget(m);
  r.expected_vary = job.expect != nullptr;
  r.expect_reason = job.expect ? job.expect->reason : "";
  if (job.bundle) r.kernels = job.bundle->kernels;
  if (job.bundle) r.kernels = job.bundle->kernels;
  return r;
}

namespace {

// A failing store fails every slot's next push the same way: one message each.
void add_error(ScheduleStats& stats, const std::string& what) {
  if (std::find(stats.errors.begin(), stats.errors.end(), what) == stats.errors.end())
    stats.errors.push_back(what);
}

} // namespace

JobScheduler::JobScheduler(const Manifest& m, const std::vector<Job>& jobs,
                           std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                           const ScheduleOptions& options)
    : m_m(m), m_jobs(jobs), m_state(state), m_writer(writer), m_options(options),
      m_threads(std::max(1, options.threads)), m_left{options.seconds_per_run} {
  m_total = jobs.size();
  for (const auto& j : jobs) {
    const store::JobRow& r = state.at(j.id);
    if (r.done) {
      ++m_already;
      if (r.varies()) ++m_varying;
      continue;
    }
    ++m_todo;
    m_left.runs += r.budget - std::min(r.budget, r.runs);
    if (r.runs == 0)
      m_fresh.push_back(&j);
    else
      m_ready.emplace_back(work_left(r), &j);
  }
  m_ahead = m_threads < static_cast<int>(usable_cores());
  if (!options.execute && m_ahead)
    m_workers_ahead = std::make_shared<engine::WorkerPool>(static_cast<size_t>(m_threads));
}

ScheduleStats JobScheduler::run() {
  int n = std::min<int>(m_threads, static_cast<int>(std::max<size_t>(1, m_todo)));
  m_idle_slots.store(m_threads - n);
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t)
    pool.emplace_back([this] { slot_main(); });
  slot_main();
  for (auto& t : pool)
    t.join();
  try {
    m_writer.flush();
  } catch (const std::exception& e) {
    add_error(m_stats, e.what());
  }
  if (m_todo) report_progress(true, true);
  m_stats.interrupted = engine::interrupted();
  m_stats.seconds = std::chrono::duration<double>(Clock::now() - m_t0).count();
  return m_stats;
}

double JobScheduler::seconds_per_run(const store::JobRow& row) const { // under m_mu once slots run
  auto it = m_run_seconds.find(row.id);
  if (it != m_run_seconds.end() && it->second.first > 0)
    return it->second.first / static_cast<double>(it->second.second);
  return row.runs > 0 ? row.seconds / static_cast<double>(row.runs) : 0.0;
}

// How long a job's remaining runs are expected to take on one slot.
double JobScheduler::work_left(const store::JobRow& row) const {
  return seconds_per_run(row) * static_cast<double>(row.budget - std::min(row.budget, row.runs));
}

engine::RunOutput JobScheduler::exec(const engine::RunPlan& p) const {
  return m_options.execute ? m_options.execute(p) : engine::execute(p);
}

void JobScheduler::report_progress(bool force, bool last) {
  if (!m_options.progress) return;
  auto now = Clock::now();
  if (!force && now - m_last_report < std::chrono::milliseconds(200)) return;
  m_last_report = now;
  size_t done_now = m_finished.load();
  ScanProgress p;
  p.done = m_already + done_now;
  p.total = m_total;
  p.varying = m_varying.load();
  p.runs = m_stats.runs; // under m_mu, as every change of it
  p.last = last;
  p.seconds_left = done_now == m_todo ? 0 : m_left.seconds(m_options.threads, m_todo - done_now);
  m_options.progress(p);
}

// The open round with the most runs not yet taken, if any (under m_mu).
std::shared_ptr<OpenRound> JobScheduler::joinable() const {
  std::shared_ptr<OpenRound> best;
  uint64_t most = 0;
  for (const auto& r : m_open_rounds)
    if (uint64_t left = r->plan.queue->left(); left > most) best = r, most = left;
  return best;
}

// The open round whose job has the most work left (its runs not taken and its later rounds, at
// its seconds per run so far), if one has runs not taken; and that work (under m_mu).
std::pair<std::shared_ptr<OpenRound>, double> JobScheduler::critical() const {
  std::pair<std::shared_ptr<OpenRound>, double> best{nullptr, 0.0};
  for (const auto& r : m_open_rounds)
    if (uint64_t left = r->plan.queue->left(); left > 0) {
      double work = r->per_run * static_cast<double>(left + r->runs_after);
      if (!best.first || work > best.second) best = {r, work};
    }
  return best;
}

// The slot back from m_idle_slots, unless a round borrowed it.
bool JobScheduler::reclaim(bool& idle) {
  if (!idle) return true;
  for (int n = m_idle_slots.load(); n > 0;)
    if (m_idle_slots.compare_exchange_weak(n, n - 1)) return !(idle = false);
  return false;
}

// The next job to run and whether only its first round is due: every job's first round first (in
// planned order), then the job expected to take longest, unless a running job's open round has
// runs not taken and that job has more work left: then that round, to join (`join` set, nullptr
// returned). With no job to take, the open round with the most runs not taken. Waits while jobs
// are running that may add a job or open a round, its slot idle meanwhile (so a starting round
// may borrow it, and the wait lasts until it is given back); nullptr when nothing is left, `idle`
// then saying whether the slot is already counted idle.
const Job* JobScheduler::take(bool& first_only, bool& idle, std::shared_ptr<OpenRound>& join) {
  std::unique_lock<std::mutex> lock(m_mu);
  idle = false;
  for (;;) {
    if (stopping()) return nullptr;
    if (m_next_fresh < m_fresh.size() && reclaim(idle)) {
      first_only = true;
      ++m_jobs_running;
      return m_fresh[m_next_fresh++];
    }
    if (!m_ready.empty() && reclaim(idle)) {
      auto it = std::max_element(m_ready.begin(), m_ready.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
      // A job already running with more work left than any waiting one is the scan's tail in
      // the making: help it now rather than when nothing else is left.
      if (auto [r, work] = critical(); r && work > it->first) {
        ++r->joiners;
        join = std::move(r);
        return nullptr;
      }
      const Job* j = it->second;
      m_ready.erase(it);
      first_only = false;
      ++m_jobs_running;
      if (!m_ready.empty()) m_queue_changed.notify_all(); // more for the waiting slots
      return j;
    }
    if (auto r = joinable(); r && reclaim(idle)) {
      ++r->joiners;
      join = std::move(r);
      return nullptr;
    }
    if (m_next_fresh == m_fresh.size() && m_ready.empty() && m_jobs_running == 0) {
      m_queue_changed.notify_all(); // the waiting slots are done too
      return nullptr;
    }
    if (!idle) {
      idle = true;
      m_idle_slots.fetch_add(1);
    }
    m_queue_changed.wait_for(lock, std::chrono::milliseconds(100));
  }
}

// A slot is done with a job for now (its first round, or all its rounds; or it failed). The
// waiting slots are woken only when no job runs any more, so that they can finish: otherwise
// this slot takes the next job itself (take() wakes them when more is left), so that none takes
// it while this slot, about to be idle, would be missed by the round's borrowing.
void JobScheduler::job_ended() {
  std::lock_guard<std::mutex> lock(m_mu);
  if (--m_jobs_running == 0) m_queue_changed.notify_all(); // the waiting slots may be done
}

void JobScheduler::work(bool& idle) {
  for (;;) {
    bool first_only = false;
    std::shared_ptr<OpenRound> join;
    const Job* job = take(first_only, idle, join);
    if (join) {
      join_round(*join, true);
      continue;
    }
    if (!job) return;
    try {
      run_job(*job, first_only);
    } catch (...) {
      job_ended();
      throw;
    }
    job_ended();
  }
}

// A failing store (disk full, database locked by another writer) ends the scan with its message.
void JobScheduler::slot_main() {
  bool idle = false;
  try {
    work(idle);
  } catch (const std::exception& e) {
    m_aborted.store(true);
    std::lock_guard<std::mutex> lock(m_mu);
    add_error(m_stats, e.what());
  }
  if (!idle) m_idle_slots.fetch_add(1); // no job left for this slot: a running round may borrow it
}

ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options) {
  return JobScheduler(m, jobs, state, writer, options).run();
}

} // namespace kdet::scan
