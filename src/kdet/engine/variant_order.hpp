//===- engine/variant_order.hpp - the one order of distinct outcomes --------===//
//
// Every list of distinct outcomes kdet shows or stores (a run's variants, a scan job's, the
// values of a stage across builds) is in one order: most common first, and between two as
// common, the one seen first (the lower run index, the earlier build). The first is the modal
// outcome that every other is described against.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kdet::engine {

// True when an outcome seen `count_a` times, first at `first_a`, comes before one seen
// `count_b` times, first at `first_b`.
constexpr bool more_common(uint64_t count_a, uint64_t first_a, uint64_t count_b, uint64_t first_b) {
  return count_a != count_b ? count_a > count_b : first_a < first_b;
}

// Sorts variants (anything with `count` and `first_run`) most common first.
template <class V> void order_most_common_first(std::vector<V>& variants) {
  std::sort(variants.begin(), variants.end(), [](const V& a, const V& b) {
    return more_common(a.count, a.first_run, b.count, b.first_run);
  });
}

} // namespace kdet::engine
