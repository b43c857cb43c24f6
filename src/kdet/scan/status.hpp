//===- scan/status.hpp - what a scanned job means, and the scan's exit code -===//
//
// One vocabulary for every report (terminal, JSON, JUnit, HTML). The
// statistics: an [[expect]]ed job that showed one output is said to "no
// longer vary" only when its 95% upper bound on the variance rate is below
// the rate it was expected to vary at (the scan's budget.target_rate, the
// rate its budget is sized to detect); with fewer runs it is "not seen in N
// runs (bound X%)", which is not a failure. docs/SCAN.md states the rules.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/store/scan_result.hpp"

#include <cstddef>

namespace kdet::scan {

enum class JobStatus {
  deterministic,              // one output in every run, not expected to vary
  nondeterministic,           // more than one output, not expected: the scan fails (exit 1)
  nondeterministic_expected,  // more than one output, as an [[expect]] said
  no_longer_nondeterministic, // expected to vary; one output, bound below the expected rate (exit
                              // 1)
  not_seen,                   // expected to vary; one output so far, too few runs to say it stopped
  failed,                     // the compiler failed on every run (exit 3)
  incomplete                  // not finished (interrupted; run the scan again)
};

// "deterministic", "nondeterministic", "nondeterministic-expected", "no-longer-nondeterministic",
// "not-seen", "failed", "incomplete". Scan databases keep no status (it is derived from the rows
// each time), so no older word is ever read back; kdet wrote "varies", "varies-expected" and
// "no-longer-varies" before kdet.scan/2 (docs/SCAN.md, "Words").
const char* to_string(JobStatus s);

// The rate an [[expect]]ed job is expected to vary at when no other is known.
inline constexpr double k_default_expected_rate = 0.05;

// The rate [[expect]]ed jobs of this result are expected to vary at: its
// manifest's budget.target_rate (meta "target_rate"), else the default.
double expected_rate(const store::ScanResult& r);

// The status of one job, given the rate it was expected to vary at.
JobStatus job_status(const store::JobRow& j, double expected_rate);

// Jobs per status.
struct ScanCounts {
  size_t jobs = 0, varying = 0, unexpected = 0, expected = 0, no_longer_varies = 0, not_seen = 0,
         failed = 0, incomplete = 0;
  // Runs that ended in kdet's own error (store::JobRow::kdet_errors), and the jobs they were of.
  uint64_t kdet_error_runs = 0;
  size_t kdet_error_jobs = 0;
};
ScanCounts count(const store::ScanResult& r);

// The exit code of a scan's result, first match wins:
// 1 a job is nondeterministic unexpectedly or an expectation is stale
// (no-longer-nondeterministic);
// 3 some job's compiler failed on every run; 0 otherwise. (130 interrupted
// and 2 usage errors are decided by the command before the result is read.)
int scan_exit_code(const ScanCounts& c);

} // namespace kdet::scan
