//===- report/junit.hpp - the frame of a one-suite JUnit document ----------===//
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kdet::report {

// The counts of a JUnit suite; the suite's `skipped` attribute is written when given.
struct JunitCounts {
  size_t tests = 0, failures = 0, errors = 0;
  std::optional<size_t> skipped;
};

// A JUnit XML document of one suite: the XML declaration, <testsuites name="`document`"> and
// <testsuite name="`suite`">, both with `n`, around `cases` (testcase lines, already escaped).
// `document` and `suite` are escaped here.
std::string junit_document(std::string_view document, std::string_view suite, const JunitCounts& n,
                           std::string_view cases);

} // namespace kdet::report
