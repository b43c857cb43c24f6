//===- capture/builds_internal.hpp - what builds.cpp and builds_judge.cpp share -===//
//
// Each build is reduced to its kernels (builds.cpp); kernels are then matched across
// builds and judged stage by stage (builds_judge.cpp). Not for use outside capture/.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/blobs.hpp"
#include "kdet/capture/builds.hpp"
#include "kdet/capture/records.hpp"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kdet::capture::detail {

// A stage of a kernel in one build, as kept after the build is read.
struct StageSummary {
  std::string key; // kind, program, normalized options (and environment for commands)
  std::string kind, program, library, options, raw_options, lib_hash, bundle, inputs;
  std::map<std::string, std::vector<std::string>> outputs;
  size_t compiles = 0;
  // How kdet saw it (builds_taps.cpp): "interposed", "command" or "tapped"; a tapped stage's
  // framework, its stage and the one before ("llir" -> "ptx"), whether it is the frontend's,
  // and its file under the build folder ("taps/triton/HASH/k.ptx").
  std::string seam, framework, label, from, file;
  bool frontend = false;
  // Joined to its kernel by entry names, not by content (builds_taps.cpp): context for a
  // kernel whose captured stages differ, never a reason of its own to call it varying.
  bool by_name = false;
  // The compilers kdet could not see into that were loaded where an input of this stage
  // that no stage kdet saw made was made ("libtriton.so has an NVPTX back end").
  std::string made_by;
  std::vector<std::string> shipped_in; // a load stage's programs or libraries that ship its fatbin
};

// A kernel in one build.
struct BuildKernel {
  std::string name, key, first_inputs, target;
  std::string entry_order; // the entry names as they appeared in this build ("" when unnamed)
  std::vector<StageSummary> stages;      // dataflow order
  std::vector<std::string> names_differ; // inputs whose names differ only in temporary parts
  // Kept text files (unjoined tap groups) naming every entry of it: 1 when joined by names,
  // more when the join was left out as ambiguous (builds_taps.cpp).
  size_t named_in = 0;
};

struct BuildSummary {
  std::vector<BuildKernel> kernels;
  bool compared = true; // false: a build left out (BuildInfo::not_compared), with no kernels
};

// Reads DIR/capture.json (kdet capture --out and --builds write it) for how the pipeline
// ended; leaves `info` as it is when absent. One that is there but cannot be read (a link, no
// regular file, too large, not JSON, no pipeline status) is named in info.status_problem
// (builds_folders.cpp).
void read_capture_json(const std::string& dir, BuildInfo& info);

// How many of the builds are compared: "every build" for a kernel's status.
size_t compared_builds(const std::vector<BuildSummary>& sums);

// One kernel matched across builds: (build, index into that build's kernels).
using Match = std::vector<std::pair<size_t, size_t>>;

// Adds the build's stage taps (DIR/taps/index.tsv) to its kernels, as stages before the
// captured compile that takes their output, or as kernels of their own; sets every stage's
// seam and what made inputs no stage made (builds_taps.cpp). `blobs` learns the tapped files.
void add_tap_stages(const std::string& dir, BuildInfo& info, BuildSummary& sum, BlobStore& blobs,
                    const std::vector<Compile>& compiles, const std::vector<Bundle>& bundles);

// Adds the modules the build handed to the CUDA driver (DIR/raw's loads) as the last stage of
// the kernels they hold, or as kernels of their own when no compile kdet saw made them
// (builds_loads.cpp). After add_tap_stages: info.inside is set.
void add_load_stages(const std::string& dir, BuildInfo& info, BuildSummary& sum,
                     const BlobStore& blobs, const std::vector<Compile>& compiles);

// After judge: a difference made inside the process is never the pipeline's input; the
// next command names two builds that differ there; failed compiles are said
// (builds_taps.cpp).
void refine(Kernel& k, const std::vector<std::unique_ptr<BlobStore>>& blobs,
            const std::vector<BuildInfo>& infos);

// Matches the kernels of every build by key (builds_judge.cpp).
std::vector<Match> match_kernels(const std::vector<BuildSummary>& sums);

// A matched kernel's stages aligned across builds, its status and first varying stage.
Kernel judge(const Match& m, const std::vector<BuildSummary>& sums,
             const std::vector<std::unique_ptr<BlobStore>>& blobs,
             const std::vector<BuildInfo>& infos);

// The order of statuses in reports: varies, input-differs, not-in-every-build, same.
int status_rank(KernelStatus s);

// The entries of a stage's inputs string, and an entry's hash.
std::vector<std::string> split_inputs(const std::string& s);
std::string input_hash(const std::string& entry);

} // namespace kdet::capture::detail
