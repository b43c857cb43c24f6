//===- reduce/passes_ir.hpp - the NVVM IR passes and their cleanup ------------===//
//
// The splits of the NVVM IR rows of the pass table (reduce/passes.hpp) and the
// cleanup every IR candidate gets. A dropped instruction that defines a value
// leaves a marker line (`;kdet-undef %x`); the cleanup replaces the value's uses
// by `undef` (valid for any type, as llvm-reduce does), so no pass needs types.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/reduce/passes.hpp"

#include <string>
#include <utility>
#include <vector>

namespace kdet::reduce::ir {

Split ll_functions(const std::string& text);
Split ll_bodies(const std::string& text);
Split ll_branches_else(const std::string& text);
Split ll_branches_then(const std::string& text);
Split ll_instructions(const std::string& text);
Split ll_debug(const std::string& text);
Split ll_attachments(const std::string& text);
Split ll_attributes(const std::string& text);
Split ll_metadata(const std::string& text);

// The cleanup of reduce::cleanup for NVVM IR.
std::string ll_cleanup(const std::string& text);

// Lines of each `define ... {` .. `}` block: [first, last] indices.
std::vector<std::pair<size_t, size_t>> define_blocks(const std::vector<std::string>& lines);

// The first body line of the block headed by lines[a] (ending at b): the `{` may end the
// `define` line (clang, Triton) or stand on the next line (numba's llvmlite).
size_t body_start(const std::vector<std::string>& lines, size_t a, size_t b);

// The marker a dropped value-defining instruction leaves.
constexpr const char* k_undef_marker = ";kdet-undef ";

} // namespace kdet::reduce::ir
