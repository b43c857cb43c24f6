#include "kdet/stats/stats.hpp"

#include <boost/math/distributions/beta.hpp>
#include <cmath>

namespace kdet::stats {

namespace {
// Quantile of Beta(a, b); a or b of zero are the degenerate ends.
double beta_quantile(double a, double b, double p) {
  if (a <= 0) return 0;
  if (b <= 0) return 1;
  return boost::math::ibeta_inv(a, b, p);
}
} // namespace

Interval clopper_pearson(uint64_t k, uint64_t n, double confidence) {
  if (n == 0) return {0, 1};
  double alpha = 1 - confidence;
  double kd = static_cast<double>(k), nd = static_cast<double>(n);
  Interval iv;
  iv.low = k == 0 ? 0 : beta_quantile(kd, nd - kd + 1, alpha / 2);
  iv.high = k == n ? 1 : beta_quantile(kd + 1, nd - kd, 1 - alpha / 2);
  return iv;
}

double upper_bound(uint64_t k, uint64_t n, double confidence) {
  if (n == 0) return 1;
  if (k >= n) return 1;
  if (k == 0) return 1 - std::pow(1 - confidence, 1.0 / static_cast<double>(n));
  return beta_quantile(static_cast<double>(k) + 1, static_cast<double>(n - k), confidence);
}

uint64_t runs_to_bound(double max_rate, double confidence) {
  if (max_rate <= 0) return UINT64_MAX;
  if (max_rate >= 1) return 1;
  double n = std::log(1 - confidence) / std::log(1 - max_rate);
  // Guard against n landing a hair above an integer through rounding.
  uint64_t r = static_cast<uint64_t>(std::ceil(n - 1e-9));
  return r == 0 ? 1 : r;
}

uint64_t runs_to_detect(double rate, double power) {
  return runs_to_bound(rate, power);
}

} // namespace kdet::stats
