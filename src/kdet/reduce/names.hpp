//===- reduce/names.hpp - short stand-ins for long mangled names --------------===//
//
// Real frontends name kernels with thousands of characters (numba's
// `_ZN6cudapy8__main__5saxpyB2v1B96cw51...`), which make a reduced file and the
// diff of its variants unreadable. kdet reduce renames them in the result (when
// the renamed text still varies) and shortens them in the diff, with one table
// in the reproducer's README.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/reduce/passes.hpp"

#include <string>
#include <vector>

namespace kdet::reduce {

struct Rename {
  std::string from; // the long name, as a key (no sigil, unquoted)
  std::string to;   // its stand-in
};

// Names longer than this are renamed.
constexpr size_t k_long_name = 32;

// The stand-ins for the long global names of `text` (NVVM IR: @names but intrinsics and
// libdevice's __nv_ functions; PTX: identifiers), longest first. A mangled name gets its
// nested components (`_ZN6cudapy8__main__5saxpyB2v1...` -> `cudapy_saxpy`), made unique.
std::vector<Rename> long_names(TextFormat format, const std::string& text);

// `text` with each name renamed: NVVM IR through its @names, anything else (PTX, a diff) by
// replacing the long names where they occur, longest first.
std::string apply_renames(TextFormat format, const std::string& text,
                          const std::vector<Rename>& renames);

} // namespace kdet::reduce
