//===- scan/job_scheduler.hpp - the state of one run_jobs() call ------------===//
//
// run_jobs (scan/scheduler.hpp) as an object: what its slots share, under one mutex, and the
// steps each slot takes. scheduler.cpp holds the slots' loop and the choice of their next job
// (take); job_rounds.cpp runs a job's rounds, split or not, and folds each into its row.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/scan/split_round.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace kdet::scan {

// A splittable round running now, which a slot with no job left joins: it takes runs from the
// round's queue until none is left (under the scheduler's mutex, as its joiners and outputs).
struct OpenRound {
  engine::RunPlan plan; // its queue shared by every piece
  // What the job has left after this round's runs not yet taken, in runs, and its seconds
  // per run so far (seconds_per_run): how long it still takes on one slot.
  uint64_t runs_after = 0;
  double per_run = 0;
  int joiners = 0; // slots running a piece of it now, beyond the owner's
  std::vector<engine::RunOutput> joined;
  size_t late = 0; // pieces that did runs, of slots that joined after the round opened
  std::exception_ptr error;
};

// A slot's piece of a job's next round, started while the last round waited for its other
// pieces (close_round), from that round's queue.
struct EarlyPiece {
  uint64_t start = 0; // the round's first run
  std::shared_ptr<engine::RunQueue> queue;
  std::future<engine::RunOutput> out;
  EarlyPiece() = default;
  EarlyPiece(const EarlyPiece&) = delete;
  EarlyPiece& operator=(const EarlyPiece&) = delete;
  ~EarlyPiece() { // not taken by its round: it ends after its current run (out waits for it)
    if (queue) queue->close();
  }
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

  // One job's rounds on one slot (job_rounds.cpp).
  struct JobRun {
    const Job& job;
    bool first_only;
    store::JobRow row;
    std::optional<EarlyPiece> early;
  };

  // scheduler.cpp
  void slot_main();
  void work(bool& idle);
  const Job* take(bool& first_only, bool& idle, std::shared_ptr<OpenRound>& join);
  std::shared_ptr<OpenRound> joinable() const;
  std::pair<std::shared_ptr<OpenRound>, double> critical() const;
  bool reclaim(bool& idle);
  void job_ended();
  void report_progress(bool force, bool last);
  double seconds_per_run(const store::JobRow& row) const;
  double work_left(const store::JobRow& row) const;
  bool stopping() const { return engine::interrupted() || m_aborted.load(); }
  engine::RunOutput exec(const engine::RunPlan& p) const;

  // job_rounds.cpp
  void run_job(const Job& job, bool first_only);
  bool run_round(JobRun& jr); // false: the job's rounds end here
  engine::RunPlan round_plan(const Job& job, uint64_t start, uint64_t size);
  void join_round(OpenRound& r, bool late);
  void drop_early(JobRun& jr);
  void count_round(const Job& job, const engine::RunOutput& out, uint64_t ran_early, int borrowed,
                   size_t joined);

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
  std::atomic<size_t> m_varying{0};
  std::atomic<size_t> m_finished{0};
  mutable std::mutex m_mu; // guards state, stats, broken, identities, the queues, progress calls
  std::condition_variable m_queue_changed;
  // m_jobs_running: jobs a slot is running rounds of, whose later rounds this slot may yet join.
  size_t m_next_fresh = 0, m_jobs_running = 0;
  // By compiler index: loaded once, later rounds skip the probe.
  std::map<size_t, backend::Identity> m_identities;
  std::set<size_t> m_broken; // compilers that failed to load
  Clock::time_point m_last_report = Clock::now() - std::chrono::seconds(1);
  // Slots with no job left to take: a splittable round borrows them (run_split).
  std::atomic<int> m_idle_slots{0};
  std::vector<std::shared_ptr<OpenRound>> m_open_rounds;
  std::condition_variable m_round_joined;
  // Workers start ahead (within a round, and for the next round: engine/worker_pool.hpp) only
  // where a core is spare for their start: with a slot on every core they would slow the
  // compiles beside them by as much as they save.
  bool m_ahead = false;
  std::shared_ptr<engine::WorkerPool> m_workers_ahead;
  std::atomic<bool> m_aborted{false}; // the store failed: stop taking jobs
  RunsLeft m_left;                    // under m_mu once the slots run
};

} // namespace kdet::scan
