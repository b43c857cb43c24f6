//===- gpu/measure.hpp - timing statistics and bitwise comparison -----------===//
//
// The arithmetic of `kdet impact --run`, apart from the GPU: the interleaved
// order of launches (A and B alternate, each round reversing the order, so that
// a clock that drifts or warms up is shared), the medians and spread of the
// timings, and the element-by-element comparison of output buffers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/gpu/recipe.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::gpu {

// The order of `rounds` interleaved rounds: 0 for A, 1 for B. Round r launches A then B
// when r is even, B then A when it is odd.
std::vector<int> interleaved_schedule(size_t rounds);

// The q-quantile (0..1) of `values`, linearly interpolated between order statistics
// (as numpy's default); 0 for none.
double quantile(std::vector<double> values, double q);

// Timings of both variants, one per round each (milliseconds).
struct TimingSummary {
  size_t rounds = 0;
  double median_a = 0, median_b = 0; // ms
  double q1_a = 0, q3_a = 0, q1_b = 0, q3_b = 0;
  double min_a = 0, min_b = 0;
  // B against A: the median over rounds of B's time / A's time, minus 1, in percent
  // (positive: B slower), and half the interquartile range of those ratios, in percent.
  double change_percent = 0;
  double spread_percent = 0;
};

// Summarizes per-round times (a[i] and b[i] of round i); throws kdet::Error when the two
// differ in length or are empty.
TimingSummary summarize(const std::vector<double>& a, const std::vector<double>& b);

// "B 2.1 % slower (±0.4 %)", "B 0.3 % faster (±0.5 %)", "B as fast (±0.2 %)".
std::string speed_text(const TimingSummary& t);

// One buffer compared element by element.
struct BufferDiff {
  std::string name;
  Type type = Type::f32;
  uint64_t elements = 0;
  uint64_t differing = 0;
  uint64_t first = 0;           // the first differing element (when differing > 0)
  std::string first_a, first_b; // its values, as text
  // Of A's elements, those that cannot show a difference well: NaN and infinite (f32, f64:
  // NaN propagates as NaN and inf absorbs any finite change, whatever a variant computed), and
  // those with the bytes they had before the launch (not written, or written as they were).
  uint64_t nan = 0, inf = 0, unchanged = 0;
};

// Compares two buffers' bytes as elements of `type` (a byte-level difference in an
// element is a differing element; two NaNs of different bits differ). `initial`, when given,
// is the buffer before the launch (the same size), for BufferDiff::unchanged.
BufferDiff compare_buffer(const std::string& name, Type type, std::string_view a,
                          std::string_view b, std::string_view initial = {});

// The comparison of every output buffer.
struct ResultsDiff {
  std::vector<BufferDiff> buffers;
  uint64_t elements = 0, differing = 0;
  uint64_t nan = 0, inf = 0, unchanged = 0; // BufferDiff's, summed
  std::string unit; // the buffers' unit ("floats") or "elements" when they mix types
};

// Totals over buffers.
ResultsDiff total(std::vector<BufferDiff> buffers);

// "same results" or "results differ in 3 of 1,048,576 floats"; same results say how many
// elements could not have shown a difference ("same results (of 196,608 floats, 12 NaN)"), and
// when none could, that the comparison says nothing.
std::string results_text(const ResultsDiff& r);

// 1048576 -> "1,048,576".
std::string group_thousands(uint64_t n);

nlohmann::json to_json(const TimingSummary& t);
nlohmann::json to_json(const ResultsDiff& r);

} // namespace kdet::gpu
