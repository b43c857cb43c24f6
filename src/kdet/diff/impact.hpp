//===- diff/impact.hpp - how far a difference between two outputs reaches ---===//
//
// `kdet impact` and the reach lines of run, scan and builds: two PTX files are
// assembled with ptxas for one architecture, two cubins are read as they are,
// and each kernel is placed on one rung of a ladder:
//   identical  the two inputs are byte-for-byte the same
//   ptx        the PTX differs, the cubins are identical: the variance stops
//              before the GPU
//   metadata   the cubins differ, but no kernel's instructions or resources do
//              (debug sections, symbols, layout, constant contents)
//   sass       instruction words differ (changed, moved, added, removed:
//              an alignment of the 16-byte words); resources the same
//   resources  registers, stack, spills, shared or constant memory, barriers
//              or launch bounds differ; blocks per SM the same
//   occupancy  the blocks per SM the occupancy calculator allows differ
// The report's reach is the highest of its kernels' and device functions' (a
// device function with a .text of its own: nvcc -G, -rdc; it has no occupancy,
// as nothing launches it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/diff/occupancy.hpp"
#include "kdet/diff/ptxas.hpp"
#include "kdet/diff/resources.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff {

// The rungs, lowest first.
enum class Reach { identical, ptx, metadata, sass, resources, occupancy };

// "identical", "ptx", "metadata", "sass", "resources", "occupancy" (the JSON spelling).
const char* to_string(Reach reach);

// True for sass and above: the GPU runs something different.
bool reaches_gpu(Reach reach);

// The block size used when a kernel has no launch bounds and --block is not given.
constexpr uint32_t k_default_block = 256;

// An alignment of two kernels' 16-byte instruction words (Myers over the words).
struct SassCounts {
  size_t words_a = 0, words_b = 0;
  size_t same = 0;          // on the common subsequence
  size_t moved = 0;         // a word taken out in one place and put back in another
  size_t changed = 0;       // a word of A replaced by a different word of B
  size_t added = 0;         // words of B with no counterpart in A
  size_t removed = 0;       // words of A with no counterpart in B
  bool approximate = false; // the alignment hit its cap (counts may not be minimal)
};

// Aligns two .text sections as 16-byte words.
SassCounts count_sass(std::string_view text_a, std::string_view text_b);

// One kernel on both sides.
struct KernelImpact {
  std::string name;
  Reach reach = Reach::identical;
  std::string only_in; // "A" or "B" when one side lacks the kernel
  SassCounts sass;
  KernelResources a, b;             // text left empty
  std::vector<std::string> changed; // the resources that differ ("registers", ...)
  uint32_t block_size = 0;          // 0 for a device function
  std::string block_from;           // "reqntid", "maxntid", "--block", "default"; "" for a function
  std::optional<Occupancy> occupancy_a, occupancy_b;
};

// How to measure.
struct ImpactOptions {
  std::string arch;              // "sm_80": for PTX; for cubins it must match when given
  std::optional<uint32_t> block; // --block: used where a kernel has no launch bounds
  int carveout = -1;             // shared memory carveout, percent; -1 the default
  PtxasOptions ptxas;
};

// The comparison of two outputs.
struct ImpactReport {
  std::string input_format; // "ptx" or "cubin"
  std::string arch;         // "sm_80"
  Reach reach = Reach::identical;
  bool failed = false;                 // ptxas failed on a side: no reach known
  std::string error_a, error_b;        // what ptxas said
  std::string ptxas;                   // the ptxas used (PTX inputs)
  std::string cubin_diff;              // kdet diff's summary line of the two cubins
  std::vector<KernelImpact> kernels;   // entry points
  std::vector<KernelImpact> functions; // device functions with a .text of their own (nvcc -G,
                                       // -rdc): compared alike, but no block size, no occupancy
  std::vector<std::string> notes;
};

// Compares two cubins (throws kdet::Error naming the side when one is not a readable CUDA
// ELF, or when options.arch names another architecture). `spills_a`/`spills_b`, when given,
// are ptxas -v's reports for the cubins' kernels.
ImpactReport impact_cubins(std::string_view a, std::string_view b, const ImpactOptions& options,
                           const std::map<std::string, PtxasFunction>* spills_a = nullptr,
                           const std::map<std::string, PtxasFunction>* spills_b = nullptr);

// Assembles two PTX texts for options.arch (or their .target when empty) and compares the
// cubins; a ptxas failure is the report's `failed` and error, never an exception.
ImpactReport impact_ptx(std::string_view a, std::string_view b, const ImpactOptions& options);

// Either, by the inputs' format (PTX or cubin, both the same); throws kdet::Error otherwise.
ImpactReport impact(std::string_view a, std::string_view b, const ImpactOptions& options);

// One line: "stops before the GPU: the cubins are identical", "SASS changed in 1 of 1
// kernels (12 words changed, 3 moved, 0 added, 0 removed); registers, occupancy the same".
std::string reach_line(const ImpactReport& report);

// The report as JSON (the comparison object of kdet.impact/1).
nlohmann::json to_json(const ImpactReport& report);

// kdet impact's entry for one comparison: to_json(report) with the sides' labels ("a", "b"),
// the runs that gave B ("runs_b", when not 0) and, when given, the --run measurement ("run").
nlohmann::json to_json(const ImpactReport& report, const std::string& name_a,
                       const std::string& name_b, uint64_t runs_b, const nlohmann::json* run);

// A terminal table per kernel: reach, SASS counts, resources A -> B, occupancy A -> B.
std::string to_text(const ImpactReport& report, bool color);

} // namespace kdet::diff
