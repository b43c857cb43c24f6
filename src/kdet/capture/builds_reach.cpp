//===- capture/builds_reach.cpp - how far each varying kernel's difference reaches ---===//
//
// The first varying stage's two outputs (the ones kdet diff classified) are the
// pair: PTX from libNVVM or NVRTC is assembled for the kernel's target, cubins
// from ptxas or nvJitLink are read. Other outputs (NVVM IR, LTO IR) have no
// reach kdet can compute; the kernel says so.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/blobs.hpp"
#include "kdet/capture/builds.hpp"

#include <fmt/format.h>
#include <memory>

namespace kdet::capture {

void add_reaches(BuildsResult& r, const diff::PtxasOptions& ptxas) {
  // Each build's packs are indexed once, and only where a kernel needs them.
  std::vector<std::unique_ptr<BlobStore>> stores(r.builds.size());
  std::vector<std::string> problems;
  auto get = [&](size_t build, const std::string& hash) -> std::string {
    if (build >= stores.size()) return "";
    if (!stores[build])
      stores[build] = std::make_unique<BlobStore>(r.builds[build].dir + "/raw", problems);
    return stores[build]->get(hash).value_or("");
  };
  for (auto& k : r.kernels) {
    if (k.status != KernelStatus::varies || !k.difference) continue;
    const StageDifference& d = *k.difference;
    if (d.output_kind != "ptx" && d.output_kind != "cubin") continue;
    std::string a = get(d.build_a, d.hash_a), b = get(d.build_b, d.hash_b);
    if (a.empty() || b.empty()) {
      diff::VariantReach unknown;
      unknown.unknown = "an output's bytes were not stored";
      unknown.summary = "reach unknown: " + unknown.unknown;
      k.reach = std::move(unknown);
      continue;
    }
    diff::ReachOptions o;
    o.ptxas = ptxas;
    o.arch = diff::sm_arch(k.target);
    if (o.arch.empty())
      o.arch_why = k.target.empty() ? "no option names a target"
                                    : fmt::format("target {} is no sm_XX", k.target);
    k.reach = diff::variant_reach(a, b, o);
  }
}

diff::ReachCensus reach_census(const BuildsResult& r) {
  diff::ReachCensus c;
  for (const auto& k : r.kernels)
    if (k.reach) c.add(*k.reach);
  return c;
}

} // namespace kdet::capture
