// engine/variants: the one fold of runs into variants and the one order of variants (most common
// first; as common, the lower first run first).
#include "kdet/engine/variants.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace kdet;
using namespace kdet::engine;

namespace {

struct Row { // the least a variant needs
  std::string id;
  uint64_t count = 0;
  uint64_t first_run = 0;
  std::string note;
};

std::vector<std::string> ids(const std::vector<Row>& v) {
  std::vector<std::string> out;
  for (const auto& x : v)
    out.push_back(x.id);
  return out;
}

using Ids = std::vector<std::string>;

} // namespace

TEST(Variants, MoreCommonFirstThenTheOneSeenFirst) {
  EXPECT_TRUE(more_common(3, 9, 2, 0)); // more runs beats an earlier first run
  EXPECT_FALSE(more_common(2, 0, 3, 9));
  EXPECT_TRUE(more_common(2, 1, 2, 4)); // as common: the lower first run
  EXPECT_FALSE(more_common(2, 4, 2, 1));
  EXPECT_FALSE(more_common(2, 4, 2, 4)); // a strict order
}

TEST(Variants, OrderSortsByCountThenFirstRun) {
  std::vector<Row> v{{"a", 2, 5, ""}, {"b", 3, 7, ""}, {"c", 2, 1, ""}, {"d", 1, 0, ""}};
  order(v);
  EXPECT_EQ(ids(v), (Ids{"b", "c", "a", "d"}));
}

TEST(Variants, OrderKeepsFullTiesInTheirPlace) {
  std::vector<Row> v{{"x", 1, 3, ""}, {"y", 1, 3, ""}, {"z", 4, 9, ""}, {"w", 1, 3, ""}};
  order(v);
  EXPECT_EQ(ids(v), (Ids{"z", "x", "y", "w"}));
}

TEST(Variants, FoldCountsEachOutcomeAndKeepsItsFirstRun) {
  VariantFold<Row> fold;
  // Runs 0..6 in the order a session records them (not by index: slots finish out of order).
  const std::vector<std::pair<std::string, uint64_t>> runs = {
      {"p", 2}, {"q", 0}, {"p", 1}, {"q", 4}, {"r", 3}, {"p", 6}, {"q", 5}};
  std::vector<bool> firsts;
  for (const auto& [id, idx] : runs) {
    auto [v, first] = fold.add(id, idx);
    EXPECT_EQ(v.id, id);
    if (first) v.note = "run " + std::to_string(idx); // the caller fills it from that run
    firsts.push_back(first);
  }
  // p at 2 (new), q at 0 (new), p at 1 (earlier than 2), q at 4, r at 3 (new), p at 6, q at 5.
  EXPECT_EQ(firsts, (std::vector<bool>{true, true, true, false, true, false, false}));
  EXPECT_EQ(fold.size(), 3U);
  std::vector<Row> v = fold.take();
  EXPECT_EQ(fold.size(), 0U);
  ASSERT_EQ(ids(v), (Ids{"q", "p", "r"})); // 3 and 3: q was first seen at run 0, p at 1
  EXPECT_EQ(v[0].count, 3U);
  EXPECT_EQ(v[0].first_run, 0U);
  EXPECT_EQ(v[0].note, "run 0");
  EXPECT_EQ(v[1].count, 3U);
  EXPECT_EQ(v[1].first_run, 1U);
  EXPECT_EQ(v[1].note, "run 1");
  EXPECT_EQ(v[2].count, 1U);
  EXPECT_EQ(v[2].first_run, 3U);
}

TEST(Variants, FoldGoesOnFromEarlierVariantsWithManyRunsAtOnce) {
  VariantFold<Row> fold(std::vector<Row>{{"a", 4, 0, "kept"}, {"b", 1, 2, "kept"}});
  auto added = fold.add("b", 10, 5);
  EXPECT_FALSE(added.first);
  EXPECT_EQ(added.variant.count, 6U);
  EXPECT_EQ(added.variant.note, "kept");
  EXPECT_TRUE(fold.add("c", 12, 2).first);
  std::vector<Row> v = fold.take();
  ASSERT_EQ(ids(v), (Ids{"b", "a", "c"}));
  EXPECT_EQ(v[0].first_run, 2U);
  EXPECT_EQ(v[2].count, 2U);
  EXPECT_EQ(v[2].first_run, 12U);
}

TEST(Variants, FindVariantByOutcomeId) {
  std::vector<Row> v{{"a", 1, 0, ""}, {"b", 1, 1, ""}};
  ASSERT_NE(find_variant(v, "b"), nullptr);
  EXPECT_EQ(find_variant(v, "b")->first_run, 1U);
  EXPECT_EQ(find_variant(v, "c"), nullptr);
  const std::vector<Row>& cv = v;
  EXPECT_EQ(find_variant(cv, "a"), &v[0]);
}
