//===- scan/scheduler.cpp - adaptive rounds of each job on one executor -------===//
//
// The loop and the choice of what a free compile slot does next (JobScheduler::fill); a job's
// rounds are in job_rounds.cpp.
//
//===----------------------------------------------------------------------===//
#include "kdet/scan/scheduler.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/scan/job_scheduler.hpp"
#include "kdet/util/cores.hpp"

#include <algorithm>
#include <fmt/format.h>

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
  return r;
}

JobScheduler::JobScheduler(const Manifest& m, const std::vector<Job>& jobs,
                           std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                           const ScheduleOptions& options)
    : m_m(m), m_jobs(jobs), m_state(state), m_writer(writer), m_options(options),
      m_threads(std::max(1, options.threads)),
      m_ahead(m_threads <= static_cast<int>(usable_cores())),
      m_workers_ahead(!options.executor && m_threads < static_cast<int>(usable_cores())
                          ? std::make_shared<engine::WorkerPool>(static_cast<size_t>(m_threads))
                          : nullptr),
      m_own_executor(options.executor ? nullptr
                                      : std::make_unique<engine::ProcessExecutor>(m_workers_ahead)),
      m_executor(options.executor ? *options.executor : *m_own_executor),
      m_loop(m_executor), m_left{options.seconds_per_run} {
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
}

// The one loop: each event goes to its round's session; a round that ended is folded and
// stored, and its job's next round starts; then free compile slots are given out again.
ScheduleStats JobScheduler::run() {
  fill();
  start_ahead();
  while (m_loop.size() > 0) {
    const auto ended = m_loop.step();
    release_early(ended);
    for (const auto& e : ended)
      end_round(e);
    fill();
    start_ahead();
    if (!ended.empty()) report_progress(false, false);
  }
  try {
    m_writer.flush();
  } catch (const std::exception& e) {
    add_error(m_stats, e.what());
  }
  if (m_todo) report_progress(true, true);
  m_stats.interrupted = engine::interrupted() || m_interrupted;
  m_stats.seconds = std::chrono::duration<double>(Clock::now() - m_t0).count();
  return m_stats;
}

double JobScheduler::seconds_per_run(const store::JobRow& row) const {
  auto it = m_run_seconds.find(row.id);
  if (it != m_run_seconds.end() && it->second.first > 0)
    return it->second.first / static_cast<double>(it->second.second);
  return row.runs > 0 ? row.seconds / static_cast<double>(row.runs) : 0.0;
}

// How long a job's remaining runs are expected to take on one slot.
double JobScheduler::work_left(const store::JobRow& row) const {
  return seconds_per_run(row) * static_cast<double>(row.budget - std::min(row.budget, row.runs));
}

void JobScheduler::report_progress(bool force, bool last) {
  if (!m_options.progress) return;
  auto now = Clock::now();
  if (!force && now - m_last_report < std::chrono::milliseconds(200)) return;
  m_last_report = now;
  ScanProgress p;
  p.done = m_already + m_finished;
  p.total = m_total;
  p.varying = m_varying;
  p.runs = m_stats.runs;
  p.last = last;
  p.seconds_left =
      m_finished == m_todo ? 0 : m_left.seconds(m_options.threads, m_todo - m_finished);
  m_options.progress(p);
}

// Compile slots no running round holds.
int JobScheduler::free_slots() const {
  int busy = 0;
  for (const auto& r : m_rounds)
    busy += r.session->busy_slots();
  return m_threads - busy;
}

// The running round whose job has the most work left (its runs not yet taken and its later
// rounds, at its seconds per run so far), if one has runs not taken; and that work.
Round* JobScheduler::critical(double& work) {
  Round* best = nullptr;
  for (auto& r : m_rounds)
    if (r.plan.shared.queue && !r.held)
      if (uint64_t left = r.plan.shared.queue->left(); left > 0) {
        const double w = r.per_run * static_cast<double>(left + r.runs_after);
        if (!best || w > work) best = &r, work = w;
      }
  return best;
}

