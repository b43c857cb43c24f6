//===- engine/variants.hpp - runs folded into variants, and their one order ---===//
//
// The one home of the fold of runs into variants (the distinct outcomes, each with how many
// runs gave it and the first of them) and of their order. A run's session folds its runs, a
// split scan round folds its pieces' runs, a scan job's row folds each round's variants; every
// list of distinct outcomes kdet shows or stores (those, and the values of a stage across
// builds) is in one order: most common first, and between two as common, the one seen first
// (the lower run index, the earlier build). The first is the modal outcome that every other is
// described against.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kdet::engine {

// True when an outcome seen `count_a` times, first at `first_a`, comes before one seen
// `count_b` times, first at `first_b`: the more common first; as common, the one seen first.
constexpr bool more_common(uint64_t count_a, uint64_t first_a, uint64_t count_b, uint64_t first_b) {
  return count_a != count_b ? count_a > count_b : first_a < first_b;
}

// Sorts variants (anything with `count` and `first_run`) by more_common; two with the same
// count and first run (never both from one fold) keep their order.
template <class V> void order(std::vector<V>& variants) {
  std::stable_sort(variants.begin(), variants.end(), [](const V& a, const V& b) {
    return more_common(a.count, a.first_run, b.count, b.first_run);
  });
}

// The variant of outcome `id` in `variants` (a vector of anything with `id`, const or not), or
// nullptr.
template <class Vs> auto* find_variant(Vs& variants, std::string_view id) {
  auto it =
      std::find_if(variants.begin(), variants.end(), [&](const auto& v) { return v.id == id; });
  return it == variants.end() ? nullptr : &*it;
}

// Runs folded into variants (V: engine::Variant, store::VariantRow: anything default-made with
// `id`, `count` and `first_run`), one per distinct outcome id, found by id in constant time.
template <class V> class VariantFold {
public:
  // What add() did: the variant of the id, and whether the runs added are its first so far (a
  // new id, or one seen before only at later runs): then its other fields are the caller's to
  // fill from those runs. The reference holds until the next add().
  struct Added {
    V& variant;
    bool first;
  };

  VariantFold() = default;
  // Goes on from `variants` (distinct ids), as a scan job's row goes on from its earlier rounds.
  explicit VariantFold(std::vector<V> variants) : m_variants(std::move(variants)) {
    for (size_t i = 0; i < m_variants.size(); ++i)
      m_index.emplace(m_variants[i].id, i);
  }

  // Counts `runs` runs of outcome `id`, the first of them run `first_run`: the variant's count
  // grows by `runs`, and its first run is the earlier of its own and `first_run`.
  Added add(const std::string& id, uint64_t first_run, uint64_t runs = 1) {
    auto [it, inserted] = m_index.try_emplace(id, m_variants.size());
    if (inserted) {
      m_variants.emplace_back();
      m_variants.back().id = id;
      m_variants.back().first_run = first_run;
    }
    V& v = m_variants[it->second];
    v.count += runs;
    const bool first = inserted || first_run < v.first_run;
    if (first) v.first_run = first_run;
    return {v, first};
  }

  // The number of distinct outcomes so far.
  size_t size() const { return m_variants.size(); }

  // The variants, most common first (order()); the fold is empty after.
  std::vector<V> take() {
    std::vector<V> out = std::move(m_variants);
    m_variants.clear();
    m_index.clear();
    order(out);
    return out;
  }

private:
  std::vector<V> m_variants; // in the order first added
  std::unordered_map<std::string, size_t> m_index;
};

} // namespace kdet::engine
