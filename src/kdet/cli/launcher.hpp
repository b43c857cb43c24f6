//===- cli/launcher.hpp - `kdet cc COMPILER ARGS...` (CMAKE_CUDA_COMPILER_LAUNCHER) -===//
#pragma once

#include <string>
#include <vector>

namespace kdet::cli {

// True for the launcher form of kdet cc: `kdet cc COMPILER ARGS...` where COMPILER is a program
// (a path or a name found in PATH) and no `--` follows (the template form has one).
bool is_cc_launcher(int argc, char** argv);

// Runs the launcher form: caches the compile (docs/CACHE.md, "Launcher mode"), or runs the
// compiler uncached where kdet cannot tell its input and output, or where kdet itself cannot
// work (no temporary folder, no cache folder: said in a warning); returns the exit status.
int cc_launcher_main(int argc, char** argv);

// Runs `argv` as it is, in place of kdet (exec): its output and exit status are the build's.
// With `trouble` (kdet's own), first warns "kdet cc: warning: TROUBLE; the compile runs
// uncached". Returns only when the program cannot be run (127 or 126, said on stderr).
int run_uncached(const std::vector<std::string>& argv, const std::string& trouble = "");

} // namespace kdet::cli
