//===- scan/job_scheduler.hpp - the state of one run_jobs() call ------------===//
//
// run_jobs (scan/scheduler.hpp) as an object: a planner over one engine::SessionLoop, with no
// threads of its own. scheduler.cpp holds the loop and the choice of what a free compile slot
// does next (fill); job_rounds.cpp starts a job's round and, when its session ends, folds it
// into the job's row and starts the next.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_session.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/session_loop.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/scan/split_round.hpp"
#include "kdet/util/folder_stock.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kdet::scan {

// A failing store fails every round's next push the same way: one message each.
inline void add_error(ScheduleStats& stats, const std::string& what) {
  if (std::find(stats.errors.begin(), stats.errors.end(), what) == stats.errors.end())
    stats.errors.push_back(what);
}

// One job's round running now: its plan at a fixed address (the session holds a reference to
// it) and the session that runs it.
struct Round {
  const Job* job = nullptr;
  bool first_only = false; // the job's first round, due before every job's later ones
  store::JobRow row;       // the job's row before this round
  uint64_t offset = 0;     // the round's first run in the job's uninterrupted schedule
  engine::RunPlan plan;
  std::unique_ptr<engine::RunSession> session;
  Splitting split;   // unit 0: one slot only
  int pieces = 1;    // the slots it was given: 1 + those added
  size_t joined = 0; // of those, slots added after it started
  // Started ahead (engine::RunSession::hold): its first runs' workers load while the compile
  // slot it is to take still ends its last compile; it holds none until released (fill).
  bool held = false;
  // The job's seconds per run so far and its runs after this round: with the round's queue
  // left, how long the job still takes on one slot.
  double per_run = 0;
  uint64_t runs_after = 0;
};

// The progress line's estimate: the runs left at most (every unfinished job's budget) and this
// invocation's runs with their slot seconds. Measured compile times from the first run on: a
// count of finished jobs says little while every job's first, short round runs first.
struct RunsLeft {
  double fallback = 0; // ScheduleOptions::seconds_per_run, until a run is timed
  uint64_t runs = 0, timed = 0;
  double timed_seconds = 0;

  void add_round(const engine::RunOutput& out) {
    runs -= std::min<uint64_t>(runs, out.completed);
    for (const auto& r : out.records)
      if (r.done) timed_seconds += r.seconds, ++timed;
  }
  // A job that varied stops before its budget: its runs not made are no longer left.
  void finished(const store::JobRow& row) {
    runs -= std::min(runs, row.budget - std::min(row.budget, row.runs));
  }
  // Seconds left on `threads` slots with `jobs` jobs unfinished; -1 when nothing is timed.
  double seconds(int threads, size_t jobs) const {
    const double per_run = timed ? timed_seconds / static_cast<double>(timed) : fallback;
    if (per_run <= 0) return -1;
    const auto slots = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), jobs));
    return per_run * static_cast<double>(runs) / static_cast<double>(slots);
  }
};

class JobScheduler {
public:
  JobScheduler(const Manifest& m, const std::vector<Job>& jobs,
               std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
               const ScheduleOptions& options);
  ScheduleStats run();

private:
  using Clock = std::chrono::steady_clock;

  // scheduler.cpp
  void fill();
  void start_ahead();
  void release_early(const std::vector<engine::SessionLoop::Ended>& ended);
  int free_slots() const;
  bool jobs_waiting() const { return m_next_fresh < m_fresh.size() || !m_ready.empty(); }
  Round* critical(double& work);
  void report_progress(bool force, bool last);
  double seconds_per_run(const store::JobRow& row) const;
  double work_left(const store::JobRow& row) const;
  bool stopping() const { return engine::interrupted() || m_aborted || m_interrupted; }

  // job_rounds.cpp
  void start_job(const Job& job, bool first_only, bool held = false);
  void start_round(const Job& job, bool first_only, store::JobRow row, bool held = false);
  void end_round(const engine::SessionLoop::Ended& ended);
  bool take_output(Round& r, const std::exception_ptr& error, engine::RunOutput& out);
  void job_ended(const Job& job, const store::JobRow& row, bool first_only);
  engine::RunPlan round_plan(const Job& job, uint64_t start, uint64_t size);
  void count_round(const Job& job, const engine::RunOutput& out, const Round& r);

  const Manifest& m_m;
  const std::vector<Job>& m_jobs;
  std::map<std::string, store::JobRow>& m_state;
  store::ScanWriter& m_writer;
  const ScheduleOptions& m_options;
  const int m_threads;
  const Clock::time_point m_t0 = Clock::now();

  ScheduleStats m_stats;
  // Jobs whose first round is due, in planned order; jobs with runs stored (resumed) are ready
  // for their later rounds at once, ordered by what their stored runs took.
  std::vector<const Job*> m_fresh;
  std::vector<std::pair<double, const Job*>> m_ready; // (work_left, job)
  // Slot seconds and runs so far by job id: the runs' own times, so that a split round counts
  // what it takes on one slot (the job row's seconds are its rounds' wall time, which is all a
  // job resumed from the database has).
  std::map<std::string, std::pair<double, uint64_t>> m_run_seconds;
  size_t m_total = 0, m_already = 0, m_todo = 0;
  size_t m_varying = 0, m_finished = 0, m_next_fresh = 0;
  // By compiler index: loaded once, later rounds skip the probe.
  std::map<size_t, backend::Identity> m_identities;
  std::set<size_t> m_broken; // compilers that failed to load
  Clock::time_point m_last_report = Clock::now() - std::chrono::seconds(1);
  // Workers start ahead within a round (a slot's next run's worker, while its compile runs) with
  // no more slots than cores; for the next round (m_workers_ahead, engine/worker_pool.hpp) only
  // where a core is spare for their start: with a slot on every core a pool made the 256-job
  // scan of docs/PERFORMANCE.md 7 % slower.
  bool m_ahead = false;
  std::shared_ptr<engine::WorkerPool> m_workers_ahead;
  // Each run's own folders, handed on from round to round (RunPlan::shared.folders).
  std::shared_ptr<FolderStock> m_folders = std::make_shared<FolderStock>(true);
  std::unique_ptr<engine::Executor> m_own_executor; // when ScheduleOptions::executor is null
  engine::Executor& m_executor;
  engine::SessionLoop m_loop;
  std::list<Round> m_rounds;  // the rounds running: a list, so that each plan stays put
  bool m_aborted = false;     // the store failed: start no round
  bool m_interrupted = false; // a round was interrupted (the executor's interrupt)
  RunsLeft m_left;
};

} // namespace kdet::scan
