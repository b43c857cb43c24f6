#include "kdet/report/explain_report.hpp"

#include "kdet/stats/evidence.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/sysinfo.hpp"
#include "kdet/version.hpp"

#include <fmt/format.h>

namespace kdet::report {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v)
    out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string cell_result(const engine::Cell& c) {
  if (c.result == engine::Verdict::deterministic)
    return fmt::format("deterministic (rate < {})", percent(c.assessment.upper_bound));
  if (c.result == engine::Verdict::nondeterministic)
    return fmt::format("nondeterministic ({} outcomes)", c.outcomes);
  return "failed: " + c.failure;
}
} // namespace

nlohmann::json explain_to_json(const engine::ExplainOptions& opt, const engine::ExplainResult& r,
                               const capture::ReplayPlan* replay) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : r.cells) {
    cells.push_back({{"name", c.name},
                     {"varied", c.varied},
                     {"runs", c.runs},
                     {"outcomes", c.outcomes},
                     {"result", engine::to_string(c.result)},
                     {"rate", c.assessment.rate},
                     {"upper_bound", c.assessment.upper_bound},
                     {"failure", c.failure},
                     {"fixed", c.fixed},
                     {"probe", c.probe},
                     {"median_seconds", c.median_seconds}});
  }
  nlohmann::json j = {
      {"schema", k_explain_schema},
      {"kdet", {{"version", k_version}, {"command_line", command_line()}}},
      {"input", opt.base.input_path},
      {"compiler",
       {{"backend", r.identity.backend},
        {"path", r.identity.path},
        {"content_hash", r.identity.content_hash},
        {"version", r.identity.version},
        {"options", opt.base.options}}},
      {"seed", fmt::format("{:#x}", opt.base.setting.seed)},
      {"environment", system_info()},
      {"factors", r.factors},
      {"baseline_rate", r.baseline_rate},
      {"cell_runs", r.cell_runs},
      {"cells", cells},
      {"findings", r.findings},
      {"cause", r.cause},
      {"necessary", r.necessary},
      {"mechanism", r.mechanism},
      {"regimes", r.regimes},
      {"left_out", r.left_out},
      {"untestable", r.untestable},
      {"probe_timeout_seconds", static_cast<double>(r.probe_timeout.count()) / 1000},
      {"verdict", engine::to_string(r.verdict)},
      {"baseline_upper_bound", r.baseline_bound},
      {"excludes_rate_of_interest", stats::excludes_rate_of_interest(r.baseline_bound)},
      {"untried", r.untried},
      {"conclusion", r.conclusion},
      {"exit_code", r.exit_code}};
  if (replay)
    j["replay"] = {{"bundle", replay->id}, {"dir", replay->bundle_dir}, {"library", replay->lib}};
  return j;
}

std::string explain_to_text(const engine::ExplainOptions& opt, const engine::ExplainResult& r,
                            bool color, const std::string& input_display) {
  std::string s;
  s += fmt::format("input       {}\n", input_display);
  s += fmt::format("compiler    {}: {} ({})\n", r.identity.backend, r.identity.version,
                   r.identity.path);
  if (!opt.base.options.empty()) s += fmt::format("options     {}\n", shell_join(opt.base.options));
  s += fmt::format("factors     {}\n", join(r.factors));
  if (!r.left_out.empty())
    s += fmt::format("left out    {} (--factors/--skip)\n", join(r.left_out));
  if (!r.untestable.empty()) s += fmt::format("untestable  {}\n", join(r.untestable));
  s += fmt::format("regimes     {}\n", r.regimes);
  s += fmt::format("seed        {:#x}\n", opt.base.setting.seed);
  if (r.probe_timeout.count() > 0)
    s += fmt::format(
        "probes      short runs to find levels that break the compiler, killed after {}\n",
        human_seconds(static_cast<double>(r.probe_timeout.count()) / 1000));
  if (r.cell_runs)
    s += fmt::format(
        "cells       up to {} runs each (enough to see half the baseline rate of {} with 95% "
        "probability); a cell stops at its second outcome\n",
        r.cell_runs, percent(r.baseline_rate));
  s += "\n";
  size_t w = 12;
  for (const auto& c : r.cells)
    w = std::max(w, c.name.size());
  s += fmt::format("  {:<{}}  {:>5}  {:>8}  {}\n", "cell", w, "runs", "outcomes", "result");
  for (const auto& c : r.cells)
    s += fmt::format("  {:<{}}  {:>5}  {:>8}  {}\n", c.name, w, c.runs, c.outcomes, cell_result(c));
  s += "\n";
  for (const auto& f : r.findings)
    s += fmt::format("finding     {}\n", f);
  if (!r.necessary.empty())
    s += fmt::format("necessary   {} (each alone makes it vary)\n", join(r.necessary));
  const char* code = r.verdict == engine::Verdict::deterministic ? "1;32"
                     : r.verdict == engine::Verdict::explained   ? "1;31"
                                                                 : "1;33";
  std::string head = r.verdict == engine::Verdict::deterministic
                         ? stats::no_variance_word(r.baseline_bound)
                     : r.verdict == engine::Verdict::explained ? "EXPLAINED"
                     : r.verdict == engine::Verdict::failed    ? "FAILED"
                                                               : "INCONCLUSIVE";
  s += fmt::format("conclusion  {}: {}\n",
                   color ? fmt::format("\033[{}m{}\033[0m", code, head) : head, r.conclusion);
  return s;
}

} // namespace kdet::report
