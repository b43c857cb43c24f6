//===- report/scan_report.cpp - terminal, JSON and JUnit reports of a scan -----===//
#include "kdet/report/scan_report.hpp"

#include "kdet/scan/defaults.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::report {

using scan::count;
using scan::JobStatus;
using scan::ScanCounts;

std::map<std::string, Tally> tally_by(const store::ScanResult& r,
                                      std::string store::JobRow::*field) {
  std::map<std::string, Tally> out;
  for (const auto& j : r.jobs) {
    auto& t = out[j.*field];
    ++t.jobs;
    if (j.varies()) ++t.varying;
  }
  return out;
}

// A bundle job's bundle id (its input is the bundle folder), else null.
nlohmann::json bundle_of(const store::JobRow& j) {
  if (j.option_set != scan::k_captured_option_set) return nullptr;
  return j.input.substr(j.input.find_last_of('/') + 1);
}

std::vector<CompilerComparison> compare_compilers(const store::ScanResult& r) {
  // A captured library compiles bundle jobs only, which pair with no other compiler's jobs.
  std::vector<std::string> names;
  for (const auto& c : r.compilers)
    if (std::any_of(r.jobs.begin(), r.jobs.end(), [&](const store::JobRow& j) {
          return j.compiler == c.name && j.option_set != scan::k_captured_option_set;
        }))
      names.push_back(c.name);
  std::vector<CompilerComparison> out;
  for (size_t i = 1; i < names.size(); ++i) {
    // One scan's compilers may run under different settings (the probe of the unnamed factors).
    const scan::SettingsDiffer sd = scan::settings_differ(r, names[0], r, names[i]);
    CompilerComparison c{names[0], names[i], {}, scan::k_default_fix_margin, sd.a, sd.b};
    c.pairs = scan::pair_jobs(r.jobs, c.a, r.jobs, c.b, c.margin, !sd.differ());
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

struct Paint {
  bool on;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
  }
};

std::string tally_line(const std::map<std::string, Tally>& t) {
  std::vector<std::string> parts;
  parts.reserve(t.size());
  for (const auto& [k, v] : t)
    parts.push_back(fmt::format("{} {}/{}", k.empty() ? "(none)" : k, v.varying, v.jobs));
  return fmt::format("{}", fmt::join(parts, ", "));
}

} // namespace

std::string job_reach_lines(const scan::ScanReaches* reaches, const store::JobRow& j,
                            const std::string& indent) {
  if (!reaches) return "";
  auto it = reaches->jobs.find(j.id);
  if (it == reaches->jobs.end()) return "";
  std::string s;
  for (const auto& [id, reach] : it->second)
    s += it->second.size() == 1
             ? fmt::format("{}reach: {}\n", indent, reach.summary)
             : fmt::format("{}reach of {}: {}\n", indent, id.substr(0, 12), reach.summary);
  return s;
}

