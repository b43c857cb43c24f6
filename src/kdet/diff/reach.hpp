//===- diff/reach.hpp - a variance's reach, one line, for run, scan and builds ---===//
//
// `kdet run`, the scan reports and the builds reports give each variant that
// differs from the most common one the same summary: how far the difference
// reaches (impact.hpp's ladder), from two artifacts. A PTX pair is assembled
// with ptxas for the target the compile's options name; a cubin pair is read.
// What cannot be known is said ("reach unknown: no ptxas", "no target"),
// never guessed: the PTX's own .target is not the target a compile was for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/diff/impact.hpp"
#include "kdet/util/result.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff {

// The architecture a compile's options name, as ptxas spells it: -arch=compute_80,
// -arch sm_90a, --gpu-architecture=..., --gpu-name ..., -gencode arch=...,code=sm_80 (code
// wins) give "sm_80", "sm_90a"; a failure when none names one (k_no_arch), or two name
// different ones.
inline constexpr std::string_view k_no_arch = "no -arch in the options";
Result<std::string> arch_from_options(const std::vector<std::string>& options);

// "sm_80" for "compute_80", "sm_80", "lto_80", "80"; "sm_90a" for "compute_90a"; "" otherwise.
std::string sm_arch(std::string_view value);

// What a reach needs besides the two artifacts.
struct ReachOptions {
  std::string arch;     // the target (sm_XX) PTX is assembled for; "" when unknown
  std::string arch_why; // why arch is "" (for the summary), e.g. "no -arch in the options"
  PtxasOptions ptxas;   // ptxas.ptxas "" when absent
  uint32_t block = 0;   // threads per block where a kernel has no bounds; 0: the default
};

// One variant's reach against the reference variant.
struct VariantReach {
  std::optional<ImpactReport> report; // absent when the reach is unknown before any ptxas run
  std::string unknown;                // why it is unknown ("no ptxas", "no target", ...)
  std::string summary;                // one line, as reach_summary() or "reach unknown: ..."
  // True when the reach is known (a report, and ptxas did not fail).
  bool known() const { return report && !report->failed; }
};

// True when `data` is PTX or a cubin (what a reach is computed from).
bool reach_artifact(std::string_view data);

// The reach of `other` against `ref`: two PTX texts are assembled for options.arch, two
// cubins read. Never throws: no ptxas, no target, a PTX and a cubin, a cubin that cannot be
// read, a ptxas that fails are each an unknown reach with its reason.
VariantReach variant_reach(std::string_view ref, std::string_view other,
                           const ReachOptions& options);

// One line: "stops before the GPU (cubins identical): sm_80, 51 registers, 2 blocks/SM",
// "SASS: 3 of 2120 instructions changed, same 48 registers, same occupancy (5 blocks/SM) on
// sm_80", "SASS: ..., registers 48 -> 56, blocks/SM 5 -> 4 on sm_80".
std::string reach_summary(const ImpactReport& report);

// {"arch", "reach", "stops_before_gpu", "summary", "unknown", "kernels": [{name, reach,
// instructions, changed, moved, added, removed, registers_a/b, blocks_per_sm_a/b}],
// "functions": [the same of device functions, blocks_per_sm null]}: the compact form run,
// scan and builds reports carry (`kdet impact` gives the whole report).
nlohmann::json to_json(const VariantReach& reach);

// The highest of several reaches (a scan job's variants): the one that reaches farthest, an
// unknown one only when none is known; nullptr for none.
const VariantReach* farthest(const std::vector<const VariantReach*>& reaches);

// Census of many reaches: "of 6 varying jobs: 3 stop before the GPU, 3 change SASS, 0 change
// registers, 0 change occupancy".
struct ReachCensus {
  size_t total = 0, unknown = 0, stop_before_gpu = 0, sass = 0, registers = 0, resources = 0,
         occupancy = 0;
  std::map<std::string, size_t> unknown_why; // reason -> count
  void add(const ImpactReport& report);
  void add(const VariantReach& reach);
  // "of N varying THINGS: ..." with `what` naming one thing counted ("job", "kernel").
  std::string line(const std::string& what) const;
  nlohmann::json to_json() const;
};

} // namespace kdet::diff
