//===- diff/text_diff.cpp - fallbacks: unified line diff, byte ranges ------===//
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::diff::detail {

namespace {

std::vector<std::string> split_lines(std::string_view t) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string_view::npos) nl = t.size();
    std::string_view l = t.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.emplace_back(l);
    pos = nl + 1;
  }
  return out;
}

} // namespace

Report compare_text(std::string_view a, std::string_view b) {
  Report r;
  r.format = Format::text;
  r.size_a = a.size();
  r.size_b = b.size();
  if (a == b) return r;
  auto la = split_lines(a), lb = split_lines(b);
  Interner in;
  std::vector<uint32_t> ia, ib;
  std::vector<size_t> na, nb;
  for (size_t i = 0; i < la.size(); ++i)
    ia.push_back(in.id(la[i])), na.push_back(i + 1);
  for (size_t i = 0; i < lb.size(); ++i)
    ib.push_back(in.id(lb[i])), nb.push_back(i + 1);
  EditScript s = diff_sequences(ia, ib);
  r.approximate = s.approximate;
  size_t budget = k_max_report_hunk_lines;
  bool cut = false;
  r.hunks = make_hunks(s, la, lb, na, nb, 3, &budget, &cut);
  r.overall = Change::code;
  if (cut) r.notes.push_back(hunks_cut_note());
  if (r.hunks.empty() && !cut) {
    r.overall = Change::trivia;
    r.notes.push_back("only line endings differ");
  } else if (ia.size() == ib.size()) {
    std::sort(ia.begin(), ia.end());
    std::sort(ib.begin(), ib.end());
    if (ia == ib) { // the same lines, as a multiset: diffoscope's "ordering differences only"
      r.overall = Change::reordered;
      r.ordering_only = true;
      r.notes.push_back(fmt::format("the same lines in another order: {} of {} moved",
                                    la.size() - s.kept, la.size()));
    }
  }
  if (r.approximate) r.notes.push_back("the diff hit its size cap; the diff may not be minimal");
  return r;
}

std::vector<ByteRange> byte_ranges(std::string_view a, std::string_view b, uint64_t& total,
                                   size_t max_ranges, size_t gap) {
  std::vector<ByteRange> out;
  total = 0;
  const size_t common = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < common) {
    if (a[i] == b[i]) {
      ++i;
      continue;
    }
    size_t start = i, last = i;
    while (i < common && i - last <= gap) {
      if (a[i] != b[i]) {
        last = i;
        ++total;
      }
      ++i;
    }
    if (out.size() < max_ranges) out.push_back({start, last - start + 1});
    i = last + 1;
  }
  if (a.size() != b.size()) {
    size_t extra = std::max(a.size(), b.size()) - common;
    total += extra;
    if (out.size() < max_ranges) out.push_back({common, extra});
  }
  return out;
}

Report compare_binary(std::string_view a, std::string_view b) {
  Report r;
  r.format = Format::binary;
  r.size_a = a.size();
  r.size_b = b.size();
  r.byte_ranges = byte_ranges(a, b, r.bytes_differing);
  r.overall = r.bytes_differing ? Change::code : Change::identical;
  if (r.size_a != r.size_b)
    r.notes.push_back("sizes differ; the tail range counts the extra bytes of the longer input");
  return r;
}

} // namespace kdet::diff::detail
