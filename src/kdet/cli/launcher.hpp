//===- cli/launcher.hpp - `kdet cc COMPILER ARGS...` (CMAKE_CUDA_COMPILER_LAUNCHER) -===//
#pragma once

namespace kdet::cli {

// True for the launcher form of kdet cc: `kdet cc COMPILER ARGS...` where COMPILER is a program
// (a path or a name found in PATH) and no `--` follows (the template form has one).
bool is_cc_launcher(int argc, char** argv);

// Runs the launcher form: caches the compile (docs/CACHE.md, "Launcher mode"), or runs the
// compiler uncached where kdet cannot tell its input and output; returns the exit status.
int cc_launcher_main(int argc, char** argv);

} // namespace kdet::cli