std::string scan_to_text(const store::ScanResult& r, const TextOptions& o,
                         const std::vector<CompilerComparison>* given,
                         const scan::ScanReaches* reaches) {
  Paint p{o.color};
  const size_t max_rest = o.max_rest, width = o.name_width;
  ScanCounts c = count(r);
  double rate = scan::expected_rate(r);
  std::string s;
  size_t inputs = tally_by(r, &store::JobRow::input).size();
  size_t inputs_varying = 0;
  for (const auto& [k, t] : tally_by(r, &store::JobRow::input))
    inputs_varying += t.varying > 0;
  std::string head =
      fmt::format("{} of {} {} ({} of {})", c.varying, plural(c.jobs, "job"),
                  c.jobs == 1 ? "varies" : "vary", inputs_varying, plural(inputs, "input"));
  s += (c.varying ? p("1;31", head) : p("1;32", head)) + "\n";
  s += fmt::format("  unexpected:    {} vary with no [[expect]]\n", c.unexpected);
  s += quiet_jobs_line(r);
  if (c.expected)
    s += fmt::format("  expected:      {} known to vary (manifest [[expect]])\n", c.expected);
  if (c.no_longer_varies)
    s += p("33",
           fmt::format("  stale:         {} expected to vary, one output with the rate bounded "
                       "below {}",
                       c.no_longer_varies, percent(rate))) +
         "\n";
  if (c.not_seen)
    s += fmt::format("  not seen:      {} expected to vary, one output so far (too few runs to "
                     "bound the rate below {})\n",
                     c.not_seen, percent(rate));
  if (c.failed)
    s += p("33", fmt::format("  failed:        {} failed on every run", plural(c.failed, "job"))) +
         "\n";
  if (c.incomplete)
    s += p("33", fmt::format("  incomplete:    {} not finished (run kdet scan again to resume)",
                             plural(c.incomplete, "job"))) +
         "\n";
  if (c.kdet_error_runs)
    s += p("33", fmt::format("  lost:          {} of {} ended in an error of kdet's own, not an "
                             "outcome of the compiler; no verdict counts them",
                             plural(c.kdet_error_runs, "run"), plural(c.kdet_error_jobs, "job"))) +
         "\n";
  auto targets = tally_by(r, &store::JobRow::target);
  if (targets.size() > 1 || (targets.size() == 1 && !targets.begin()->first.empty()))
    s += fmt::format("  by target:     {}\n", tally_line(targets));
  s += fmt::format("  by options:    {}\n", tally_line(tally_by(r, &store::JobRow::option_set)));
  s += fmt::format("  by compiler:   {}\n", tally_line(tally_by(r, &store::JobRow::compiler)));
  // What the verdicts were reached under: the factors [setting] left unnamed (scan/defaults.hpp).
  if (auto d = r.meta.find("defaults"); d != r.meta.end() && !d->second.empty()) {
    const char* lead = "  setting:       ";
    for (const auto& line : split(d->second, '\n')) {
      s += fmt::format("{}{}\n", lead, line);
      lead = "                 ";
    }
  }
  uint64_t runs = 0;
  double secs = 0;
  for (const auto& j : r.jobs)
    runs += j.runs, secs += j.seconds;
  s += fmt::format("  runs:          {} in total, {} of job time\n", runs, human_seconds(secs));
  if (reaches && reaches->census.total)
    s += fmt::format("  reach:         {}\n", reaches->census.line("job"));
  auto comparisons = given ? *given : compare_compilers(r);
  for (const auto& cmp : comparisons) {
    auto n = scan::count_labels(cmp.pairs);
    std::vector<std::string> parts;
    for (size_t i = 0; i < n.size(); ++i)
      if (n[i]) parts.push_back(fmt::format("{} {}", n[i], scan::to_string(scan::k_all_labels[i])));
    s += fmt::format("  {} -> {}: {}\n", cmp.a, cmp.b, fmt::join(parts, ", "));
    // Settled or stressed (kdet scan --settle/--stress): the answers and each stressed job.
    if (!given) continue;
    for (const auto& line : split(compare_answers(cmp), '\n'))
      if (!line.empty()) s += "    " + line + "\n";
    for (const auto& pr : cmp.pairs)
      if (pr.stress != scan::Pairing::Stress::not_run)
        s += fmt::format("    {}  {}\n", pr.name(width), stress_evidence(pr));
  }
  // Every job that fails the scan is listed, never cut: CI logs are often all people read.
  for (const auto& j : r.jobs)
    if (scan::job_status(j, rate) == JobStatus::nondeterministic)
      s += fmt::format("  {}  {}  {} variants in {} runs\n", p("31", "NONDETERMINISTIC"),
                       j.label(width), j.variants.size(), j.runs) +
           job_reach_lines(reaches, j, std::string(20, ' '));
  for (const auto& cmp : comparisons)
    for (const auto& pr : cmp.pairs)
      if (pr.label == scan::Label::regressed)
        s += fmt::format("  {}  {} ({} -> {})\n", p("31", "REGRESSED       "), pr.name(width),
                         cmp.a, cmp.b);
  for (const auto& j : r.jobs)
    if (scan::job_status(j, rate) == JobStatus::no_longer_nondeterministic)
      s +=
          p("33",
            fmt::format("  NO LONGER NONDETERMINISTIC  {}  (one output in {}: rate below {} at 95% "
                        "confidence, expected {}; {})",
                        j.label(width), plural(j.runs, "run"), percent(j.upper_bound()),
                        percent(rate), j.expect_reason)) +
          "\n";
  // Failures grouped by how they failed: a census through a compiler too old for its inputs
  // fails thousands of jobs one way, which is one line.
  s += failures_to_text(scan::group_failures(r), o);
  size_t listed = 0, rest = 0;
  for (const auto& j : r.jobs) {
    JobStatus st = scan::job_status(j, rate);
    if (st != JobStatus::nondeterministic_expected && st != JobStatus::not_seen) continue;
    if (listed >= max_rest) {
      ++rest;
      continue;
    }
    ++listed;
    if (st == JobStatus::nondeterministic_expected)
      s += fmt::format("  expected          {}  {} variants in {} runs ({})\n", j.label(width),
                       j.variants.size(), j.runs, j.expect_reason) +
           job_reach_lines(reaches, j, std::string(20, ' '));
    else
      s += fmt::format("  not seen          {}  not seen in {} (bound {}; expected {})\n",
                       j.label(width), plural(j.runs, "run"), percent(j.upper_bound()),
                       percent(rate));
  }
  if (rest)
    s += fmt::format("  ... and {} (see --json or --report-html)\n",
                     plural(rest, "more expected job"));
  return s;
}

