//===- capture/kernel_names.hpp - naming captured kernels across builds -----===//
//
// What `capture --builds` and `capture compare` need to name a kernel the same
// way in every build: its entry names read from PTX or NVVM IR text, a shorter
// form for the terminal, and paths with their temporary parts normalized.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/names.hpp" // demangle_if_shorter, display_name: one shortening

#include <string>
#include <string_view>
#include <vector>

namespace kdet::capture {

// The kernels a PTX or NVVM IR text defines, in order of appearance, without duplicates:
// PTX `.entry NAME`; NVVM IR `!"kernel"` annotations (`void (...)* @NAME` or `ptr @NAME`)
// and `define ... ptx_kernel ... @NAME(`. Quoted IR names (`@"a.b"`) lose their quotes.
// Empty for anything else (bitcode, cubin, CUDA C++).
std::vector<std::string> entry_names(std::string_view text);

// `text` with the parts of paths that change from one build to the next made fixed:
// the first component under $TMPDIR becomes "{tmpdir}/*", under /tmp, /var/tmp or /dev/shm "*",
// nvcc's tmpxft_PID_N names become "{tmpxft}", and runs of 16 or more hex digits "{hex}".
std::string normalize_volatile(std::string_view text);

// The target an option list names (`-arch=compute_90a`, `-arch sm_90`, `--gpu-name=sm_90a`,
// `-arch=sm_90`, `--gpu-architecture=...`); "" when none does.
std::string target_of(const std::vector<std::string>& options);

} // namespace kdet::capture
