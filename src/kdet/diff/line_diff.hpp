//===- diff/line_diff.hpp - Myers diff of token sequences, with a cap -------===//
//
// Internal to diff/: the shortest edit script between two sequences of
// interned lines (Myers' O(ND) algorithm after trimming the common prefix and
// suffix). Work is capped: past `max_d` edits, unique common elements are used
// as anchors (patience diff) and Myers runs again between them; what is still
// too far apart is reported as one replaced block. Either way the result is
// marked approximate (valid, but maybe not minimal), and 100k-line inputs that
// differ everywhere stay fast.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/diff/diff.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kdet::diff::detail {

// One step of an edit script: keep (a[i] == b[j]), delete a[i], or insert b[j].
struct Edit {
  enum class Op : uint8_t { keep, del, ins };
  Op op;
  uint32_t i; // index into a (keep, del)
  uint32_t j; // index into b (keep, ins)
};

// Result of diff_sequences().
struct EditScript {
  std::vector<Edit> edits;
  size_t kept = 0;          // length of the common subsequence found (an LCS unless approximate)
  bool approximate = false; // the cap was hit
};

// Maps strings to small integers so sequences compare by id.
class Interner {
public:
  // The id of `s`, adding it when new.
  uint32_t id(std::string_view s);

private:
  std::unordered_map<std::string, uint32_t> m_ids;
};

// Default cap on the edit distance Myers explores (memory is O(max_d^2)).
constexpr size_t k_default_max_d = 2000;

// Shortest edit script from a to b (exact unless the cap is hit).
EditScript diff_sequences(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                          size_t max_d = k_default_max_d);

// Most hunk lines one Report keeps: hunks past it are left out (with a note), so
// a report's size does not grow with inputs that differ everywhere.
constexpr size_t k_max_report_hunk_lines = 20000;

// Groups an edit script into hunks with `context` lines around changes.
// text_a/text_b give each element's text; line_a/line_b its original line number.
// Stops before a hunk that would take the lines past `*budget` (when given),
// takes what it used from `*budget`, and sets `*cut` when it left hunks out.
std::vector<Hunk> make_hunks(const EditScript& script, const std::vector<std::string>& text_a,
                             const std::vector<std::string>& text_b,
                             const std::vector<size_t>& line_a, const std::vector<size_t>& line_b,
                             size_t context = 3, size_t* budget = nullptr, bool* cut = nullptr);

// The note a report gets when make_hunks() left hunks out.
std::string hunks_cut_note();

} // namespace kdet::diff::detail
