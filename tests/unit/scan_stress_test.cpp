//===- tests/unit/scan_stress_test.cpp - --settle and --stress, scripted -------===//
//
// The run function is scripted (no compiler), so the budgets, the stop at a
// second output, the regime named and the labels are checked exactly.
//
//===----------------------------------------------------------------------===//
#include "kdet/scan/stress.hpp"
#include "kdet/stats/stats.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace kdet::scan {
namespace {

store::JobRow row(const std::string& compiler, std::vector<std::pair<std::string, uint64_t>> vs) {
  store::JobRow r;
  r.id = compiler + "-job";
  r.input = "k.ll";
  r.compiler = compiler;
  r.option_set = "default";
  r.done = true;
  for (auto& [id, n] : vs) {
    store::VariantRow v;
    v.id = id;
    v.count = n;
    v.status = "ok";
    r.variants.push_back(v);
    r.runs += n;
    r.ok_runs += n;
  }
  return r;
}

// A run function that gives `id` on every run, or `other` on every run under the regime named.
RerunFn scripted(const std::string& id, int threads_for_other = -1, uint64_t* calls = nullptr) {
  return [=](const store::JobRow&, const perturb::Setting& s, uint64_t, uint64_t n, size_t,
             const std::string&) {
    if (calls) ++*calls;
    engine::RunOutput out;
    engine::Variant v;
    v.id = s.threads == threads_for_other ? "other" : id;
    v.count = n;
    out.variants.push_back(v);
    out.completed = n;
    return out;
  };
}

TEST(ScanStress, SettleRunsNeededMeetsTheMarginExactly) {
  uint64_t n = settle_runs_needed(0.5, 10);
  EXPECT_LE(stats::upper_bound(0, n) * 10, 0.5);
  EXPECT_GT(stats::upper_bound(0, n - 1) * 10, 0.5);
  EXPECT_NEAR(static_cast<double>(settle_runs_needed(0.01, 10)), 3000, 150); // ~3 * margin / rate
  EXPECT_EQ(settle_runs_needed(0, 10), 1000000u);
}

TEST(ScanStress, RunsPerRegimeSeeARateWithNinetyFivePercent) {
  EXPECT_EQ(stress_runs_per_regime(0.5, 200), 8u);   // ln .05 / ln .5 = 4.3 -> 6, floor 8
  EXPECT_EQ(stress_runs_per_regime(0.05, 200), 60u); // 58.4 -> 59 + 1
  EXPECT_EQ(stress_runs_per_regime(0.001, 200), 200u);
  EXPECT_EQ(stress_runs_per_regime(0, 50), 50u); // A never varied: the cap
}

TEST(ScanStress, SettleTurnsNotSeenIntoFixedOrStopsAtTheBudget) {
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 20}})};
  for (uint64_t budget : {0, 25}) {
    auto pairs = pair_jobs(a, "a", b, "b");
    ASSERT_EQ(pairs[0].label, Label::not_seen);
    std::deque<store::JobRow> storage;
    uint64_t spent = settle(pairs, storage, scripted("z"), {10, budget});
    if (budget == 0) {
      EXPECT_EQ(pairs[0].label, Label::fixed);
      EXPECT_EQ(pairs[0].b->runs, settle_runs_needed(0.5, 10));
    } else {
      EXPECT_EQ(pairs[0].label, Label::not_seen);
      EXPECT_EQ(pairs[0].b->runs, 25u);
    }
    EXPECT_EQ(spent, pairs[0].b->runs - 20);
    EXPECT_EQ(b[0].runs, 20u); // the stored row is left alone
  }
}

TEST(ScanStress, HiddenNamesTheRegimeAndIsNeverFixed) {
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 500}})};
  auto pairs = pair_jobs(a, "a", b, "b");
  ASSERT_EQ(pairs[0].label, Label::fixed);
  auto regimes = stress_regimes({});
  ASSERT_EQ(regimes.size(), 4u);
  stress(pairs, regimes, scripted("z", 4), {});
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::hidden);
  EXPECT_EQ(pairs[0].stress_regime, "threads");
  EXPECT_EQ(pairs[0].label, Label::nondeterministic_both);
  EXPECT_EQ(answer(pairs).b_varies, 1u);
}

