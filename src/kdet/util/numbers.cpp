//===- util/numbers.cpp - range-checked numbers ----------------------------===//
#include "kdet/util/numbers.hpp"

#include "kdet/util/error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace kdet {

namespace {

// Shows a user's text in a message without letting control bytes through.
std::string shown(std::string_view text) {
  std::string s;
  for (unsigned char c : text.substr(0, 64))
    s += c < 0x20 || c == 0x7f ? fmt::format("\\x{:02x}", c) : std::string(1, static_cast<char>(c));
  if (text.size() > 64) s += "...";
  return "'" + s + "'";
}

std::string real_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

} // namespace

std::string describe(const WholeRange& r) {
  if (r.hi == UINT64_MAX) return fmt::format("a whole number of at least {}", r.lo);
  return fmt::format("a whole number from {} to {}", r.lo, r.hi);
}

std::string describe(const RealRange& r) {
  return fmt::format("a number from {} to {}{}", real_text(r.lo), real_text(r.hi),
                     r.zero_ok && r.lo > 0 ? " (or 0)" : "");
}

std::optional<uint64_t> parse_whole(std::string_view text, const WholeRange& r) {
  // Digits only: strtoull would accept "-1" (as 2^64-1), leading spaces and "+".
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (v < r.lo || v > r.hi) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view text, const RealRange& r) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return std::nullopt; // refuses "nan", "inf", "0x1p3", spaces
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  if (!check_real(v, r).empty()) return std::nullopt;
  return v;
}

uint64_t parse_whole_or_throw(std::string_view text, std::string_view what, const WholeRange& r) {
  auto v = parse_whole(text, r);
  if (!v) throw Error::format("{} {}: not valid; give {}", what, shown(text), describe(r));
  return *v;
}

double parse_real_or_throw(std::string_view text, std::string_view what, const RealRange& r) {
  auto v = parse_real(text, r);
  if (!v) throw Error::format("{} {}: not valid; give {}", what, shown(text), describe(r));
  return *v;
}

std::string check_whole(double value, const WholeRange& r) {
  if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<double>(r.lo) ||
      value > static_cast<double>(r.hi))
    return fmt::format("{} is not valid; give {}", real_text(value), describe(r));
  return "";
}

std::string check_real(double value, const RealRange& r) {
  bool ok = std::isfinite(value) && ((value >= r.lo && value <= r.hi) || (r.zero_ok && value == 0));
  return ok ? "" : fmt::format("{} is not valid; give {}", real_text(value), describe(r));
}

} // namespace kdet
