//===- engine/run_measure.cpp - `kdet run`'s measurement, start to verdict -===//
#include "kdet/engine/run_measure.hpp"

#include "kdet/engine/run_defaults.hpp"
#include "kdet/util/cpu_time.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::engine {

CpuCost cpu_cost(uint64_t own_cpu_ns, double probe_compile_seconds,
                 const std::vector<RunRecord>& records) {
  CpuCost c;
  c.total_seconds = static_cast<double>(own_cpu_ns) * 1e-9;
  c.compile_seconds = probe_compile_seconds;
  for (const auto& r : records)
    if (r.done) c.compile_seconds += r.compile_cpu_seconds;
  return c;
}

MeasuredRun measure_run(RunPlan& plan, const MeasureOptions& options) {
  // Every factor not given varies, in the regime where it acts (explain's "all
  // varied" cell); levels that break the compiler are found by short probes.
  DefaultLevels defaults;
  if (options.vary_unnamed) defaults = vary_unset_factors(plan, options.given);
  if (options.on_runs_start) options.on_runs_start();
  MeasuredRun m;
  RunOutput& out = m.out;
  out = execute(plan, options.progress);
  out.warnings.insert(out.warnings.begin(), options.option_warnings.begin(),
                      options.option_warnings.end());
  out.warnings.insert(out.warnings.end(), defaults.findings.begin(), defaults.findings.end());
  out.default_varied = defaults.varied;
  out.probe_runs = defaults.probe_runs;
  // The probes loaded the compiler first, so the runs skipped their probe worker: report its cost.
  if (out.worker_start_seconds == 0) out.worker_start_seconds = defaults.worker_start_seconds;
  // kdet's own cost, directly: this process and every worker (reaped by now), less the compiles.
  CpuCost cpu =
      cpu_cost(process_cpu_ns() + children_cpu_ns(), defaults.compile_cpu_seconds, out.records);
  out.cpu_total_seconds = cpu.total_seconds;
  out.cpu_compile_seconds = cpu.compile_seconds;
  annotate_differences(out);
  if (options.reach) m.reaches = variant_reaches(out, *options.reach);
  m.assessment = assess(out);
  return m;
}

RunExit run_exit(const Assessment& a, bool reproduced, const std::string& compiler_changed) {
  // The runs may mix two compilers: what was recorded is kept, but no verdict stands on it.
  if (!compiler_changed.empty())
    return {k_exit_usage, fmt::format("{}; no verdict (run again once the compiler stays put)",
                                      compiler_changed)};
  // The captured output never came back: the same compile gave another output.
  if (!reproduced && a.exit_code == k_exit_deterministic) return {k_exit_nondeterministic, ""};
  return {a.exit_code, ""};
}

} // namespace kdet::engine
