//===- gpu/measure.cpp - timing statistics and bitwise comparison -----------===//
#include "kdet/gpu/measure.hpp"

#include "kdet/util/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

namespace kdet::gpu {

std::vector<int> interleaved_schedule(size_t rounds) {
  std::vector<int> order;
  order.reserve(2 * rounds);
  for (size_t r = 0; r < rounds; ++r) {
    int first = r % 2 == 0 ? 0 : 1;
    order.push_back(first);
    order.push_back(1 - first);
  }
  return order;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

TimingSummary summarize(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || a.size() != b.size())
    throw Error::format("timings: {} of A and {} of B; need the same number, at least 1", a.size(),
                        b.size());
  TimingSummary t;
  t.rounds = a.size();
  t.median_a = quantile(a, 0.5);
  t.median_b = quantile(b, 0.5);
  t.q1_a = quantile(a, 0.25);
  t.q3_a = quantile(a, 0.75);
  t.q1_b = quantile(b, 0.25);
  t.q3_b = quantile(b, 0.75);
  t.min_a = *std::min_element(a.begin(), a.end());
  t.min_b = *std::min_element(b.begin(), b.end());
  // Ratios within a round pair launches made moments apart, so a drifting clock cancels.
  std::vector<double> ratios;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > 0) ratios.push_back(b[i] / a[i]);
  if (!ratios.empty()) {
    t.change_percent = (quantile(ratios, 0.5) - 1) * 100;
    t.spread_percent = (quantile(ratios, 0.75) - quantile(ratios, 0.25)) / 2 * 100;
  }
  return t;
}

std::string speed_text(const TimingSummary& t) {
  std::string change = fmt::format("{:.1f}", std::fabs(t.change_percent));
  std::string spread = fmt::format("(±{:.1f} %)", t.spread_percent);
  if (change == "0.0") return "B as fast " + spread;
  return fmt::format("B {} % {} {}", change, t.change_percent > 0 ? "slower" : "faster", spread);
}

namespace {

std::string element_text(Type type, const char* p) {
  switch (type) {
  case Type::u8:
    return std::to_string(static_cast<unsigned char>(*p));
  case Type::f32: {
    float f = 0;
    std::memcpy(&f, p, 4);
    return fmt::format("{}", f);
  }
  case Type::f64: {
    double d = 0;
    std::memcpy(&d, p, 8);
    return fmt::format("{}", d);
  }
  case Type::i32:
  case Type::u32: {
    uint32_t u = 0;
    std::memcpy(&u, p, 4);
    return type == Type::i32 ? std::to_string(static_cast<int32_t>(u)) : std::to_string(u);
  }
  default: {
    uint64_t u = 0;
    std::memcpy(&u, p, 8);
    return type == Type::i64 ? std::to_string(static_cast<int64_t>(u)) : std::to_string(u);
  }
  }
}

} // namespace

namespace {

enum class FloatClass { finite, nan, inf };

// What an element of `type` at `p` is; integers are always finite.
FloatClass classify(Type type, const char* p) {
  double value = 0;
  if (type == Type::f32) {
    float f = 0;
    std::memcpy(&f, p, 4);
    value = f;
  } else if (type == Type::f64) {
    std::memcpy(&value, p, 8);
  }
  if (std::isnan(value)) return FloatClass::nan;
  if (std::isinf(value)) return FloatClass::inf;
  return FloatClass::finite;
}

} // namespace

BufferDiff compare_buffer(const std::string& name, Type type, std::string_view a,
                          std::string_view b, std::string_view initial) {
  BufferDiff d;
  d.name = name;
  d.type = type;
  size_t size = size_of(type);
  if (a.size() != b.size() || a.size() % size != 0)
    throw Error::format("buffer {}: {} and {} bytes cannot be compared as {}", name, a.size(),
                        b.size(), to_string(type));
  d.elements = a.size() / size;
  const bool has_initial = initial.size() == a.size();
  for (uint64_t i = 0; i < d.elements; ++i) {
    const FloatClass c = classify(type, a.data() + i * size);
    if (c == FloatClass::nan)
      ++d.nan;
    else if (c == FloatClass::inf)
      ++d.inf;
    else if (has_initial && std::memcmp(a.data() + i * size, initial.data() + i * size, size) == 0)
      ++d.unchanged;
    if (std::memcmp(a.data() + i * size, b.data() + i * size, size) == 0) continue;
    if (d.differing++ == 0) {
      d.first = i;
      d.first_a = element_text(type, a.data() + i * size);
      d.first_b = element_text(type, b.data() + i * size);
    }
  }
  return d;
}

ResultsDiff total(std::vector<BufferDiff> buffers) {
  ResultsDiff r;
  r.buffers = std::move(buffers);
  for (const auto& b : r.buffers) {
    r.elements += b.elements;
    r.differing += b.differing;
    r.nan += b.nan;
    r.inf += b.inf;
    r.unchanged += b.unchanged;
    std::string unit = unit_name(b.type);
    if (r.unit.empty())
      r.unit = unit;
    else if (r.unit != unit)
      r.unit = "elements";
  }
  if (r.unit.empty()) r.unit = "elements";
  return r;
}

std::string group_thousands(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string results_text(const ResultsDiff& r) {
  if (r.differing == 0) {
    const uint64_t blind = r.nan + r.inf + r.unchanged;
    if (blind == 0) return "same results";
    std::string parts;
    if (r.nan) parts = fmt::format("{} NaN", group_thousands(r.nan));
    if (r.inf)
      parts += fmt::format("{}{} infinite", parts.empty() ? "" : ", ", group_thousands(r.inf));
    if (r.unchanged)
      parts += fmt::format("{}{} as before the launch", parts.empty() ? "" : ", ",
                           group_thousands(r.unchanged));
    if (blind == r.elements)
      return fmt::format("same results, but no output element could show a difference (of {} "
                         "{}, {})",
                         group_thousands(r.elements), r.unit, parts);
    return fmt::format("same results (of {} {}, {})", group_thousands(r.elements), r.unit, parts);
  }
  return fmt::format("results differ in {} of {} {}", group_thousands(r.differing),
                     group_thousands(r.elements), r.unit);
}

nlohmann::json to_json(const TimingSummary& t) {
  return {{"rounds", t.rounds},
          {"median_ms", {{"a", t.median_a}, {"b", t.median_b}}},
          {"q1_ms", {{"a", t.q1_a}, {"b", t.q1_b}}},
          {"q3_ms", {{"a", t.q3_a}, {"b", t.q3_b}}},
          {"min_ms", {{"a", t.min_a}, {"b", t.min_b}}},
          {"change_percent", t.change_percent},
          {"spread_percent", t.spread_percent}};
}

nlohmann::json to_json(const ResultsDiff& r) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const auto& b : r.buffers) {
    nlohmann::json j = {{"name", b.name},
                        {"type", to_string(b.type)},
                        {"elements", b.elements},
                        {"differing", b.differing},
                        {"nan", b.nan},
                        {"inf", b.inf},
                        {"unchanged", b.unchanged}};
    if (b.differing) {
      j["first"] = b.first;
      j["first_a"] = b.first_a;
      j["first_b"] = b.first_b;
    }
    buffers.push_back(std::move(j));
  }
  return {{"same", r.differing == 0},
          {"elements", r.elements},
          {"differing", r.differing},
          {"nan", r.nan},
          {"inf", r.inf},
          {"unchanged", r.unchanged},
          {"unit", r.unit},
          {"buffers", std::move(buffers)}};
}

} // namespace kdet::gpu
