//===- diff/internal.hpp - per-format comparers behind compare() -----------===//
#pragma once

#include "kdet/diff/diff.hpp"
#include "kdet/diff/sass_reader.hpp"
#include "kdet/util/result.hpp"

#include <string_view>
#include <utility>

namespace kdet::diff::detail {

// PTX: per .entry/.func and the module-level part (ptx_compare.cpp); hunks in each file's own
// statements, or in canonical names when `canonical`.
Report compare_ptx(std::string_view a, std::string_view b, bool canonical);

// CUDA ELF: per kernel, module sections, debug/notes (cubin_compare.cpp); .text by canonical
// SASS when `sass` names nvdisasm and it lists both inputs, else as 16-byte words.
// Throws kdet::Error naming the side when an input is not a readable ELF.
Report compare_cubin(std::string_view a, std::string_view b, const SassOptions& sass,
                     bool canonical);

// Runs nvdisasm on both cubins (sass_compare.cpp): their listings, A's first, or what went
// wrong (could not start, exited N, killed by a signal, timed out) when either run failed.
Result<std::pair<SassListing, SassListing>> disassemble(const SassOptions& sass, std::string_view a,
                                                        std::string_view b);

// Compares one function's canonical SASS (sass_compare.cpp): fills e's counts, aspects, notes
// and hunks (from `*budget` lines, setting `cut` when some were left out) and returns the
// class: renamed, reordered or code (identical when the listings are the same).
// Hunks show each listing's own instructions, or canonical lines when `canonical`.
Change compare_sass(const SassFunction& a, const SassFunction& b, bool canonical, Entry& e,
                    bool& approximate, size_t& budget, bool& cut);

// Unified line diff (text_diff.cpp); the same lines in another order are ordering_only.
Report compare_text(std::string_view a, std::string_view b);

// Differing byte ranges (text_diff.cpp).
Report compare_binary(std::string_view a, std::string_view b);

// Differing ranges of two byte strings (offsets coincide), merged when closer
// than `gap`; at most `max_ranges` listed, `total` counts every differing byte.
std::vector<ByteRange> byte_ranges(std::string_view a, std::string_view b, uint64_t& total,
                                   size_t max_ranges = 64, size_t gap = 8);

// Sets report.overall to the most severe entry's change (identical when none).
void set_overall(Report& report);

// An entry present on one side only: removed (only in A) or added (only in B),
// with its instruction count on that side.
Entry one_sided_entry(std::string name, std::string kind, bool only_in_a, size_t count = 0);

} // namespace kdet::diff::detail
