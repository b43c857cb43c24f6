//===- reduce/ddmin.cpp - delta debugging over chunks -------------------------===//
#include "kdet/reduce/ddmin.hpp"

#include <algorithm>

namespace kdet::reduce {

namespace {

std::vector<size_t> without(const std::vector<size_t>& keep, size_t at, size_t size) {
  std::vector<size_t> out(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(at));
  size_t end = std::min(keep.size(), at + size);
  out.insert(out.end(), keep.begin() + static_cast<std::ptrdiff_t>(end), keep.end());
  return out;
}

} // namespace

std::vector<size_t> ddmin(size_t count, const ChunkTests& test, int jobs,
                          const std::function<bool()>& stop) {
  std::vector<size_t> keep(count);
  for (size_t i = 0; i < count; ++i)
    keep[i] = i;
  if (count == 0) return keep;
  size_t lanes = static_cast<size_t>(std::max(1, jobs));
  size_t size = (count + 1) / 2;
  while (!keep.empty()) {
    bool progress = false;
    size_t at = 0;
    while (at < keep.size()) {
      if (stop && stop()) return keep;
      // The next `lanes` windows, tested together.
      std::vector<size_t> starts;
      for (size_t s = at; s < keep.size() && starts.size() < lanes; s += size)
        starts.push_back(s);
      std::vector<std::vector<size_t>> cands;
      cands.reserve(starts.size());
      for (size_t s : starts)
        cands.push_back(without(keep, s, size));
      std::vector<char> ok = test(cands);
      ok.resize(cands.size(), 0);
      auto first = std::find_if(ok.begin(), ok.end(), [](char c) { return c != 0; });
      if (first == ok.end()) {
        at = starts.back() + size;
        continue;
      }
      size_t i = static_cast<size_t>(first - ok.begin());
      keep = std::move(cands[i]);
      at = starts[i]; // the window after the removed one now starts here
      progress = true;
    }
    if (size == 1) {
      if (!progress) break;
    } else {
      size = (size + 1) / 2;
    }
  }
  return keep;
}

} // namespace kdet::reduce
