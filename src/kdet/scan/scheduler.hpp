//===- scan/scheduler.hpp - run a scan's jobs on a pool of threads -------------===//
//
// Each pool thread takes the next unfinished job and runs it in rounds through
// engine::execute (jobs = 1 inside, stop_at_outcomes = 2): the first round has
// Manifest::first_round runs, each later one doubles (up to max_round), until the job shows a
// second variant (it varies: stop) or its budget is spent (the bound reached
// the manifest's target rate). Every finished round goes to the ScanWriter at
// once, so a killed scan loses at most the rounds in flight; a resumed scan
// continues each job from its stored run count and variants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/planner.hpp"
#include "kdet/scan/result.hpp"
#include "kdet/store/scan_db.hpp"

#include <map>
#include <string>
#include <vector>

namespace kdet::scan {

struct ScheduleOptions {
  int threads = 1;       // jobs at once
  bool progress = false; // a progress line on stderr
};

struct ScheduleStats {
  uint64_t jobs_finished = 0; // jobs that reached done in this invocation
  uint64_t rounds = 0;
  uint64_t runs = 0;
  bool interrupted = false;
  double seconds = 0;
  std::vector<std::string> errors; // compilers that could not be loaded
};

// The JobRow a planned job starts from (nothing run yet).
JobRow initial_row(const Manifest& m, const Job& job);

// Runs every job whose state in `state` (keyed by job id) is not done; the
// state is updated in place and each round is pushed to `writer`.
ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options);

} // namespace kdet::scan
