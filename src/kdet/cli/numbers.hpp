//===- cli/numbers.hpp - CLI11 validators over util/numbers ----------------===//
//
// Attach to every numeric option: `->check(whole_option({1, 1024}))`. The
// check sees the text before CLI11 converts it, so "-1", "nan", "1e400" and
// "1.5" never reach an unsigned or a double; the error names the option and
// the valid range and exits 2.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/numbers.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace kdet::cli {

// The option's text must be a whole number in `r`.
inline CLI::Validator whole_option(WholeRange r) {
  return CLI::Validator(
      [r](std::string& s) -> std::string {
        return parse_whole(s, r) ? "" : fmt::format("'{}' is not valid; give {}", s, describe(r));
      },
      r.hi == UINT64_MAX ? fmt::format(">={}", r.lo) : fmt::format("{}..{}", r.lo, r.hi), "whole");
}

// The option's text must be a finite number in `r`.
inline CLI::Validator real_option(RealRange r) {
  return CLI::Validator(
      [r](std::string& s) -> std::string {
        return parse_real(s, r) ? "" : fmt::format("'{}' is not valid; give {}", s, describe(r));
      },
      fmt::format("{}..{}{}", r.lo, r.hi, r.zero_ok && r.lo > 0 ? " or 0" : ""), "real");
}

// Limits shared by several commands.
inline constexpr WholeRange k_jobs_range{1, 1024};
inline constexpr WholeRange k_runs_range{1, 10'000'000};

} // namespace kdet::cli