TEST(ScanStress, FixedUnderStressRunsEveryRegimeAndGivesABound) {
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 20}})};
  auto pairs = pair_jobs(a, "a", b, "b");
  uint64_t calls = 0;
  uint64_t spent = stress(pairs, stress_regimes({}), scripted("z", -1, &calls), {});
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(spent, 4 * stress_runs_per_regime(0.5, 200));
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::fixed);
  EXPECT_DOUBLE_EQ(pairs[0].stress_bound, stats::upper_bound(0, spent));
}

TEST(ScanStress, ARegimeThatCannotActIsLeftOutAndNamed) {
  // A sanitized kdet cannot preload the chaos allocator into a library compiler's worker: that
  // regime is never run for the job, the outcome stands on the other three, and it is named.
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 20}})};
  auto pairs = pair_jobs(a, "a", b, "b");
  uint64_t calls = 0, chaos_runs = 0;
  RerunFn run = [&](const store::JobRow& r, const perturb::Setting& s, uint64_t first, uint64_t n,
                    size_t stop, const std::string& other) {
    if (s.heap == perturb::HeapMode::chaos) ++chaos_runs;
    return scripted("z", -1, &calls)(r, s, first, n, stop, other);
  };
  UnusableFn unusable = [](const store::JobRow&, const perturb::Setting& s) {
    return s.heap == perturb::HeapMode::chaos ? std::string("not in this build") : std::string();
  };
  uint64_t spent = stress(pairs, stress_regimes({}), run, {}, unusable);
  EXPECT_EQ(chaos_runs, 0u);
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(spent, 3 * stress_runs_per_regime(0.5, 200));
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::fixed);
  EXPECT_EQ(pairs[0].stress_skipped, std::vector<std::string>{"chaos: not in this build"});
}

TEST(ScanStress, ACutBudgetOrAFailureIsInconclusive) {
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 20}})};
  auto pairs = pair_jobs(a, "a", b, "b");
  RerunFn cut = [](const store::JobRow&, const perturb::Setting&, uint64_t, uint64_t n, size_t,
                   const std::string&) {
    engine::RunOutput out;
    engine::Variant v;
    v.id = "z";
    v.count = n / 2;
    out.variants.push_back(v);
    out.completed = n / 2;
    return out;
  };
  stress(pairs, stress_regimes({}), cut, {});
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::inconclusive);
  EXPECT_EQ(pairs[0].label, Label::not_seen);
}

TEST(ScanStress, ACapBelowWhatARateNeedsIsInconclusiveNotFixed) {
  std::vector<store::JobRow> a = {row("a", {{"x", 5}, {"y", 5}})}, b = {row("b", {{"z", 20}})};
  auto pairs = pair_jobs(a, "a", b, "b");
  uint64_t spent = stress(pairs, stress_regimes({}), scripted("z"), {2, 0, 0});
  EXPECT_EQ(spent, 8u); // every regime still ran (it could have shown another output)
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::inconclusive);
  EXPECT_NE(pairs[0].stress_regime.find("--stress-cap"), std::string::npos);
  EXPECT_EQ(pairs[0].label, Label::not_seen);
  // A cap that covers A's rate is enough.
  pairs = pair_jobs(a, "a", b, "b");
  stress(pairs, stress_regimes({}), scripted("z"), {8, 0, 0});
  EXPECT_EQ(pairs[0].stress, Pairing::Stress::fixed);
}

TEST(ScanStress, TheSampleOfQuietJobsIsSeededAndSized) {
  std::vector<store::JobRow> a, b;
  for (int i = 0; i < 20; ++i) {
    a.push_back(row("a", {{"z", 10}}));
    b.push_back(row("b", {{"z", 10}}));
    a.back().input = b.back().input = "k" + std::to_string(i) + ".ll";
  }
  auto pick = [&](uint64_t seed) {
    auto pairs = pair_jobs(a, "a", b, "b");
    stress(pairs, stress_regimes({}), scripted("z"), {8, 3, seed});
    std::string s;
    for (const auto& p : pairs)
      s += p.stress_sampled ? "1" : "0";
    return s;
  };
  const std::string seven = pick(7);
  EXPECT_EQ(seven, pick(7));
  EXPECT_NE(seven, pick(8)); // 1140 ways to pick 3 of 20: another seed picks others
  EXPECT_EQ(std::count(seven.begin(), seven.end(), '1'), 3);
}

} // namespace
} // namespace kdet::scan
