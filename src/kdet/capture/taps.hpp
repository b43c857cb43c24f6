//===- capture/taps.hpp - a build's own intermediate files as stages --------===//
//
// A compiler inside the pipeline's process (Triton's LLVM, XLA, a DSL's
// embedded libNVVM) makes no call kdet can interpose, but most write what each
// stage made when asked: Triton's cache folder holds every kernel's .ttir,
// .ttgir, .llir, .ptx and .cubin; XLA dumps HLO, LLVM IR and PTX with
// --xla_dump_to; CuTe DSL keeps its IR, PTX and cubin with CUTE_DSL_KEEP.
// `kdet capture --builds` turns these on in every build (a fresh folder each
// build), keeps the files per build in DIR/build-K/taps, and makes them stages
// of their kernels (capture/builds_taps.cpp). `--artifacts GLOB` adds files of
// the pipeline's own. docs/CAPTURE.md, "Stage taps".
//
// To add a framework: one row in k_frameworks (taps.cpp): the folder its files go
// to, the variables that send them there, the file names kept, how a file names
// its kernel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kdet::capture {

// One framework whose stage files kdet keeps in every build.
struct FrameworkTap {
  const char* name;    // "triton": the folder under DIR/build-K/taps
  const char* display; // "Triton"
  const char* cache;   // a known cache's folder name that holds its files ("triton"), or null:
                       // then DIR/caches/tap-NAME is made fresh and `env` points it there
  // The variables that turn its dumps on into `folder` ("K=V"; XLA_FLAGS keeps the user's
  // own flags); null when kdet's cache variable already sends its files there.
  std::vector<std::string> (*env)(const std::string& folder);
  // The kernel a kept file (its path under the folder) belongs to.
  std::string (*group)(const std::string& rel);
  const char* kept;     // space-separated name endings kept (".ttir .ptx ...")
  const char* recorded; // a variable whose value the report records ("CUTE_DSL_ARCH"), or null
};
const std::vector<FrameworkTap>& framework_taps();

// Where a file's stage sits in a compile: source, HLO, MLIR, LLVM IR, PTX, cubin. Files of
// other classes (metadata, logs) are kept but are no stage.
enum class StageClass { source, hlo, mlir, llvm, ptx, cubin, none };
const char* to_string(StageClass c);

// One kept file of one build.
struct TapFile {
  std::string framework; // "triton", or "artifacts" for --artifacts
  std::string display;   // "Triton", "--artifacts"
  std::string rel;       // its path under DIR/build-K/taps
  std::string origin;    // where the build wrote it (absolute)
  std::string hash;      // artifact hash (PTX without trailing NULs)
  unsigned long long size = 0;
  std::string group; // the kernel it belongs to (stem, XLA module, Inductor kernel names)
  std::string label; // its stage: "ttir", "ir-with-opt.ll", "ptx"
  StageClass cls = StageClass::none;
  int rank = 0; // order within its kernel
};

// The class and order of a file by its name's ending.
StageClass stage_class(const std::string& name, int& rank);

// The variables that turn every framework's dumps on for one build, each into a fresh
// folder under abs_dir/caches (made here, beneath dir_fd); `recorded` gets "VAR=VALUE" for
// each framework's recorded variable ("CUTE_DSL_ARCH=(unset)").
std::vector<std::string> fresh_tap_folders(int dir_fd, const std::string& abs_dir,
                                           std::vector<std::string>& recorded);

// Removes the regular files that match the --artifacts globs (relative to `cwd`), so that
// nothing a previous build left counts; returns how many.
size_t clear_artifacts(const std::vector<std::string>& globs, const std::string& cwd);

// After a build: copies every framework's kept files and the files matching `globs` into
// build_dir/taps (beneath build_fd), writes build_dir/taps/index.tsv, and returns them.
std::vector<TapFile> keep_taps(int build_fd, const std::string& build_dir,
                               const std::string& abs_dir, const std::vector<std::string>& globs,
                               const std::string& cwd, std::vector<std::string>& problems);

// The kept files of a build folder (its taps/index.tsv; none without one).
std::vector<TapFile> read_taps(const std::string& build_dir, std::vector<std::string>& problems);

} // namespace kdet::capture
