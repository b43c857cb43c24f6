//===- scan/defaults.cpp - a scan's jobs meet the factors `kdet run` meets ----===//
#include "kdet/scan/defaults.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_defaults.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::scan {

void vary_unnamed(Manifest& m, const std::vector<Job>& jobs) {
  for (size_t ci = 0; ci < m.compilers.size(); ++ci) {
    CompilerSpec& spec = m.compilers[ci];
    spec.setting = m.setting;
    spec.default_varied.clear();
    spec.findings.clear();
    spec.probe_run_seconds = 0;
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
  if (spec.default_varied.empty()) return "every factor that acts here named in [setting]";
  return fmt::format("every factor not named in [setting] varied: {}",
                     fmt::join(spec.default_varied, ", "));
}

} // namespace kdet::scan