nlohmann::json scan_to_json(const store::ScanResult& r,
                            const std::vector<CompilerComparison>* given,
                            const scan::ScanReaches* reaches) {
  using nlohmann::json;
  ScanCounts c = count(r);
  json out;
  out["schema"] = k_scan_schema;
  out["meta"] = r.meta;
  json compilers = json::array();
  for (const auto& x : r.compilers)
    compilers.push_back({{"name", x.name},
                         {"backend", x.backend},
                         {"path", x.path},
                         {"content_hash", x.content_hash},
                         {"version", x.version}});
  out["compilers"] = compilers;
  auto tallies = [&](std::string store::JobRow::*f) {
    json t = json::object();
    for (const auto& [k, v] : tally_by(r, f))
      t[k] = {{"jobs", v.jobs}, {"nondeterministic", v.varying}};
    return t;
  };
  out["summary"] = {{"jobs", c.jobs},
                    {"nondeterministic", c.varying},
                    {"unexpected", c.unexpected},
                    {"expected", c.expected},
                    {"no_longer_nondeterministic", c.no_longer_varies},
                    {"not_seen", c.not_seen},
                    {"expected_rate", scan::expected_rate(r)},
                    {"failed", c.failed},
                    {"incomplete", c.incomplete},
                    {"kdet_errors", {{"runs", c.kdet_error_runs}, {"jobs", c.kdet_error_jobs}}},
                    {"exit_code", scan::scan_exit_code(c)},
                    {"by_target", tallies(&store::JobRow::target)},
                    {"by_option_set", tallies(&store::JobRow::option_set)},
                    {"by_compiler", tallies(&store::JobRow::compiler)}};
  if (reaches) out["summary"]["reach"] = reaches->census.to_json();
  json jobs = json::array();
  for (const auto& j : r.jobs) {
    json vars = json::array();
    const auto* job_reaches =
        reaches && reaches->jobs.count(j.id) ? &reaches->jobs.at(j.id) : nullptr;
    for (const auto& v : j.variants) {
      json arts = json::array();
      for (const auto& a : v.artifacts)
        arts.push_back({{"name", a.name}, {"hash", a.hash}, {"size", a.size}});
      // Runs count from 1, as in kdet run's JSON; the database keeps 0-based indices.
      vars.push_back({{"id", v.id},
                      {"count", v.count},
                      {"first_run", v.first_run + 1},
                      {"status", v.status},
                      {"detail", v.detail},
                      {"log", v.log},
                      {"artifacts", arts}});
      if (job_reaches && job_reaches->count(v.id))
        vars.back()["reach"] = diff::to_json(job_reaches->at(v.id));
    }
    jobs.push_back({{"id", j.id},
                    {"input", j.input},
                    {"input_hash", j.input_hash},
                    {"compiler", j.compiler},
                    {"target", j.target},
                    {"option_set", j.option_set},
                    {"bundle", bundle_of(j)},
                    {"kernels", j.kernels},
                    {"options", j.options},
                    {"status", scan::to_string(scan::job_status(j, scan::expected_rate(r)))},
                    {"verdict", engine::to_string(j.verdict())},
                    {"done", j.done},
                    {"runs", j.runs},
                    {"budget", j.budget},
                    {"ok_runs", j.ok_runs},
                    {"differing", j.differing()},
                    {"upper_bound", j.upper_bound()},
                    {"expected_vary", j.expected_vary},
                    {"expect_reason", j.expect_reason},
                    {"seconds", j.seconds},
                    {"variants", vars}});
  }
  out["jobs"] = jobs;
  out["failure_groups"] = failures_to_json(scan::group_failures(r));
  json cmps = json::array();
  for (const auto& cmp : given ? *given : compare_compilers(r))
    cmps.push_back(comparison_to_json(cmp));
  out["comparisons"] = cmps;
  return out;
}

