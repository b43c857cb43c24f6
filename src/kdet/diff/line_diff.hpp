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
// text_a/text_b give each element's text; line_a/line_b its original line number;
// own_a/own_b, when given, the text shown instead (the file's own, where text_a/text_b are
// canonical), a context line getting DiffLine::text_b when the two own texts differ.
// Stops before a hunk that would take the lines past `*budget` (when given),
// takes what it used from `*budget`, and sets `*cut` when it left hunks out.
std::vector<Hunk> make_hunks(const EditScript& script, const std::vector<std::string>& text_a,
                             const std::vector<std::string>& text_b,
                             const std::vector<size_t>& line_a, const std::vector<size_t>& line_b,
                             size_t context = 3, size_t* budget = nullptr, bool* cut = nullptr,
                             const std::vector<std::string>* own_a = nullptr,
                             const std::vector<std::string>* own_b = nullptr);

// One side of a renamed comparison (PTX function, SASS kernel), element by element: the text
// compared (canonical names; B's mapped to A's by map_names), the file's own text, the line.
struct HunkSide {
  std::vector<std::string> compared;
  std::vector<std::string> own;
  std::vector<size_t> line;
};

// Diffs a.compared with b.compared (Myers) and groups the script into hunks that show each
// side's own text, or the compared text when `canonical`. Sets `approximate` when the diff hit
// its cap; `budget` and `cut` as for make_hunks().
std::vector<Hunk> renamed_hunks(const HunkSide& a, const HunkSide& b, bool canonical,
                                bool& approximate, size_t& budget, bool& cut);

// B's symbols in A's names, for hunks in which a renaming does not show: where the alignment
// `align` keeps line i of A with line j of B, the symbol at each token position of b[j] takes
// the name of the one at the same position of a[i] (first pin wins, each A name taken once);
// a symbol never pinned keeps its own name with a ' appended. `Line` has `toks`, each with a
// `sym` indexing names_a (for a) or names_b (for b).
template <class Line>
std::vector<std::string>
map_names(const EditScript& align, const std::vector<Line>& a, const std::vector<Line>& b,
          const std::vector<std::string>& names_a, const std::vector<std::string>& names_b) {
  std::vector<std::string> mapped(names_b.size());
  std::vector<bool> taken(names_a.size(), false);
  for (const auto& ed : align.edits) {
    if (ed.op != Edit::Op::keep) continue;
    const auto& ta = a[ed.i].toks;
    const auto& tb = b[ed.j].toks;
    for (size_t t = 0; t < ta.size() && t < tb.size(); ++t) {
      uint32_t x = ta[t].sym, y = tb[t].sym;
      if (mapped[y].empty() && !taken[x]) {
        mapped[y] = names_a[x];
        taken[x] = true;
      }
    }
  }
  for (size_t y = 0; y < mapped.size(); ++y)
    if (mapped[y].empty()) mapped[y] = names_b[y] + "'";
  return mapped;
}

// The note a report gets when make_hunks() left hunks out.
std::string hunks_cut_note();

} // namespace kdet::diff::detail
