//===- report/compare_junit.cpp - kdet compare as JUnit XML ---------------===//
//
// One test case per paired job, judged by scan::judge_pair as the exit code is: a failure where B
// varies (regressed, nondeterministic-both, a job only B ran, hidden under --stress), an error
// where B failed on every run or never ran a job A ran; every other label passes. A comparison in
// which no job ran on both sides is one error case of its own, so a CI page never shows an
// empty green suite for a gate that judged nothing.
//
//===----------------------------------------------------------------------===//
#include "kdet/report/junit.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::report {

std::string comparison_to_junit(const CompilerComparison& c) {
  size_t failures = 0, errors = 0;
  bool compared = false;
  std::string cases;
  for (const auto& p : c.pairs) {
    compared |= p.a && p.b && p.a->runs > 0 && p.b->runs > 0;
    scan::PairGate gate = scan::judge_pair(p);
    std::string tag = gate.exit == k_exit_nondeterministic  ? "failure"
                      : gate.exit == k_exit_compiler_failed ? "error"
                                                            : "";
    cases += fmt::format("    <testcase classname=\"kdet.compare.{}\" name=\"{}\">",
                         scan::to_string(p.label), xml_escape(p.name()));
    cases += fmt::format("<properties><property name=\"key\" value=\"{}\"/>"
                         "<property name=\"kernels\" value=\"{}\"/></properties>",
                         xml_escape(p.key), xml_escape(p.name(0)));
    if (!tag.empty()) {
      (tag == "failure" ? failures : errors)++;
      cases += fmt::format("<{} message=\"{}\"/>", tag, xml_escape(gate.why));
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
  return junit_document("kdet compare", c.a + " -> " + c.b, {tests, failures, errors, std::nullopt},
                        cases);
}

} // namespace kdet::report
