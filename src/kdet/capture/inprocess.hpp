//===- capture/inprocess.hpp - compilers inside the pipeline's own processes ===//
//
// kdet sees a compile where it crosses a border it can interpose: a call into
// libNVVM, NVRTC or nvJitLink, or a compiler command. A compiler built into
// another library (an LLVM with the NVPTX target in libtriton, XLA or llvmlite;
// a libNVVM or PTX compiler linked into a DSL's own DSO) crosses none. The
// preload writes the files each process had mapped (RAW/maps, preload/maps.cpp);
// this reads them and classifies each distinct file once, by cheap signatures in
// its bytes and its exported symbols, so that a capture names the compilers it
// could not see into instead of reading as clean (docs/CAPTURE.md, "Compilers
// kdet cannot see into").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/records.hpp"

#include <map>
#include <string>
#include <vector>

namespace kdet::capture {

// How kdet sees the compiles a file makes.
enum class Seam {
  interposed, // it exports the libNVVM, NVRTC or nvJitLink API the preload wraps
  command,    // it is a compiler command capture ran (ptxas, nvcc, --exec NAME)
  driver,     // the CUDA driver or its PTX JIT: what it loads is the driver's (the load seam)
  blind,      // reached through its own API only: kdet sees none of its compiles
};
const char* to_string(Seam s);

// A file mapped into the pipeline's processes that carries a GPU compiler.
struct CompilerInside {
  std::string path;
  std::vector<std::string> inside; // "an NVPTX back end", "libNVVM", "a PTX compiler"
  Seam seam = Seam::blind;
  std::vector<long> pids; // the processes that had it mapped
  // "libtriton.so has an NVPTX back end"
  std::string words() const;
};

// What one capture's processes had mapped: pid -> the files (paths), from RAW/maps.
using MappedFiles = std::map<long, std::vector<std::string>>;
MappedFiles read_maps(const std::string& raw, std::vector<std::string>& problems);

// The files of `maps` that carry a compiler, each classified once per kdet process (a memo
// by device, inode, size and modification time), blind ones first. `compiles` are the
// capture's: a file a command compile ran is that command's (Seam::command).
std::vector<CompilerInside> compilers_inside(const MappedFiles& maps,
                                             const std::vector<Compile>& compiles);

// The blind compilers with a code generator (an NVPTX back end, libNVVM or a PTX compiler)
// of the process that ran `c`, or of its nearest ancestor that had one mapped; those of any
// process of the capture when none of its line had maps written. Empty when none was loaded.
std::vector<const CompilerInside*> unseen_makers(const std::vector<CompilerInside>& inside,
                                                 const Compile& c);

// "libtriton.so has an NVPTX back end" for each, joined with "; ".
std::string makers_words(const std::vector<const CompilerInside*>& makers);

} // namespace kdet::capture
