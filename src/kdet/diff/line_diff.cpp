//===- diff/line_diff.cpp - Myers diff of token sequences, with a cap -------===//
//
// Myers, "An O(ND) Difference Algorithm and Its Variations" (1986), greedy
// forward search keeping one snapshot of the furthest-reaching paths per
// edit distance d (memory O(D^2), D capped), then a backtrack.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/line_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

namespace kdet::diff::detail {

uint32_t Interner::id(std::string_view s) {
  auto it = m_ids.find(std::string(s));
  if (it != m_ids.end()) return it->second;
  uint32_t n = static_cast<uint32_t>(m_ids.size());
  m_ids.emplace(std::string(s), n);
  return n;
}

namespace {

// Myers on a[a0..a1) vs b[b0..b1); appends edits; false when the cap was hit.
bool myers(const std::vector<uint32_t>& a, size_t a0, size_t a1, const std::vector<uint32_t>& b,
           size_t b0, size_t b1, size_t max_d, std::vector<Edit>& out) {
  const int n = static_cast<int>(a1 - a0);
  const int m = static_cast<int>(b1 - b0);
  const int limit = static_cast<int>(std::min<size_t>(static_cast<size_t>(n + m), max_d));
  // v[k + off] = furthest x on diagonal k.
  const int off = limit + 1;
  std::vector<int> v(2 * static_cast<size_t>(limit) + 3, 0);
  std::vector<std::vector<int>> trace; // trace[d][k + d + 1] = v before round d
  int found = -1;
  for (int d = 0; d <= limit && found < 0; ++d) {
    trace.emplace_back(v.begin() + (off - d - 1), v.begin() + (off + d + 2));
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                       : v[off + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[a0 + x] == b[b0 + y])
        ++x, ++y;
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return false;
  std::vector<Edit> rev;
  int x = n, y = m;
  for (int d = found; d >= 0; --d) {
    const auto& t = trace[static_cast<size_t>(d)];
    // NOLINTNEXTLINE(bugprone-misplaced-widening-cast): k + d + 1 lies in [0, 2d + 2], no overflow
    auto at = [&](int k) { return t[static_cast<size_t>(k + d + 1)]; };
    int k = x - y;
    int prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    int prev_x = at(prev_k);
    int prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x, --y;
      rev.push_back({Edit::Op::keep, static_cast<uint32_t>(a0 + x), static_cast<uint32_t>(b0 + y)});
    }
    if (d > 0) {
      if (x == prev_x)
        rev.push_back(
            {Edit::Op::ins, static_cast<uint32_t>(a0 + x), static_cast<uint32_t>(b0 + prev_y)});
      else
        rev.push_back(
            {Edit::Op::del, static_cast<uint32_t>(a0 + prev_x), static_cast<uint32_t>(b0 + y)});
    }
    x = prev_x;
    y = prev_y;
  }
  out.insert(out.end(), rev.rbegin(), rev.rend());
  return true;
}

// Coarse edits for a[a0..a1) vs b[b0..b1): delete all, insert all.
void replace_all(size_t a0, size_t a1, size_t b0, size_t b1, std::vector<Edit>& out) {
  for (size_t i = a0; i < a1; ++i)
    out.push_back({Edit::Op::del, static_cast<uint32_t>(i), static_cast<uint32_t>(b0)});
  for (size_t j = b0; j < b1; ++j)
    out.push_back({Edit::Op::ins, static_cast<uint32_t>(a1), static_cast<uint32_t>(j)});
}

// When Myers hits its cap: patience-style anchors (elements that occur exactly
// once in both ranges, longest increasing run of them), then Myers again in each
// gap, recursing a few levels; what is still too far apart is replaced whole.
void anchored(const std::vector<uint32_t>& a, size_t a0, size_t a1, const std::vector<uint32_t>& b,
              size_t b0, size_t b1, size_t max_d, int depth, std::vector<Edit>& out) {
  std::unordered_map<uint32_t, std::pair<int64_t, int64_t>>
      pos; // id -> (index in a or -2 if repeated, in b)
  for (size_t i = a0; i < a1; ++i) {
    auto [it, fresh] = pos.try_emplace(a[i], static_cast<int64_t>(i), -1);
    if (!fresh) it->second.first = -2;
  }
  for (size_t j = b0; j < b1; ++j) {
    auto it = pos.find(b[j]);
    if (it == pos.end() || it->second.first < 0) continue;
    it->second.second = it->second.second == -1 ? static_cast<int64_t>(j) : -2;
  }
  std::vector<std::pair<size_t, size_t>> pairs;
  for (const auto& [id, p] : pos)
    if (p.first >= 0 && p.second >= 0)
      pairs.emplace_back(static_cast<size_t>(p.first), static_cast<size_t>(p.second));
  std::sort(pairs.begin(), pairs.end());
  // Longest increasing subsequence of the b positions (patience sorting).
  std::vector<size_t> tails, prev(pairs.size(), SIZE_MAX);
  for (size_t k = 0; k < pairs.size(); ++k) {
    auto it = std::lower_bound(tails.begin(), tails.end(), pairs[k].second,
                               [&](size_t t, size_t v) { return pairs[t].second < v; });
    if (it != tails.begin()) prev[k] = *(it - 1);
    if (it == tails.end())
      tails.push_back(k);
    else
      *it = k;
  }
  std::vector<std::pair<size_t, size_t>> anchors;
  for (size_t k = tails.empty() ? SIZE_MAX : tails.back(); k != SIZE_MAX; k = prev[k])
    anchors.push_back(pairs[k]);
  std::reverse(anchors.begin(), anchors.end());
  if (anchors.empty()) {
    replace_all(a0, a1, b0, b1, out);
    return;
  }
  auto gap = [&](size_t x0, size_t x1, size_t y0, size_t y1) {
    if (x0 == x1 || y0 == y1) {
      replace_all(x0, x1, y0, y1, out);
      return;
    }
    std::vector<Edit> tmp;
    if (myers(a, x0, x1, b, y0, y1, max_d, tmp))
      out.insert(out.end(), tmp.begin(), tmp.end());
    else if (depth < 3)
      anchored(a, x0, x1, b, y0, y1, max_d, depth + 1, out);
    else
      replace_all(x0, x1, y0, y1, out);
  };
  size_t pa = a0, pb = b0;
  for (const auto& [i, j] : anchors) {
    gap(pa, i, pb, j);
    out.push_back({Edit::Op::keep, static_cast<uint32_t>(i), static_cast<uint32_t>(j)});
    pa = i + 1;
    pb = j + 1;
  }
  gap(pa, a1, pb, b1);
}

} // namespace

EditScript diff_sequences(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                          size_t max_d) {
  EditScript s;
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
    ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  for (size_t i = 0; i < pre; ++i)
    s.edits.push_back({Edit::Op::keep, static_cast<uint32_t>(i), static_cast<uint32_t>(i)});
  const size_t a1 = a.size() - suf, b1 = b.size() - suf;
  if (!myers(a, pre, a1, b, pre, b1, max_d, s.edits)) {
    s.approximate = true;
    anchored(a, pre, a1, b, pre, b1, max_d, 0, s.edits);
  }
  for (size_t t = 0; t < suf; ++t)
    s.edits.push_back(
        {Edit::Op::keep, static_cast<uint32_t>(a1 + t), static_cast<uint32_t>(b1 + t)});
  for (const auto& e : s.edits)
    s.kept += e.op == Edit::Op::keep;
  return s;
}

std::vector<Hunk> make_hunks(const EditScript& script, const std::vector<std::string>& text_a,
                             const std::vector<std::string>& text_b,
                             const std::vector<size_t>& line_a, const std::vector<size_t>& line_b,
                             size_t context, size_t* budget, bool* cut,
                             const std::vector<std::string>* own_a,
                             const std::vector<std::string>* own_b) {
  const std::vector<std::string>& show_a = own_a ? *own_a : text_a;
  const std::vector<std::string>& show_b = own_b ? *own_b : text_b;
  std::vector<Hunk> hunks;
  const auto& e = script.edits;
  size_t idx = 0;
  while (idx < e.size()) {
    while (idx < e.size() && e[idx].op == Edit::Op::keep)
      ++idx;
    if (idx == e.size()) break;
    // [first, last] changed, extended while the next change is within 2*context.
    size_t first = idx, last = idx;
    size_t scan = idx + 1;
    while (scan < e.size()) {
      if (e[scan].op != Edit::Op::keep) {
        last = scan++;
        continue;
      }
      size_t run = scan;
      while (run < e.size() && e[run].op == Edit::Op::keep)
        ++run;
      if (run < e.size() && run - scan <= 2 * context) {
        scan = run;
        continue;
      }
      break;
    }
    size_t begin = first >= context ? first - context : 0;
    size_t end = std::min(e.size(), last + 1 + context);
    bool last_one = false;
    if (budget) {
      if (*budget == 0 || end - begin > *budget) { // keep what fits of this hunk, then stop
        if (cut) *cut = true;
        if (*budget == 0) break;
        end = begin + *budget;
        last_one = true;
      }
      *budget -= end - begin;
    }
    Hunk h;
    for (size_t t = begin; t < end; ++t) {
      DiffLine l;
      if (e[t].op == Edit::Op::keep) {
        l.op = ' ';
        l.text = show_a[e[t].i];
        if (show_b[e[t].j] != l.text) l.text_b = show_b[e[t].j];
        l.line_a = line_a[e[t].i];
        l.line_b = line_b[e[t].j];
      } else if (e[t].op == Edit::Op::del) {
        l.op = '-';
        l.text = show_a[e[t].i];
        l.line_a = line_a[e[t].i];
      } else {
        l.op = '+';
        l.text = show_b[e[t].j];
        l.line_b = line_b[e[t].j];
      }
      if (l.op != '+') {
        if (h.count_a++ == 0) h.start_a = l.line_a;
      }
      if (l.op != '-') {
        if (h.count_b++ == 0) h.start_b = l.line_b;
      }
      h.lines.push_back(std::move(l));
    }
    hunks.push_back(std::move(h));
    if (last_one) break;
    idx = end;
  }
  return hunks;
}

std::vector<Hunk> renamed_hunks(const HunkSide& a, const HunkSide& b, bool canonical,
                                bool& approximate, size_t& budget, bool& cut) {
  Interner lines;
  std::vector<uint32_t> la, lb;
  la.reserve(a.compared.size());
  lb.reserve(b.compared.size());
  for (const auto& s : a.compared)
    la.push_back(lines.id(s));
  for (const auto& s : b.compared)
    lb.push_back(lines.id(s));
  EditScript script = diff_sequences(la, lb);
  approximate |= script.approximate;
  return make_hunks(script, a.compared, b.compared, a.line, b.line, 3, &budget, &cut,
                    canonical ? nullptr : &a.own, canonical ? nullptr : &b.own);
}

std::string hunks_cut_note() {
  return fmt::format("only the first {} diff lines are shown", k_max_report_hunk_lines);
}

} // namespace kdet::diff::detail
