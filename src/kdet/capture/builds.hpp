//===- capture/builds.hpp - kernels compared across captured builds ---------===//
//
// `kdet capture --builds N` and `kdet capture compare` read K capture folders
// (each one build of the same tree) and compare them kernel by kernel
// (docs/CAPTURE.md, "Builds"):
//
// - within a build, bundles are chained into kernels by content: a compile whose
//   input is an earlier compile's output (libNVVM's PTX fed to ptxas, PTX fed to
//   nvJitLink) belongs to the same kernel, and so does a driver (nvcc) that hands
//   on its tools' outputs;
// - a kernel is named by its entry names (PTX .entry, NVVM IR kernel annotations,
//   NVRTC name expressions), the input's file name only as a last resort;
// - across builds, kernels are matched by name, first compiler and options with
//   temporary paths normalized, never by ids that embed temporary names;
// - each matched kernel gets a status (same, varies, input-differs,
//   not-in-every-build) and, when it varies, the first stage that got the same
//   input in every build and gave different outputs.
//
// Memory grows with the number of compiles, not with their artifacts: blobs are
// read one at a time (names, NUL-stripped hashes, the classification of a
// varying stage's two outputs) and dropped.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/inprocess.hpp"
#include "kdet/diff/reach.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdet::capture {

// One build as it was run: where its capture is and how its pipeline ended.
struct BuildInfo {
  std::string dir;             // the capture folder as given (holds raw/ and bundles/)
  std::string pipeline_status; // "exited 0", "unknown" (no capture.json), ...
  int pipeline_exit = -1;      // -1: not known
  double seconds = 0;
  std::string log; // the pipeline's log (capture --builds), "" when none
  size_t compiles = 0, bundles = 0, kernels = 0;
  size_t probes = 0; // compiles with no input and no output (`ptxas --version`): no kernel
  std::vector<std::string> problems; // records or blobs that could not be read
  size_t listed = 0; // the compiles its capture.json lists (0: none, or no capture.json)
  std::vector<CompilerInside> inside; // compilers in the files its processes mapped
  size_t taps = 0;                    // stage files kept (DIR/build-K/taps)
  // Why this build is left out of the comparison ("" when it is compared): a build that did
  // not finish, a folder that is a link or holds no capture, records behind a link. It is
  // named as a failed build.
  std::string not_compared;
  // Why how its pipeline ended is not known where it should be: a capture.json that is a link,
  // no regular file, too large, not JSON or without a pipeline status. A failed build too: a
  // build that said it failed must never pass for want of its word.
  std::string status_problem;
};

// The words of a kernel's status, as in JSON.
enum class KernelStatus { same, nondeterministic, input_differs, not_in_every_build };
const char* to_string(KernelStatus s);

// One stage of a kernel in one build: a bundle and what it gave there.
struct StageBuild {
  size_t build = 0;   // index into BuildsResult::builds
  std::string bundle; // bundle id in that build
  std::string inputs; // the stage's own inputs (hash and normalized name each), one string
  std::vector<std::string> input_hashes; // the same inputs' hashes, in order
  std::string raw_options;               // the options as given, joined by spaces
  std::string lib_hash;                  // the content hash of the library or program
  std::map<std::string, std::vector<std::string>> outputs; // kind -> distinct hashes
  size_t compiles = 0;
  std::string file;    // a tapped stage's file under the build folder ("taps/triton/...")
  std::string made_by; // the unseen compilers that made an input no stage kdet saw made
  // A load stage's fatbin shipped in a program or library (compiled ahead of time): their paths.
  std::vector<std::string> shipped_in;
};

// One stage of a kernel, aligned across builds.
struct Stage {
  std::string kind;    // nvvm, nvrtc, nvjitlink, exec
  std::string program; // libnvvm.so.4, ptxas, ... (a base name)
  std::string library; // the path of the library or program (first build that has it)
  std::string options; // normalized, joined by spaces
  std::vector<StageBuild> builds;
  // How kdet saw it: "interposed" (a library call), "command" (a compiler command) or
  // "tapped" (files the build wrote, capture/taps.hpp); a tapped stage's framework
  // ("Triton"), its stage and the one before it ("ptx" from "llir"), and whether it is the
  // frontend's (its input is the source, or it has none).
  std::string seam, framework, label, from;
  bool frontend = false;
  bool by_name = false; // a tapped stage joined by entry names (builds_taps.cpp)
};

// One distinct output of a varying stage, the builds that gave it, and how far it reaches
// against the most common one.
struct OutputSeen {
  std::string hash;
  std::vector<size_t> builds;
  std::optional<diff::VariantReach> reach;
};

