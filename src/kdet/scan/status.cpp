//===- scan/status.cpp - job statuses and the scan exit code -------------------===//
#include "kdet/scan/status.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/numbers.hpp"

namespace kdet::scan {

const char* to_string(JobStatus s) {
  switch (s) {
  case JobStatus::deterministic:
    return "deterministic";
  case JobStatus::nondeterministic:
    return "nondeterministic";
  case JobStatus::nondeterministic_expected:
    return "nondeterministic-expected";
  case JobStatus::no_longer_nondeterministic:
    return "no-longer-nondeterministic";
  case JobStatus::not_seen:
    return "not-seen";
  case JobStatus::failed:
    return "failed";
  case JobStatus::incomplete:
    return "incomplete";
  }
  return "?";
}

double expected_rate(const store::ScanResult& r) {
  auto it = r.meta.find("target_rate");
  if (it == r.meta.end()) return k_default_expected_rate;
  auto v = parse_real(it->second, {1e-9, 1, false});
  return v ? *v : k_default_expected_rate;
}

JobStatus job_status(const store::JobRow& j, double rate) {
  if (j.varies())
    return j.expected_vary ? JobStatus::nondeterministic_expected : JobStatus::nondeterministic;
  if (!j.done) return JobStatus::incomplete;
  if (j.verdict() == engine::Verdict::failed) return JobStatus::failed;
  if (!j.expected_vary) return JobStatus::deterministic;
  // One output so far: the expectation is stale only when the runs rule out the expected rate.
  return j.upper_bound() < rate ? JobStatus::no_longer_nondeterministic : JobStatus::not_seen;
}

ScanCounts count(const store::ScanResult& r) {
  ScanCounts c;
  c.jobs = r.jobs.size();
  double rate = expected_rate(r);
  for (const auto& j : r.jobs) {
    if (const uint64_t lost = j.kdet_errors()) {
      c.kdet_error_runs += lost;
      ++c.kdet_error_jobs;
    }
    switch (job_status(j, rate)) {
    case JobStatus::nondeterministic:
      ++c.unexpected;
      ++c.varying;
      break;
    case JobStatus::nondeterministic_expected:
      ++c.expected;
      ++c.varying;
      break;
    case JobStatus::no_longer_nondeterministic:
      ++c.no_longer_varies;
      break;
    case JobStatus::not_seen:
      ++c.not_seen;
      break;
    case JobStatus::failed:
      ++c.failed;
      break;
    case JobStatus::incomplete:
      ++c.incomplete;
      break;
    case JobStatus::deterministic:
      break;
    }
  }
  return c;
}

int scan_exit_code(const ScanCounts& c) {
  if (c.unexpected || c.no_longer_varies) return k_exit_nondeterministic;
  if (c.failed) return k_exit_compiler_failed;
  return k_exit_deterministic;
}

} // namespace kdet::scan
