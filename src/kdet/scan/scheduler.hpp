//===- scan/scheduler.hpp - run a scan's jobs on one executor -----------------===//
//
// Each job runs in rounds, each round one engine::RunSession (jobs = 1, stop.outcomes = 2)
// driven with every other running round by one engine::SessionLoop over one executor: the first
// round has Manifest::first_round runs, each later one doubles (up to max_round), until the job
// shows a second variant (it varies: stop) or its budget is spent (the bound reached the
// manifest's target rate). `threads` is the number of compiles in flight at once. Every job's
// first round runs first; then the job expected to take longest (seconds per run so far x runs
// left) goes next. A round whose runs do not share a process's history (process = fresh, an exec
// compiler, or chains of `history` runs) is split: its session gets more slots (add_slots), when
// it starts if no job waits, and later whenever a compile slot is free and no job is left, or
// that round's job has more work left than every job waiting; each slot takes runs (or whole
// chains) from the round's queue, with the seeds and the result the one round would have had
// (docs/SCAN.md, "Splitting rounds"). Every finished round goes to the ScanWriter at once, so a
// killed scan loses at most the rounds in flight; a resumed scan continues each job from its
// stored run count and variants. No thread of its own: the loop runs in the caller's thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/executor.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/store/scan_result.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kdet::scan {

class ScanTrace;

// Where a scan stands, for a progress line.
struct ScanProgress {
  size_t done = 0;    // finished jobs, those finished before this invocation included
  size_t total = 0;   // jobs of this invocation's slice
  size_t varying = 0; // finished jobs that vary
  uint64_t runs = 0;  // runs of this invocation's finished rounds
  // Runs left (every unfinished job's budget) x the mean slot time of this invocation's runs so
  // far (before one finished: ScheduleOptions::seconds_per_run) / slots; -1 when neither is known.
  // An upper bound: a job that varies stops early.
  double seconds_left = -1;
  bool last = false; // the call after the pool stopped (done, interrupted or failed)
};
using ScanProgressFn = std::function<void(const ScanProgress&)>;

struct ScheduleOptions {
  int threads = 1; // compiles at once
  // Called from the caller's thread after rounds end, at most every 200 ms, and once at the end
  // (`last` set); never when no job was left to run. The scheduler itself prints nothing.
  ScanProgressFn progress;
  // Runs every round's processes; null: a ProcessExecutor of the scheduler's own. Tests give a
  // scripted executor with a virtual clock (tests/unit/fake_executor.hpp), so that the rounds,
  // the stop at a second variant, the budget and the order of rounds are checked without a
  // compiler, threads or sleeps.
  engine::Executor* executor = nullptr;
  // When set (`kdet scan --trace`), every stored round's runs go to it too.
  ScanTrace* trace = nullptr;
  // A run's expected slot seconds before any run of this invocation finished (the compilers'
  // probes, scan::vary_unnamed); 0: unknown.
  double seconds_per_run = 0;
};

struct ScheduleStats {
  uint64_t jobs_finished = 0; // jobs that reached done in this invocation
  uint64_t rounds = 0;
  uint64_t runs = 0;
  double compile_cpu_seconds = 0; // CPU inside the compile calls of this invocation's runs
  uint64_t split_rounds = 0;      // rounds run on more than one slot (RunSession::add_slots)
  uint64_t split_pieces = 0;      // the slots of those rounds
  uint64_t joined_pieces = 0;     // of those, slots added to a round running already
  // Always 0 since rounds share one executor: no round's piece starts before the round before
  // ended (a slot is a count, given back to the scheduler at once). Kept for the callers that
  // read them.
  uint64_t early_rounds = 0;
  uint64_t early_runs = 0;
  uint64_t early_dropped = 0;
  bool interrupted = false;
  double seconds = 0;
  std::vector<std::string> errors; // compilers that could not be loaded
};

// The store::JobRow a planned job starts from (nothing run yet).
store::JobRow initial_row(const Manifest& m, const Job& job);

// Runs every job whose state in `state` (keyed by job id) is not done; the
// state is updated in place and each round is pushed to `writer`.
ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options);

} // namespace kdet::scan
