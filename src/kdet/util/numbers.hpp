//===- util/numbers.hpp - numbers from options and files, range-checked -----===//
//
// Every number a user gives kdet (a command-line option or a manifest value)
// goes through here, so that NaN, infinities, overflow, negative values,
// fractions where a whole number is meant and zero where it means nothing
// are refused at parse time with one kind of message: what was given, the
// option or FILE:LINE it came from, and the valid range.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kdet {

// An inclusive range of whole numbers.
struct WholeRange {
  uint64_t lo = 0;
  uint64_t hi = UINT64_MAX;
};

// A range of real numbers; `zero_ok` also admits 0 below `lo` (0 = "never", "off").
struct RealRange {
  double lo = 0;
  double hi = 0;
  bool zero_ok = false;
};

// "a whole number from 1 to 1000000"
std::string describe(const WholeRange& r);
// "a number from 0.001 to 1000000 (or 0)"
std::string describe(const RealRange& r);

// Parses decimal text as a whole number in `r`; nullopt for junk, signs,
// fractions, overflow or a value outside the range.
std::optional<uint64_t> parse_whole(std::string_view text, const WholeRange& r);
// Parses decimal text as a finite real number in `r`; nullopt otherwise (NaN, inf, junk).
std::optional<double> parse_real(std::string_view text, const RealRange& r);

// Same, throwing Error "WHAT TEXT: not valid; give DESCRIBE(r)" (exit 2).
uint64_t parse_whole_or_throw(std::string_view text, std::string_view what, const WholeRange& r);
double parse_real_or_throw(std::string_view text, std::string_view what, const RealRange& r);

// Checks a number already read (from TOML, say): "" when it lies in `r`,
// else the complaint "VALUE is not valid; give ...". A whole range refuses fractions.
std::string check_whole(double value, const WholeRange& r);
std::string check_real(double value, const RealRange& r);

// Seconds as a timeout: 0 = never, else from 1 ms to 1e6 s (sub-millisecond
// values would round to 0 and silently mean "never").
inline constexpr RealRange k_timeout_range{0.001, 1e6, true};

} // namespace kdet
