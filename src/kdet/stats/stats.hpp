//===- stats/stats.hpp - rates, confidence intervals and run budgets ---------===//
//
// A run of n compiles in which k differ from the most common outcome is a
// binomial sample. kdet reports the exact (Clopper-Pearson) interval, the
// one-sided upper bound when nothing differed, and how many runs a bound needs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace kdet::stats {

struct Interval {
  double low = 0;
  double high = 1;
};

// Two-sided Clopper-Pearson interval for k successes in n trials at `confidence`
// (e.g. 0.95). n == 0 gives [0, 1].
Interval clopper_pearson(uint64_t k, uint64_t n, double confidence = 0.95);

// One-sided upper Clopper-Pearson bound: with `confidence`, the true rate is
// below this. For k == 0 it equals 1 - (1 - confidence)^(1/n).
double upper_bound(uint64_t k, uint64_t n, double confidence = 0.95);

// Smallest n such that n runs with no difference bound the rate below
// `max_rate` at `confidence`: n >= ln(1 - confidence) / ln(1 - max_rate).
uint64_t runs_to_bound(double max_rate, double confidence = 0.95);

// Runs needed to see at least one differing run with probability `power`
// when the true rate is `rate` (the same formula, read the other way).
uint64_t runs_to_detect(double rate, double power = 0.95);

} // namespace kdet::stats
