//===- diff/cubin_entries.hpp - the kernels a loaded image holds -----------===//
//
// For readers outside diff/ (capture's load seam): the entry names of a cubin, and the
// members of a fatbin, without the ELF reader's internals.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff {

// The kernels of a CUDA ELF (functions whose symbol carries STO_CUDA_ENTRY), in section
// order; empty when `image` is not one that can be read.
std::vector<std::string> cubin_entry_names(std::string_view image);

// One member of a fatbin: PTX (kind 1) or an ELF (kind 2), with its bytes when they are
// stored plainly (`compressed`: they are not, and `bytes` is empty).
struct FatbinMember {
  int kind = 0;
  unsigned arch = 0; // sm_XX as XX
  bool compressed = false;
  std::string_view bytes;
};

// The members of a fatbin (magic 0xba55ed50), as far as its entries can be read; empty when
// `image` is not a fatbin. Never reads past `image`.
std::vector<FatbinMember> fatbin_members(std::string_view image);

} // namespace kdet::diff