std::string xml_escape(std::string_view s) {
  return xml_text(s);
}

std::string scan_to_junit(const store::ScanResult& r) {
  std::map<std::string, std::vector<const store::JobRow*>> by_compiler;
  for (const auto& j : r.jobs)
    by_compiler[j.compiler].push_back(&j);
  ScanCounts all = count(r);
  double rate = scan::expected_rate(r);
  // A failed job's error names its group, so a CI page that groups errors by message shows
  // one entry per way of failing.
  const auto groups = scan::group_failures(r);
  std::map<const store::JobRow*, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g)
    for (const store::JobRow* j : groups[g].jobs)
      group_of[j] = g;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  auto name_it = r.meta.find("name");
  std::string scan_name = name_it == r.meta.end() ? "scan" : name_it->second;
  out += fmt::format(
      "<testsuites name=\"kdet scan {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
      xml_escape(scan_name), all.jobs, all.unexpected + all.no_longer_varies, all.failed);
  for (const auto& [compiler, jobs] : by_compiler) {
    size_t fail = 0, err = 0, skip = 0;
    double time = 0;
    for (auto* j : jobs) {
      JobStatus st = scan::job_status(*j, rate);
      fail += st == JobStatus::nondeterministic || st == JobStatus::no_longer_nondeterministic;
      err += st == JobStatus::failed;
      skip += st == JobStatus::nondeterministic_expected || st == JobStatus::not_seen ||
              st == JobStatus::incomplete;
      time += j->seconds;
    }
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
        "time=\"{:.3f}\">\n",
        xml_escape(compiler), jobs.size(), fail, err, skip, time);
    for (auto* j : jobs) {
      std::string cls = compiler + (j->target.empty() ? "" : "." + j->target) + "." + j->option_set;
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">",
                         xml_escape(cls), xml_escape(j->input_label()), j->seconds);
      // The full names, one property away from the short one.
      if (!j->kernels.empty())
        out += fmt::format("<properties><property name=\"kernels\" value=\"{}\"/></properties>",
                           xml_escape(fmt::format("{}", fmt::join(j->kernels, " "))));
      switch (scan::job_status(*j, rate)) {
      case JobStatus::nondeterministic:
        out += fmt::format(
            "<failure message=\"{} variants in {} runs ({} differ)\" type=\"nondeterministic\">"
            "job {}: options {}</failure>",
            j->variants.size(), j->runs, j->differing(), j->id, xml_escape(shell_join(j->options)));
        break;
      case JobStatus::no_longer_nondeterministic:
        out += fmt::format("<failure message=\"expected to vary ({}) but gave one output in {}: "
                           "rate below {} "
                           "at 95% confidence, expected {}\" type=\"no-longer-nondeterministic\"/>",
                           xml_escape(j->expect_reason), plural(j->runs, "run"),
                           percent(j->upper_bound()), percent(rate));
        break;
      case JobStatus::not_seen:
        out += fmt::format("<skipped message=\"expected to vary ({}); not seen in {} (bound {}, "
                           "expected {})\"/>",
                           xml_escape(j->expect_reason), plural(j->runs, "run"),
                           percent(j->upper_bound()), percent(rate));
        break;
      case JobStatus::failed: {
        auto g = group_of.find(j);
        const store::VariantRow* v = j->variants.empty() ? nullptr : &j->variants.front();
        std::string how =
            g == group_of.end() ? (v ? v->detail : "") : scan::describe(groups[g->second]);
        std::string group =
            g == group_of.end() || groups[g->second].jobs.size() < 2
                ? ""
                : fmt::format(" (one of {} failing this way)", groups[g->second].jobs.size());
        // The body holds the compiler's log: its own words, as the job's details.
        out += fmt::format("<error message=\"compiler failed: {}{}\" type=\"{}\">job {} ({}): {}"
                           "{}</error>",
                           xml_escape(how), group, xml_escape(v ? v->status : "failed"), j->id,
                           j->runs == 1 ? std::string("its one run failed")
                                        : fmt::format("all {} runs failed", j->runs),
                           xml_escape(v ? v->detail : ""),
                           v && !v->log.empty() ? "\n" + xml_escape(v->log) : "");
        break;
      }
      case JobStatus::nondeterministic_expected:
        out +=
            fmt::format("<skipped message=\"known to vary: {}\"/>", xml_escape(j->expect_reason));
        break;
      case JobStatus::incomplete:
        out += fmt::format("<skipped message=\"not finished: {} of {}\"/>", j->runs,
                           plural(j->budget, "run"));
        break;
      case JobStatus::deterministic:
        out += fmt::format(
            "<system-out>deterministic in {}; rate below {} at 95% confidence</system-out>",
            plural(j->runs, "run"), percent(j->upper_bound()));
        break;
      }
      out += "</testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

