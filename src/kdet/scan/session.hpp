//===- scan/session.hpp - one `kdet scan` of a manifest into a database -----===//
//
// Loads the manifest, plans its jobs (this shard's slice), opens the database
// (a new one gets the manifest's meta; one of another manifest is refused),
// resumes each job from its stored state, runs the jobs (scan/scheduler) and
// closes the scan's row. It prints nothing: the caller is told where the scan
// starts and how it goes through callbacks, and renders the result itself.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/planner.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/store/scan_db.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kdet::scan {

// What the session is about to run, known once the database is read.
struct SessionStart {
  size_t jobs = 0;     // in this shard
  size_t all_jobs = 0; // in the whole manifest
  Shard shard;
  size_t inputs = 0, compilers = 0, targets = 0, option_sets = 0;
  size_t bundles = 0; // bundle jobs, crossed with nothing
  int threads = 1;
  uint64_t budget = 0;    // runs per job at most
  size_t resumed = 0;     // jobs of this shard with runs already stored
  uint64_t runs_left = 0; // runs this session may make at most: every unfinished job's budget left
  // Slot seconds those runs take at each compiler's probe-timed run (scan::vary_unnamed); 0 when
  // no compiler was timed. `timed_runs`: of runs_left, those of timed compilers.
  double estimate_seconds = 0;
  uint64_t timed_runs = 0;
  // Per compiler, what its jobs run under ("nvvm: every factor not named in [setting] varied:
  // time=vary ...") and each level left natural, with why (scan::vary_unnamed).
  std::vector<std::string> defaults;
};

struct SessionRequest {
  std::string manifest_path;
  std::string db_path;
  std::string shard; // "I/N", or "" for the whole manifest
  int threads = 1;
  // --target-rate and --max-runs: the manifest's [budget] for this session (recorded in meta).
  std::optional<double> target_rate;
  std::optional<uint64_t> max_runs;
  std::string invocation;                            // recorded in the database's scans table
  std::function<void(const SessionStart&)> on_start; // once, before the first round
  ScanProgressFn progress;                           // see ScheduleOptions::progress
  ScanTrace* trace = nullptr; // `--trace`: the setup and run phases, and every stored run
};

struct SessionEnd {
  std::unique_ptr<store::ScanDb> db; // still open: the reports read blobs from it
  ScheduleStats stats;
  store::ScanResult result; // everything the database holds after the session
};

// Runs one scan session; throws Error (exit 2) naming the manifest, shard or database at
// fault before any job runs. SIGINT/SIGTERM end it early with stats.interrupted set.
SessionEnd run_session(const SessionRequest& request);

} // namespace kdet::scan