// Gives out the free compile slots: every job's first round first (in planned order); then, if a
// running round's job has more work left than the waiting job expected to take longest, one
// more slot to that round (the scan's tail in the making: help it now rather than when nothing
// else is left), else that waiting job's next round; with no job waiting, the rounds with the
// most runs not yet taken get the slots left, as many as they can take. `free` counts down what
// is given here: a round still loading its compiler counts the slots it will open only as far
// as its runs go.
void JobScheduler::fill() {
  int free = free_slots();
  while (free > 0 && !stopping()) {
    // A round started ahead takes the first slot that frees: its first workers are loaded.
    if (auto h =
            std::find_if(m_rounds.begin(), m_rounds.end(), [](const Round& r) { return r.held; });
        h != m_rounds.end()) {
      h->held = false;
      h->session->release();
      free = free_slots();
      continue;
    }
    if (m_next_fresh < m_fresh.size()) {
      start_job(*m_fresh[m_next_fresh++], true);
      free = free_slots();
      continue;
    }
    if (!m_ready.empty()) {
      auto it = std::max_element(m_ready.begin(), m_ready.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
      double work = 0;
      if (Round* r = critical(work); r && work > it->first && r->session->add_slots(1) == 1) {
        ++r->pieces, ++r->joined, --free;
        continue;
      }
      const Job* job = it->second;
      m_ready.erase(it);
      start_job(*job, false);
      free = free_slots();
      continue;
    }
    std::vector<Round*> open;
    for (auto& r : m_rounds)
      if (r.plan.shared.queue && !r.held && r.plan.shared.queue->left() > 0) open.push_back(&r);
    std::stable_sort(open.begin(), open.end(), [](const Round* a, const Round* b) {
      return a->plan.shared.queue->left() > b->plan.shared.queue->left();
    });
    for (Round* r : open) {
      const int want = static_cast<int>(
          std::min<uint64_t>(static_cast<uint64_t>(free), r->plan.shared.queue->left()));
      const int taken = r->session->add_slots(want);
      r->pieces += taken, r->joined += static_cast<size_t>(taken), free -= taken;
      if (free <= 0) break;
    }
    return;
  }
}

// While a compile slot makes the last compile of its round, the round it is to take next (the one
// fill would start) begins held (engine::RunSession::hold): its first run's worker starts and
// loads the compiler beside that compile rather than after it, at the round's first run. One held
// round for each such slot, only where workers are started ahead at all (m_ahead: no more slots
// than cores) and never for exec compilers (a worker of theirs loads nothing). A job's next round
// after one that ends starts at once on the freed slot (end_round); a held round waits for the
// next. The rounds and their runs are the same; only their workers start earlier.
void JobScheduler::start_ahead() {
  if (!m_ahead) return;
  int finishing = 0, held = 0;
  for (const auto& r : m_rounds)
    r.held ? ++held : finishing += r.session->finishing_slots();
  while (held < finishing && !stopping()) {
    const Job* job = nullptr;
    bool first_only = false;
    std::vector<std::pair<double, const Job*>>::iterator ready;
    if (m_next_fresh < m_fresh.size()) {
      job = m_fresh[m_next_fresh];
      first_only = true;
    } else if (!m_ready.empty()) {
      // A job whose first round still runs joins m_ready when it ends, maybe ahead of these.
      if (std::any_of(m_rounds.begin(), m_rounds.end(),
                      [](const Round& r) { return r.first_only; }))
        return;
      ready = std::max_element(m_ready.begin(), m_ready.end(),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
      double work = 0;
      if (Round* r = critical(work); r && work > ready->first)
        return; // fill gives the slot to that round's tail
      job = ready->second;
    }
    if (!job || job->backend.kind == backend::Kind::exec) return;
    if (first_only)
      ++m_next_fresh;
    else
      m_ready.erase(ready);
    start_job(*job, first_only, true);
    ++held;
  }
}

// Held rounds take the slots of first rounds that just ended before those are folded and stored:
// a first round's job goes on later from m_ready, never on its slot at once (end_round), so that
// slot is fill's to give, and a held round is what fill gives first.
void JobScheduler::release_early(const std::vector<engine::SessionLoop::Ended>& ended) {
  int freed = 0;
  for (const auto& e : ended)
    if (!e.error)
      freed +=
          static_cast<int>(std::count_if(m_rounds.begin(), m_rounds.end(), [&](const Round& r) {
            return r.session.get() == e.session && r.first_only && !r.held;
          }));
  for (int n = std::min(freed, free_slots()); n > 0 && !stopping(); --n) {
    auto h = std::find_if(m_rounds.begin(), m_rounds.end(), [](const Round& r) { return r.held; });
    if (h == m_rounds.end()) return;
    h->held = false;
    h->session->release();
  }
}

ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options) {
  return JobScheduler(m, jobs, state, writer, options).run();
}

} // namespace kdet::scan
