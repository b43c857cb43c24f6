//===- cache/launcher.hpp - `kdet cc COMPILER ARGS...`: a compiler launcher ------===//
//
// Reads a compiler's own command line (nvcc, ptxas, or any compiler that names
// its output with -o) the way CMake hands it to CMAKE_<LANG>_COMPILER_LAUNCHER:
// which file is the input, which the output (-o, --output-file, or nvcc's and
// ptxas's default names), which other files it reads, and, for nvcc, the
// preprocessing run (-M) whose dependency list puts headers into the key.
// docs/CACHE.md, "Launcher mode".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kdet::cache {

struct LaunchPlan {
  bool cacheable = false;
  std::string why;                       // not cacheable: why (the command then runs uncached)
  std::string input;                     // the primary input, as written
  std::string output;                    // the output file, as written (or the default name)
  std::vector<std::string> command;      // what to compile: depfile options removed, -o present
  std::vector<std::string> extra_inputs; // other files the command names that exist
  std::vector<std::string> deps_command; // nvcc: the -M run listing headers; else empty
  std::string depfile;              // where the build wants the dependency file (-MD/-MF), or ""
  std::vector<std::string> key_env; // variables the compiler reads (NVCC_APPEND_FLAGS...)
};

// Plans the launch of `argv` (argv[0] the compiler, as CMake passes it).
LaunchPlan plan_launch(const std::vector<std::string>& argv);

// The files a make rule (`target: dep dep \` ...) lists after its colon.
std::vector<std::string> make_rule_files(const std::string& rule);

// A hash over each file's path and content (a file that cannot be read enters as absent).
std::string files_hash(const std::vector<std::string>& files);

} // namespace kdet::cache
