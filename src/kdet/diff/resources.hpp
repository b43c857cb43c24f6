//===- diff/resources.hpp - what a cubin's kernels ask of the GPU -----------===//
//
// Per kernel of a cubin: registers, stack, barriers, shared and constant
// memory and launch bounds, read from the cubin's own ELF sections and
// .nv.info attributes (where each comes from: resources.cpp). Spill stores and
// loads are not in the cubin: they come from ptxas -v (diff/ptxas.hpp) when
// kdet assembled the PTX itself, and are unknown otherwise.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/result.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff {

// One kernel's (or device function's) resources; nullopt where the cubin does not say.
struct KernelResources {
  std::string name;
  std::optional<uint32_t> registers;   // EIATTR_REGCOUNT, else .text sh_info's high byte
  std::optional<uint32_t> stack_frame; // EIATTR_FRAME_SIZE of the kernel's symbol (bytes)
  std::optional<uint32_t> min_stack;   // EIATTR_MIN_STACK_SIZE (bytes)
  std::optional<uint32_t> max_stack;   // EIATTR_MAX_STACK_SIZE (bytes)
  uint32_t barriers = 0;               // EIATTR_NUM_BARRIERS (absent: none used)
  uint64_t shared = 0;                 // static shared memory, as ptxas -v counts it
  uint64_t shared_reserved = 0; // bytes of .nv.shared.<kernel> before it: the system's window
  std::map<uint32_t, uint64_t> constant; // bank -> bytes of .nv.constant<bank>.<kernel>
  std::optional<std::array<uint32_t, 3>> max_threads; // EIATTR_MAX_THREADS (.maxntid)
  std::optional<std::array<uint32_t, 3>> reqntid;     // EIATTR_REQNTID (.reqntid)
  std::optional<uint32_t> max_reg_count;              // EIATTR_MAXREG_COUNT (.maxnreg)
  // Parameters: one EIATTR_KPARAM_INFO each (none recorded: unknown, or a kernel without any).
  std::optional<uint32_t> params;
  std::optional<uint64_t> spill_stores; // bytes; only from ptxas -v
  std::optional<uint64_t> spill_loads;
  std::string text; // the kernel's .text bytes (SASS instruction words)
};

// What kdet reads of one cubin for impact.
struct CubinResources {
  unsigned sm = 0;                        // from e_flags: 80 for sm_80, 90 for sm_90/sm_90a
  std::vector<KernelResources> kernels;   // entry points, in section order
  std::vector<KernelResources> functions; // device functions with a .text of their own
};

// Reads `cubin`, or says why it is not a readable CUDA ELF. Never throws.
Result<CubinResources> read_resources(std::string_view cubin);

// The parameter count `cubin` records for `kernel` (KernelResources::params), when it does.
std::optional<uint32_t> kernel_params(std::string_view cubin, const std::string& kernel);

// "sm_80" for 80.
std::string sm_name(unsigned sm);

// Parses "sm_80", "sm_90a", "compute_80", "80", "90a" into 80, 90; nullopt otherwise.
std::optional<unsigned> parse_sm(std::string_view text);

} // namespace kdet::diff
