//===- diff/ptxas.hpp - assembles PTX with ptxas for `kdet impact` ----------===//
//
// ptxas runs through util/exec (a private temporary folder, a timeout, its
// process group killed), with -v so that what it says of each function
// (registers, barriers, stack frame, spill stores and loads, shared and
// constant memory) comes back beside the cubin. A ptxas that fails, crashes or
// hangs is an Assembly with ok == false and its message, never an exception.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kdet::diff {

// Which ptxas to run.
struct PtxasOptions {
  std::string ptxas; // its path; "" when not found
  std::string why_not;
  std::chrono::milliseconds timeout{300000};
};

// Finds ptxas: `requested` (a path, or a name looked up in PATH) when given, else
// $KDET_PTXAS, then PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, the build's CUDA home's bin,
// /usr/local/cuda/bin. Throws kdet::Error naming `what` (--ptxas) or KDET_PTXAS when a path
// given is not an executable file; not finding one is not an error (why_not says so).
PtxasOptions find_ptxas(const std::string& requested, const std::string& what);

// What `ptxas -v` printed for one function.
struct PtxasFunction {
  std::optional<uint32_t> registers, barriers;
  std::optional<uint64_t> stack_frame, spill_stores, spill_loads, shared;
  std::map<uint32_t, uint64_t> constant; // bank -> bytes (cmem[N])
};

// Reads `ptxas -v` output: per function name.
std::map<std::string, PtxasFunction> parse_ptxas_verbose(std::string_view log);

// One assembly.
struct Assembly {
  bool ok = false;
  std::string cubin;
  std::string log;   // ptxas's own output (stderr and stdout)
  std::string error; // when !ok: "ptxas exited 255: ptxas fatal : ..." and the like
  std::map<std::string, PtxasFunction> functions;
};

// `ptxas -v -arch=ARCH` on `ptx` (trailing NUL bytes, as libNVVM hands PTX over, dropped).
Assembly assemble(const PtxasOptions& options, std::string_view ptx, const std::string& arch);

// The PTX's `.target` (first word: "sm_80"), or "" when it has none.
std::string ptx_target(std::string_view ptx);

} // namespace kdet::diff
