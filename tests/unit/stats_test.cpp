// The statistics against values computed independently: published
// Clopper-Pearson intervals, closed forms, and a direct binomial sum.
#include "kdet/stats/stats.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace kdet::stats;

namespace {
// P(X <= k) for X ~ Binomial(n, p), summed term by term in log space
// (independent of Boost's incomplete beta).
double binom_cdf(uint64_t k, uint64_t n, double p) {
  double sum = 0;
  for (uint64_t i = 0; i <= k; ++i) {
    double log_term = std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) -
                      std::lgamma(double(n - i) + 1) + double(i) * std::log(p) +
                      double(n - i) * std::log1p(-p);
    sum += std::exp(log_term);
  }
  return sum;
}
} // namespace

TEST(ClopperPearson, MatchesPublishedValues) {
  // 5 of 10: the textbook exact 95% interval is (0.1871, 0.8129).
  auto iv = clopper_pearson(5, 10);
  EXPECT_NEAR(iv.low, 0.187086, 1e-5);
  EXPECT_NEAR(iv.high, 0.812914, 1e-5);
  // 0 of n: upper end has the closed form 1 - (alpha/2)^(1/n).
  iv = clopper_pearson(0, 20);
  EXPECT_EQ(iv.low, 0);
  EXPECT_NEAR(iv.high, 1 - std::pow(0.025, 1.0 / 20), 1e-12);
  // n of n: lower end is (alpha/2)^(1/n).
  iv = clopper_pearson(32, 32);
  EXPECT_NEAR(iv.low, std::pow(0.025, 1.0 / 32), 1e-12);
  EXPECT_EQ(iv.high, 1);
}

TEST(ClopperPearson, EndsSolveTheBinomialEquations) {
  // The reporter's kernel: 22 of 360 runs gave the second variant.
  const uint64_t k = 22, n = 360;
  auto iv = clopper_pearson(k, n);
  EXPECT_NEAR(binom_cdf(k, n, iv.high), 0.025, 1e-9);        // P(X <= k | p_hi) = alpha/2
  EXPECT_NEAR(1 - binom_cdf(k - 1, n, iv.low), 0.025, 1e-9); // P(X >= k | p_lo) = alpha/2
  EXPECT_LT(iv.low, 22.0 / 360);
  EXPECT_GT(iv.high, 22.0 / 360);
}

TEST(UpperBound, OneSidedClosedFormAndEquation) {
  EXPECT_NEAR(upper_bound(0, 20), 1 - std::pow(0.05, 1.0 / 20), 1e-12); // 0.1391: "fewer than 14%"
  EXPECT_NEAR(upper_bound(0, 32), 0.08942, 1e-4);
  double u = upper_bound(3, 100);
  EXPECT_NEAR(binom_cdf(3, 100, u), 0.05, 1e-9);
  EXPECT_EQ(upper_bound(0, 0), 1);
}

TEST(RunsToBound, SmallestNThatBoundsTheRate) {
  EXPECT_EQ(runs_to_bound(0.01), 299u); // ln(0.05)/ln(0.99) = 298.07
  EXPECT_EQ(runs_to_bound(0.15), 19u);  // ln(0.05)/ln(0.85) = 18.43
  EXPECT_EQ(runs_to_bound(0.05), 59u);  // 58.4
  for (double p : {0.2, 0.1, 0.03, 0.01, 0.001}) {
    uint64_t n = runs_to_bound(p);
    EXPECT_LT(upper_bound(0, n), p) << p;
    EXPECT_GE(upper_bound(0, n - 1), p) << p;
  }
}

TEST(RunsToDetect, ProbabilityOfSeeingARareVariant) {
  // A 22/360 rate is seen at least once with 95% probability within 48 runs.
  double p = 22.0 / 360;
  uint64_t n = runs_to_detect(p, 0.95);
  EXPECT_GE(1 - std::pow(1 - p, double(n)), 0.95);
  EXPECT_LT(1 - std::pow(1 - p, double(n - 1)), 0.95);
}