// How the first varying stage's outputs differ (kdet diff's classification).
struct StageDifference {
  std::string output_kind; // ptx, cubin, nvvm, ...
  std::string change;      // diff::Change spelling: "reordered", "code", ...
  std::string summary;     // diff::summary_line
  std::string hash_a, hash_b;
  size_t build_a = 0, build_b = 0;
  bool within_build = false; // both outputs came from one build (a bundle varied in it)
};

struct Kernel {
  std::string name;     // entry names, sorted, joined by ", " (or the input's file name)
  std::string display;  // shorter: demangled where shorter, long names cut with a hash
  std::string target;   // sm_90a, compute_80, ... ("" when no option names one)
  std::string compiler; // the first stage's kind and program ("exec ptxas", "nvvm libnvvm.so.4")
  KernelStatus status = KernelStatus::same;
  std::vector<size_t> present;         // builds it was compiled in
  std::vector<Stage> stages;           // in dataflow order
  std::optional<size_t> first_varying; // index into stages
  std::optional<StageDifference> difference;
  bool final_output_varies = false;
  std::string input_detail; // input-differs: which input of which stage, and how it differs
  std::vector<std::string> notes;
  std::string next; // the next command ("kdet explain DIR/build-1/bundles/ID")
  // How far the first varying stage's two outputs (difference) reach, when they are PTX or
  // cubins: filled by add_reaches, not by compare_builds.
  std::optional<diff::VariantReach> reach;
  // A difference made inside the process, upstream of every stage kdet saw: the compilers
  // kdet could not see into that were loaded there (then status is varies, never
  // input-differs). Empty otherwise.
  std::string made_inside;
  // The most kept text files (tap groups) that named all of its entries in one build, when it
  // was not joined to one of them: why no tapped stage says where it began.
  size_t named_in = 0;
  bool compile_failed = false; // a stage failed (non-zero return code) in every build
  // With more than two distinct outputs at the first varying stage: each, with its builds and
  // reach (add_reaches).
  std::vector<OutputSeen> outputs_seen;
  // A module no build compiled: every stage a load of a fatbin shipped in a program or library
  // (compiled ahead of time, e.g. the fatbins PyTorch's libraries register).
  bool shipped() const;
};

struct BuildsResult {
  std::vector<BuildInfo> builds;
  std::vector<Kernel> kernels;            // varying first, then by name
  bool warm = false;                      // --warm: caches kept between builds
  std::vector<std::string> caches;        // VAR=DIR set fresh for every build
  std::vector<std::string> failed_builds; // "build 2 (exited 7): its log DIR/build-2/pipeline.log"
  bool interrupted = false;
  std::vector<std::string> artifacts; // --artifacts globs
  std::vector<std::string> recorded;  // variables a framework tap records ("CUTE_DSL_ARCH=...")
  std::vector<std::string> varied;    // --vary-builds factors, as applied
  size_t count(KernelStatus s) const;
  size_t compared() const; // the builds whose kernels were compared (not_compared empty)
};

// A kernel cache `capture --builds` gives a fresh empty folder in every build (unless --warm).
struct KnownCache {
  const char* name;     // the folder's name under DIR/caches
  const char* variable; // the variable that moves it
  const char* what;
};
const std::vector<KnownCache>& known_caches();

// Compares the capture folders `dirs` (each with raw/records and raw/blobs). `infos`, when
// given, says how each build's pipeline ended (capture --builds), or why a build is not
// compared; a build with no pipeline status has its folder's capture.json read when present.
// A build not compared, or whose folder holds no capture (refused as capture_problem says),
// is named in failed_builds; kernels are compared only when two builds or more are left.
BuildsResult compare_builds(const std::vector<std::string>& dirs,
                            std::vector<BuildInfo> infos = {});

// Why `dir` cannot be read as a capture ("" when it can): its raw/records is absent, a link
// or no folder (kdet never follows a link inside a capture folder).
std::string capture_problem(const std::string& dir);

// Fills the reach of each varying kernel whose first varying stage gave PTX or cubins: the
// difference's two outputs, PTX assembled with `ptxas` for the kernel's target (as its options
// name it). One ptxas run per side and kernel (0.1 to 1 s each).
void add_reaches(BuildsResult& r, const diff::PtxasOptions& ptxas);

// The census of the kernels' reaches (those add_reaches filled).
diff::ReachCensus reach_census(const BuildsResult& r);

// The capture folders to compare for `dir`: itself when it holds raw/, else its build-K
// folders (a `capture --builds` output) in order of K, each as a BuildInfo with its `dir`.
// A build-K that cannot be compared is kept with `not_compared` saying why: a link, no
// folder, no capture in it, or unfinished (no capture.json, which a build writes last).
// Throws kdet::Error naming `dir` when neither is there, or both are.
std::vector<BuildInfo> capture_folders(const std::string& dir);

} // namespace kdet::capture
