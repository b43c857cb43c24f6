//===- report/scan_failures.cpp - a scan's failed jobs, one line per way of failing -===//
//
// scan/failures.hpp groups the jobs; this renders the groups for the terminal, HTML and JSON,
// and the compiler's words in one job's JUnit error.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/compiler_log.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>

namespace kdet::report {

std::string failures_to_text(const std::vector<scan::FailureGroup>& groups, const TextOptions& o) {
  auto paint = [&o](const std::string& s) {
    return o.color ? fmt::format("\033[33m{}\033[0m", s) : s;
  };
  const bool list = o.list_failures;
  std::string s;
  bool hidden = false;
  for (const auto& g : groups) {
    const store::JobRow& first = *g.jobs.front();
    if (g.jobs.size() == 1) {
      s += paint(fmt::format("  FAILED            {}  ({}: {})", first.label(o.name_width),
                             first.runs == 1 ? std::string("its one run")
                                             : fmt::format("every one of {} runs", first.runs),
                             scan::describe(g))) +
           "\n";
      continue;
    }
    s += paint(fmt::format("  FAILED            {} on {}: {}", plural(g.jobs.size(), "job"),
                           g.compiler, scan::describe(g))) +
         "\n";
    if (!list) {
      hidden = true;
      continue;
    }
    for (const store::JobRow* j : g.jobs)
      s += fmt::format("                      {}\n", j->label(o.name_width));
  }
  if (hidden) s += "  (--failures lists the jobs of each group of failures)\n";
  return s;
}

std::string failures_to_html(const std::vector<scan::FailureGroup>& groups) {
  if (groups.empty()) return "";
  std::string s = "<div class=\"wide\"><table id=\"failure-groups\"><tr><th>jobs</th><th>compiler"
                  "</th><th>how</th><th>the compiler's first error line</th></tr>";
  for (const auto& g : groups) {
    std::string jobs;
    for (const store::JobRow* j : g.jobs)
      jobs += fmt::format("<a href=\"#job-{}\">{}</a><br>", j->id, xml_escape(j->label()));
    s += fmt::format("<tr class=\"failure-group\"><td><details><summary>{}</summary>{}</details>"
                     "</td><td>{}</td><td>{}{}</td><td><code>{}</code></td></tr>",
                     g.jobs.size(), jobs, xml_escape(g.compiler), xml_escape(g.status),
                     g.detail.empty() ? "" : ": " + xml_escape(g.detail), xml_escape(g.message));
  }
  return s + "</table></div>\n";
}

nlohmann::json failures_to_json(const std::vector<scan::FailureGroup>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json ids = nlohmann::json::array();
    for (const store::JobRow* j : g.jobs)
      ids.push_back(j->id);
    out.push_back({{"count", g.jobs.size()},
                   {"compiler", g.compiler},
                   {"status", g.status},
                   {"detail", g.detail},
                   {"message", g.message},
                   {"jobs", ids}});
  }
  return out;
}

std::string variant_log_html(const store::VariantRow& v) {
  if (v.log.find_first_not_of(" \t\r\n") == std::string::npos) return "";
  // A card shows the start of the log; the database (and --json) keep what was stored.
  constexpr size_t k_shown = 2048;
  std::string shown = utf8_safe(std::string_view(v.log).substr(0, k_shown));
  return fmt::format("<p class=\"compiler-error\">The compiler said: <code>{}</code></p>"
                     "<details><summary>its log ({})</summary><pre class=\"log\">{}{}</pre>"
                     "</details>",
                     xml_escape(engine::first_error_line(v.log)), human_bytes(v.log.size()),
                     xml_escape(shown), v.log.size() > k_shown ? "\n..." : "");
}

} // namespace kdet::report
