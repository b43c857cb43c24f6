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
#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <map>
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
    if (k.status != KernelStatus::nondeterministic || !k.difference) continue;
    const StageDifference& d = *k.difference;
    // libNVVM's output (kind nvvm) is PTX; a command's output is named by its extension
    // ("cubin (.o)").
    if (!starts_with(d.output_kind, "ptx") && !starts_with(d.output_kind, "cubin") &&
        d.output_kind != "nvvm")
      continue;
    diff::ReachOptions o;
    o.ptxas = ptxas;
    o.arch = diff::sm_arch(k.target);
    if (o.arch.empty())
      o.arch_why = k.target.empty() ? "no option names a target"
                                    : fmt::format("target {} is no sm_XX", k.target);
    auto reach = [&](size_t ba, const std::string& ha, size_t bb, const std::string& hb) {
      std::string a = get(ba, ha), b = get(bb, hb);
      if (a.empty() || b.empty()) {
        diff::VariantReach unknown;
        unknown.unknown = "an output's bytes were not stored";
        unknown.summary = "reach unknown: " + unknown.unknown;
        return unknown;
      }
      return diff::variant_reach(a, b, o);
    };
    k.reach = reach(d.build_a, d.hash_a, d.build_b, d.hash_b);
    // More than two outputs: each other one against the first, with its builds, so that a
    // third variant that alone changes the cubin is not left out.
    if (!k.first_varying || k.made_inside.size()) continue;
    const Stage& st = k.stages[*k.first_varying];
    std::string kind = d.output_kind;
    if (size_t p = kind.find(" (."); p != std::string::npos)
      kind = kind.substr(p + 3, kind.size() - p - 4);
    std::map<std::string, OutputSeen> seen;
    std::vector<std::string> order;
    for (const auto& sb : st.builds)
      if (auto it = sb.outputs.find(kind); it != sb.outputs.end())
        for (const auto& h : it->second) {
          if (!seen.count(h)) order.push_back(h);
          seen[h].hash = h;
          seen[h].builds.push_back(sb.build);
        }
    if (seen.size() <= 2) continue;
    for (const auto& h : order) {
      OutputSeen os = seen[h];
      if (h != d.hash_a) os.reach = reach(d.build_a, d.hash_a, os.builds.front(), h);
      k.outputs_seen.push_back(std::move(os));
    }
  }
}

diff::ReachCensus reach_census(const BuildsResult& r) {
  diff::ReachCensus c;
  for (const auto& k : r.kernels)
    if (k.reach) c.add(*k.reach);
  return c;
}

} // namespace kdet::capture