namespace {

std::string variant_tally(const scan::CompareAnswers& ans) {
  std::vector<std::string> parts;
  for (const auto& [rank, n] : ans.by_a_variant)
    parts.push_back(fmt::format("A's variant {} in {}", rank, n));
  if (ans.b_emits_new) parts.push_back(fmt::format("code A never gave in {}", ans.b_emits_new));
  if (ans.b_no_single_output)
    parts.push_back(fmt::format("no single output in {}", ans.b_no_single_output));
  return parts.empty() ? "nothing" : fmt::format("{}", fmt::join(parts, ", "));
}

} // namespace

std::string compare_answers(const CompilerComparison& c) {
  const scan::CompareAnswers ans = scan::answer(c.pairs);
  std::string s;
  if (ans.b_varies)
    s += fmt::format("does B vary?  yes: in {} of {}\n", ans.b_varies, plural(ans.b_jobs, "job"));
  else {
    // A job B failed on every run has no output and so no bound: count it apart.
    std::string detail = ans.b_one_output
                             ? fmt::format("{} with one output, the weakest rate "
                                           "bound {} at 95%",
                                           ans.b_one_output, percent(ans.b_weakest_bound))
                             : std::string("none with one output");
    if (size_t failed = ans.b_jobs - ans.b_one_output)
      detail += fmt::format("; {} failed on every run", failed);
    s += fmt::format("does B vary?  not seen in {} ({}), under this scan's setting only\n",
                     plural(ans.b_jobs, "job"), detail);
  }
  s += fmt::format("where A varied ({}), B emits: {}\n", plural(ans.a_varied, "job"),
                   variant_tally(ans));
  if (ans.stressed) {
    std::vector<std::string> by;
    for (const auto& [regime, k] : ans.hidden_by_regime)
      by.push_back(fmt::format("{} by {}", k, regime));
    s += fmt::format("under stress ({} re-run on B): {} fixed under stress, {} hidden{}, {} "
                     "inconclusive\n",
                     plural(ans.stressed, "job"), ans.stress_fixed, ans.stress_hidden,
                     by.empty() ? "" : fmt::format(" ({})", fmt::join(by, ", ")),
                     ans.stress_inconclusive);
  }
  return s;
}

std::string comparison_to_text(const CompilerComparison& c, bool color, size_t max_listed,
                               size_t name_width) {
  Paint p{color};
  auto n = scan::count_labels(c.pairs);
  std::string s = fmt::format(
      "{} -> {}: {} compared (fixed: B gave one output and its 95% bound is {:g}x below A's "
      "rate)\n",
      c.a, c.b, plural(c.pairs.size(), "job"), c.margin);
  for (size_t i = 0; i < n.size(); ++i)
    s += fmt::format("  {:<12} {}\n", scan::to_string(scan::k_all_labels[i]), n[i]);
  if (!c.a_setting.empty() || !c.b_setting.empty())
    s += fmt::format("settings differ, so no job is called fixed:\n  A  {}\n  B  {}\n", c.a_setting,
                     c.b_setting);
  if (std::none_of(c.pairs.begin(), c.pairs.end(), [](const auto& p) { return p.a && p.b; }))
    s += "no job of A has a job of B under the same input, target and option set: nothing is "
         "compared\n";
  s += compare_answers(c);
  size_t listed = 0;
  for (const auto& pr : c.pairs) {
    if ((pr.label == scan::Label::identical || pr.label == scan::Label::changed) &&
        pr.stress == scan::Pairing::Stress::not_run)
      continue;
    if (listed++ == max_listed) {
      s += "  ...\n";
      break;
    }
    const char* code = pr.label == scan::Label::regressed ? "31"
                       : pr.label == scan::Label::fixed   ? "32"
                                                          : "33";
    std::string why = pair_evidence(pr, c.margin);
    std::string st = stress_evidence(pr);
    if (!st.empty()) why += (why.empty() ? "" : "; ") + st;
    if (!why.empty()) why = "  " + why;
    s += fmt::format("  {}  {}{}\n", p(code, fmt::format("{:<12}", scan::to_string(pr.label))),
                     pr.name(name_width), why);
  }
  return s;
}

