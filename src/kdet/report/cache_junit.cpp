//===- report/cache_junit.cpp - kdet cache report as JUnit XML -------------===//
//
// The cache is judged as `kdet cache report` exits: a key with more than one variant fails
// (exit 1). The other keys pass as one case, so that a cache of 100,000 keys makes a CI page of
// its failures, not of every key; an empty cache is a skipped case, never an empty green suite.
//
//===----------------------------------------------------------------------===//
#include "kdet/report/cache_junit.hpp"

#include "kdet/report/junit.hpp"
#include "kdet/report/scan_report.hpp"

#include <fmt/format.h>

namespace kdet::report {

std::string cache_report_to_junit(const std::vector<cache::MultiVariantKey>& keys,
                                  size_t all_keys) {
  std::string cases;
  for (const auto& m : keys) {
    std::string detail;
    for (size_t i = 1; i < m.variants.size(); ++i)
      detail += fmt::format("variant {} vs the served {}: {}\n", m.variants[i].id.substr(0, 16),
                            m.variants[0].id.substr(0, 16), m.differences[i - 1]);
    cases += fmt::format("    <testcase classname=\"kdet.cache.key\" name=\"{}\">"
                         "<properties><property name=\"key\" value=\"{}\"/></properties>"
                         "<failure message=\"{} variants\">{}</failure></testcase>\n",
                         xml_escape(cache::key_title(m)), xml_escape(m.key), m.variants.size(),
                         xml_escape(detail));
  }
  const size_t others = all_keys >= keys.size() ? all_keys - keys.size() : 0;
  if (all_keys == 0)
    cases += "    <testcase classname=\"kdet.cache\" name=\"no key\"><skipped message=\"the "
             "cache holds no key: nothing was judged\"/></testcase>\n";
  else if (others > 0)
    cases += fmt::format("    <testcase classname=\"kdet.cache\" name=\"{} other key{} with one "
                         "variant each\"/>\n",
                         others, others == 1 ? "" : "s");
  const size_t tests = keys.size() + (all_keys == 0 || others > 0 ? 1 : 0);
  return junit_document("kdet cache report", "kdet cache report",
                        {tests, keys.size(), 0, all_keys == 0 ? size_t{1} : 0}, cases);
}

} // namespace kdet::report
