//===- report/junit.cpp - the frame of a one-suite JUnit document ----------===//
#include "kdet/report/junit.hpp"

#include "kdet/report/scan_report.hpp"

#include <fmt/format.h>

namespace kdet::report {

std::string junit_document(std::string_view document, std::string_view suite, const JunitCounts& n,
                           std::string_view cases) {
  std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\"", n.tests, n.failures, n.errors);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" {}>\n", xml_escape(document), counts);
  if (n.skipped) counts += fmt::format(" skipped=\"{}\"", *n.skipped);
  out += fmt::format("  <testsuite name=\"{}\" {}>\n", xml_escape(suite), counts);
  out += cases;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace kdet::report