nlohmann::json comparison_to_json(const CompilerComparison& c) {
  using nlohmann::json;
  auto n = scan::count_labels(c.pairs);
  json counts = json::object();
  for (size_t i = 0; i < n.size(); ++i)
    counts[scan::to_string(scan::k_all_labels[i])] = n[i];
  json pairs = json::array();
  for (const auto& p : c.pairs) {
    json j = {{"key", p.key},
              {"name", p.name(0)},
              {"label", scan::to_string(p.label)},
              {"a", p.a ? json(p.a->id) : json()},
              {"b", p.b ? json(p.b->id) : json()}};
    if (p.a && p.a->runs) {
      j["a_runs"] = p.a->runs;
      j["a_rate"] = scan::observed_rate(*p.a);
    }
    if (p.b && p.b->runs) {
      j["b_runs"] = p.b->runs;
      j["b_upper_bound"] = p.b->upper_bound();
    }
    if (p.b_is_a_variant >= 0) {
      j["b_output"] = p.b->modal();
      j["b_is_a_variant"] = p.b_is_a_variant > 0 ? json(p.b_is_a_variant) : json(nullptr);
    }
    if (p.settle_runs) j["settle_runs"] = p.settle_runs;
    if (p.unfixable == "input") j["input_differs"] = true;
    if (p.stress != scan::Pairing::Stress::not_run) {
      json st = {{"outcome", scan::to_string(p.stress)},
                 {"runs", p.stress_runs},
                 {"sampled", p.stress_sampled}};
      if (p.stress == scan::Pairing::Stress::fixed) st["upper_bound"] = p.stress_bound;
      if (p.stress == scan::Pairing::Stress::hidden) {
        st["regime"] = p.stress_regime;
        st["regime_runs"] = p.stress_regime_runs;
        st["differing"] = p.stress_differing;
      }
      if (p.stress == scan::Pairing::Stress::inconclusive) st["reason"] = p.stress_regime;
      if (!p.stress_skipped.empty()) st["skipped"] = p.stress_skipped;
      j["stress"] = std::move(st);
    }
    pairs.push_back(std::move(j));
  }
  const scan::CompareAnswers ans = scan::answer(c.pairs);
  json emits = json::object();
  for (const auto& [rank, k] : ans.by_a_variant)
    emits[std::to_string(rank)] = k;
  json answers = {{"b_jobs", ans.b_jobs},
                  {"b_nondeterministic", ans.b_varies},
                  {"b_one_output", ans.b_one_output},
                  {"b_weakest_upper_bound", ans.b_weakest_bound},
                  {"a_nondeterministic", ans.a_varied},
                  {"b_emits_a_variant", ans.b_emits_a_variant},
                  {"b_emits_a_variant_by_rank", emits},
                  {"b_emits_new_code", ans.b_emits_new},
                  {"b_no_single_output", ans.b_no_single_output}};
  if (ans.stressed)
    answers["stress"] = {{"jobs", ans.stressed},
                         {"fixed", ans.stress_fixed},
                         {"hidden", ans.stress_hidden},
                         {"hidden_by_regime", ans.hidden_by_regime},
                         {"inconclusive", ans.stress_inconclusive}};
  json out = {
      {"schema", k_compare_schema}, {"a", c.a},           {"b", c.b},      {"margin", c.margin},
      {"counts", counts},           {"answers", answers}, {"pairs", pairs}};
  if (!c.a_setting.empty() || !c.b_setting.empty())
    out["settings_differ"] = {{"a", c.a_setting}, {"b", c.b_setting}};
  return out;
}

} // namespace kdet::report
