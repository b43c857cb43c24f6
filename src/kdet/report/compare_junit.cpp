//===- report/compare_junit.cpp - kdet compare as JUnit XML ---------------===//
//
// One test case per paired job, judged as compare_exit_code judges B: a failure where B
// varies (regressed, varies-both, a job only B ran, hidden under --stress), an error where B
// failed on every run or never ran a job A ran; every other label passes. A comparison in
// which no job ran on both sides is one error case of its own, so a CI page never shows an
// empty green suite for a gate that judged nothing.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/verdict.hpp"
#include "kdet/report/scan_report.hpp"

#include <fmt/format.h>

namespace kdet::report {

namespace {

// "failure", "error" or "" (passes), with the message a CI page shows.
std::pair<std::string, std::string> judge(const scan::Pairing& p) {
  if (p.stress == scan::Pairing::Stress::hidden)
    return {"failure", "hidden: B varies under stress (" + p.stress_regime + ")"};
  if (p.label == scan::Label::regressed || p.label == scan::Label::varies_both)
    return {"failure", std::string(scan::to_string(p.label)) + ": B varies"};
  if (scan::b_varies_alone(p)) return {"failure", "not in A, varies in B"};
  if (p.label == scan::Label::failed && p.b && p.b->verdict() == engine::Verdict::failed)
    return {"error", "B failed on every run"};
  if (scan::b_never_ran(p)) return {"error", "B never ran it (its scan stopped early)"};
  return {"", ""};
}

} // namespace

std::string comparison_to_junit(const CompilerComparison& c) {
  size_t failures = 0, errors = 0;
  bool compared = false;
  std::string cases;
  for (const auto& p : c.pairs) {
    compared |= p.a && p.b && p.a->runs > 0 && p.b->runs > 0;
    auto [tag, message] = judge(p);
    cases += fmt::format("    <testcase classname=\"kdet.compare.{}\" name=\"{}\">",
                         scan::to_string(p.label), xml_escape(p.name()));
    cases += fmt::format("<properties><property name=\"key\" value=\"{}\"/>"
                         "<property name=\"kernels\" value=\"{}\"/></properties>",
                         xml_escape(p.key), xml_escape(p.name(0)));
    if (!tag.empty()) {
      (tag == "failure" ? failures : errors)++;
      cases += fmt::format("<{} message=\"{}\"/>", tag, xml_escape(message));
    }
    cases += "</testcase>\n";
  }
  size_t tests = c.pairs.size();
  if (!compared) {
    ++errors;
    ++tests;
    cases += "    <testcase classname=\"kdet.compare\" name=\"nothing compared\"><error "
             "message=\"no job ran on both sides: the gate judged nothing\"/></testcase>\n";
  }
  std::string suite = xml_escape(c.a + " -> " + c.b);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      fmt::format("<testsuites name=\"kdet compare\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
                  tests, failures, errors);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
                     suite, tests, failures, errors);
  out += cases;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace kdet::report
