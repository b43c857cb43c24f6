//===- scan/reach.cpp - the reach of each varying job, at report time --------===//
#include "kdet/scan/reach.hpp"

#include "kdet/diff/diff.hpp"

#include <fmt/format.h>

namespace kdet::scan {

namespace {

// The artifact of a variant a reach is computed from: a cubin, else PTX ("" when none). An
// exec compiler's artifact is named "output", so the content decides, not the name.
std::string reach_bytes(const store::VariantRow& v,
                        const std::function<std::string(const std::string&)>& blob) {
  std::string ptx;
  for (const auto& a : v.artifacts) {
    if (a.size > diff::k_max_detailed_size) continue;
    std::string data = blob(a.hash);
    diff::Format f = diff::detect_format(data);
    if (f == diff::Format::cubin) return data;
    if (f == diff::Format::ptx && ptx.empty()) ptx = std::move(data);
  }
  return ptx;
}

} // namespace

const diff::VariantReach* ScanReaches::farthest(const std::string& job_id) const {
  auto it = jobs.find(job_id);
  if (it == jobs.end()) return nullptr;
  std::vector<const diff::VariantReach*> all;
  all.reserve(it->second.size());
  for (const auto& [id, r] : it->second)
    all.push_back(&r);
  return diff::farthest(all);
}

std::string job_arch(const store::JobRow& job, std::string& why_not) {
  Result<std::string> named = diff::arch_from_options(job.options);
  if (named) return *named;
  why_not = named.why();
  // Two -arch options that disagree: the job's target does not settle which one ran.
  if (why_not != diff::k_no_arch) return "";
  if (!job.target.empty()) {
    std::string arch = diff::sm_arch(job.target);
    if (arch.empty()) why_not = fmt::format("target {} is no sm_XX", job.target);
    return arch;
  }
  why_not = "no -arch in the options and no target";
  return "";
}

ScanReaches scan_reaches(const store::ScanResult& r,
                         const std::function<std::string(const std::string&)>& blob,
                         const diff::PtxasOptions& ptxas) {
  ScanReaches out;
  for (const auto& job : r.jobs) {
    const store::VariantRow* modal = job.modal_outcome();
    if (!job.varies() || !modal || modal->status != "ok") continue;
    std::string ref = reach_bytes(*modal, blob);
    if (ref.empty()) continue;
    diff::ReachOptions o;
    o.arch = job_arch(job, o.arch_why);
    o.ptxas = ptxas;
    auto& reaches = out.jobs[job.id];
    for (const store::VariantRow& v : job.variants) {
      if (reaches.size() >= k_max_reach_variants) break;
      if (&v == modal || v.status != "ok") continue;
      std::string data = reach_bytes(v, blob);
      if (data.empty()) continue;
      reaches[v.id] = diff::variant_reach(ref, data, o);
    }
    if (reaches.empty()) {
      out.jobs.erase(job.id);
      continue;
    }
    if (const diff::VariantReach* top = out.farthest(job.id)) out.census.add(*top);
  }
  return out;
}

} // namespace kdet::scan
