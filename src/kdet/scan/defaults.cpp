//===- scan/defaults.cpp - a scan's jobs meet the factors `kdet run` meets ----===//
#include "kdet/scan/defaults.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_defaults.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace kdet::scan {

void vary_unnamed(Manifest& m, const std::vector<Job>& jobs) {
  for (size_t ci = 0; ci < m.compilers.size(); ++ci) {
    CompilerSpec& spec = m.compilers[ci];
    spec.setting = m.setting;
    spec.default_varied.clear();
    spec.findings.clear();
    spec.probe_run_seconds = 0;
    spec.run_limit = {};
    if (!m.unnamed_vary || engine::interrupted()) continue;
    auto first =
        std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.compiler == ci; });
    if (first == jobs.end()) continue;
    engine::RunPlan plan = job_run_plan(m, *first, m.setting, 0, 1, 0);
    try {
      engine::DefaultLevels d = engine::vary_unset_factors(plan, m.named_factors);
      spec.setting = plan.setting;
      spec.setting.seed = m.setting.seed; // job_run_plan mixes each job's own seed in
      spec.default_varied = std::move(d.varied);
      spec.findings = std::move(d.findings);
      spec.probe_run_seconds = d.run_seconds;
      spec.run_limit = d.run_limit;
    } catch (const Error& e) {
      spec.findings.push_back(
          fmt::format("its levels could not be probed ({}): its jobs run at the manifest's "
                      "setting, unnamed factors natural",
                      e.what()));
    }
  }
}

std::string describe_defaults(const Manifest& m, const CompilerSpec& spec) {
  if (!m.unnamed_vary) return "factors not named in [setting] natural (unnamed = \"natural\")";
  if (spec.run_limit.count() > 0)
    return "every factor not named in [setting] left natural: a level it names breaks this "
           "compiler (below)";
  if (spec.default_varied.empty()) return "every factor that acts here named in [setting]";
  return fmt::format("every factor not named in [setting] varied: {}",
                     fmt::join(spec.default_varied, ", "));
}

namespace {

// perturb::describe without its trailing " seed=0x...": the seed is no part of a setting two scans
// compare.
std::string unseeded(perturb::Setting s) {
  s.seed = 0;
  std::string d = perturb::describe(s);
  return d.substr(0, d.rfind(" seed="));
}

} // namespace

std::string compiler_settings_meta(const Manifest& m, const std::vector<Job>& jobs) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t ci = 0; ci < m.compilers.size(); ++ci)
    if (std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.compiler == ci; }))
      out[m.compilers[ci].name] = unseeded(m.compilers[ci].setting);
  return out.dump();
}

std::string stored_setting(const store::ScanResult& r, const std::string& compiler) {
  if (auto it = r.meta.find("compiler_settings"); it != r.meta.end()) {
    auto settings = nlohmann::json::parse(it->second, nullptr, false);
    if (settings.is_object() && settings.contains(compiler) && settings[compiler].is_string())
      return settings[compiler].get<std::string>();
  }
  auto text = r.meta.find("manifest_text"), path = r.meta.find("manifest");
  if (text == r.meta.end() || path == r.meta.end()) return "";
  try {
    const Manifest m = parse_manifest(text->second, path->second);
    return unseeded(m.setting) + (m.unnamed_vary ? " unnamed=vary" : " unnamed=natural");
  } catch (const Error&) {
    return "";
  }
}

SettingsDiffer settings_differ(const store::ScanResult& a, const std::string& ca,
                               const store::ScanResult& b, const std::string& cb) {
  std::string sa = stored_setting(a, ca), sb = stored_setting(b, cb);
  if (sa.empty() || sb.empty() || sa == sb) return {};
  return {std::move(sa), std::move(sb)};
}

} // namespace kdet::scan
