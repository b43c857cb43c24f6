//===- scan/reach.hpp - the reach of each varying job, at report time --------===//
//
// The scan reports give each varying job's variants the reach kdet run gives
// (diff/reach.hpp): computed when the reports are written, from the variants'
// artifacts the database holds, never in the scan loop. The target is the one
// the job's options name (-arch=compute_80), else the job's own target.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/diff/reach.hpp"
#include "kdet/store/scan_result.hpp"

#include <functional>
#include <map>
#include <string>

namespace kdet::scan {

// Each varying job's reaches: job id -> variant id -> its reach against the job's most common
// variant; and their census, one job counted by its farthest-reaching variant.
struct ScanReaches {
  std::map<std::string, std::map<std::string, diff::VariantReach>> jobs;
  diff::ReachCensus census;
  // The job's farthest-reaching variant's reach (nullptr when the job has none).
  const diff::VariantReach* farthest(const std::string& job_id) const;
};

// At most this many variants of one job are compared with its most common one (each costs up
// to two ptxas runs); the job's other variants get no reach (their JSON has no "reach").
constexpr size_t k_max_reach_variants = 8;

// The reaches of every varying job of `r` (verdict nondeterministic) whose successful variants
// have PTX or cubin artifacts. `blob` loads an artifact's bytes by hash ("" when absent).
ScanReaches scan_reaches(const store::ScanResult& r,
                         const std::function<std::string(const std::string&)>& blob,
                         const diff::PtxasOptions& ptxas);

// The arch a job's PTX is assembled for: its options' (-arch=compute_80), else its target
// ("80" -> "sm_80"); "" with `why_not` when neither names one.
std::string job_arch(const store::JobRow& job, std::string& why_not);

} // namespace kdet::scan
