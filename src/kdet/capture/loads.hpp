//===- capture/loads.hpp - modules loaded through the CUDA driver ----------===//
//
// The driver's load seam (docs/CAPTURE.md): every image the pipeline handed to the driver
// (cuModuleLoadData/Ex, cuModuleLoadFatBinary, cuModuleLoad, cuLibraryLoadData/FromFile, the
// runtime's fatbin registration; preload/driver.cpp) is the last stage of the kernels it
// holds. Each distinct image is joined by content to the captured compiles: it is one's
// output, or a fatbin that holds one's output. An image no captured compile made names its
// kernels as made by a compiler kdet did not see. A pipeline without a GPU loads nothing,
// and nothing here shows.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/inprocess.hpp"
#include "kdet/capture/records.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace kdet::capture {

class BlobStore;

// One distinct image the driver was given, with every load of it.
struct LoadedModule {
  std::string image;  // artifact hash (PTX without its NUL)
  std::string stored; // the blob holding its bytes, when not `image`
  uint64_t size = 0;
  std::string form;                 // ptx, cubin, fatbin, or bytes
  std::vector<std::string> kernels; // entry names: PTX .entry, cubin entries, a fatbin's members'
  std::set<std::string> via;        // cuModuleLoadData, ..., __cudaRegisterFatBinary
  std::set<std::string> paths;      // the files it was loaded from (cuModuleLoad)
  // The programs and libraries that ship it, compiled ahead of time: a fatbin the CUDA runtime
  // registered (__cudaRegisterFatBinary) from one's static data.
  std::set<std::string> shipped_in;
  std::set<long> pids;
  size_t loads = 0;
  // The captured compiles (bundle ids) whose output it is (`holds` false) or holds (a fatbin
  // member, `holds` true). Empty: made by a compiler kdet did not see.
  std::vector<std::string> made_by;
  bool holds = false;
  std::string unseen_makers; // blind compilers of its processes, when unseen()
  bool seen() const { return !made_by.empty(); }
  // Neither made by a compile kdet saw nor shipped in a file: made inside the pipeline by a
  // compiler kdet could not see.
  bool unseen() const { return made_by.empty() && shipped_in.empty(); }
  // "made by a compiler kdet did not see (libtriton.so has an NVPTX back end)", "shipped in
  // libtorch_cuda.so (compiled ahead of time)", or "the output of bundle ID" / "holds the
  // output of bundle ID".
  std::string words() const;
  // The file names (no folder) of shipped_in, joined by ", ".
  std::string shipped_names() const;
};

// The distinct modules of `loads` (read_load_records), in first-load order, joined to the
// `compiles` (named by artifact hash, grouped into bundles) and read from `blobs`.
std::vector<LoadedModule> loaded_modules(std::vector<Compile>& loads,
                                         const std::vector<Compile>& compiles,
                                         const BlobStore& blobs,
                                         const std::vector<CompilerInside>& inside);

// The file name a kept image gets: "HASH.ptx", "HASH.cubin", "HASH.fatbin" or "HASH.bin".
std::string loaded_file(const LoadedModule& m);

// Writes each module's bytes to `out_fd`/loads/loaded_file(m) (`shown` names the folder in
// errors), for `kdet diff` between builds; throws Error on failure.
void write_loads(int out_fd, const std::string& shown, const BlobStore& blobs,
                 const std::vector<LoadedModule>& modules);

nlohmann::json loads_json(const std::vector<LoadedModule>& modules);

// The summary's lines (none when nothing was loaded).
std::string loads_summary(const std::vector<LoadedModule>& modules);

} // namespace kdet::capture
