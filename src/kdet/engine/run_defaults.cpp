//===- engine/run_defaults.cpp - what `kdet run` varies when not told ---------===//
#include "kdet/engine/run_defaults.hpp"

#include "kdet/engine/explain.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::engine {

namespace {

// One compile of `plan` under `setting`, alone in a fresh worker or two.
const RunRecord* probe_once(const RunPlan& plan, const perturb::Setting& setting,
                            std::chrono::milliseconds timeout, RunOutput& keep) {
  RunPlan p = plan;
  p.setting = setting;
  p.runs = 1;
  p.first_index = 0;
  p.jobs = 1;
  p.stop_at_outcomes = 0;
  p.on_record = {};
  if (timeout.count() > 0) p.timeout = timeout;
  keep = execute(p);
  for (const auto& r : keep.records)
    if (r.done) return &r;
  return nullptr;
}

bool succeeded(const RunRecord* r) { return r && r->status == backend::Status::ok; }

std::string how_it_failed(const RunRecord* r) {
  if (!r) return "it did not run";
  return r->detail.empty() ? backend::to_string(r->status)
                           : fmt::format("{}: {}", backend::to_string(r->status), r->detail);
}

} // namespace

std::chrono::milliseconds probe_timeout(double plain_seconds, std::chrono::milliseconds plan_timeout,
                                        double factor, std::chrono::milliseconds floor) {
  auto t = std::chrono::milliseconds(static_cast<long long>(plain_seconds * factor * 1000));
  t = std::max(t, floor);
  if (plan_timeout.count() > 0) t = std::min(t, plan_timeout);
  return t;
}

DefaultLevels vary_unset_factors(RunPlan& plan, const std::set<std::string>& given) {
  DefaultLevels d;
  std::vector<Factor> unset;
  for (auto& f : explain_factors(plan, {}, {}, nullptr, nullptr))
    if (!given.count(f.name) && !f.name.starts_with("env:")) unset.push_back(std::move(f));
  if (unset.empty()) return d;

  perturb::Setting natural = plan.setting;
  for (const auto& f : unset)
    f.leave(natural);
  perturb::Setting varied = natural;
  for (const auto& f : unset)
    f.vary(varied);

  // A plain compile (unset factors natural) times the compiler; a level that
  // breaks it must cost one short probe, not --timeout per run.
  std::vector<std::string> broken;
  RunOutput out;
  const RunRecord* plain = probe_once(plan, natural, plan.timeout, out);
  d.probe_runs = 1;
  plan.identity = out.identity; // later probes and the runs skip the probe worker
  if (succeeded(plain)) {
    auto t = probe_timeout(plain->compile_seconds > 0 ? plain->compile_seconds : out.wall_seconds,
                           plan.timeout);
    const RunRecord* all = probe_once(plan, varied, t, out);
    ++d.probe_runs;
    if (!succeeded(all)) {
      for (const auto& f : unset) {
        perturb::Setting one = natural;
        f.vary(one);
        const RunRecord* r = probe_once(plan, one, t, out);
        ++d.probe_runs;
        if (succeeded(r)) continue;
        f.leave(varied);
        broken.push_back(f.name);
        d.findings.push_back(fmt::format(
            "{} breaks this compiler ({}; a plain compile took {:.2f} s): left at {}; kdet explain "
            "reports it as a finding",
            f.varied_label, how_it_failed(r), plain->compile_seconds, f.natural_label));
      }
      if (d.findings.empty()) {
        // Only the combination fails: keep the plain levels rather than guess.
        varied = natural;
        for (const auto& f : unset)
          broken.push_back(f.name);
        d.findings.push_back(fmt::format(
            "the varied levels together break this compiler ({}), none alone does: every factor "
            "not given was left at its natural level",
            how_it_failed(all)));
      }
    }
  }
  // When even the plain compile fails, the runs will show how; vary as designed.
  plan.setting = varied;
  for (const auto& f : unset)
    if (std::find(broken.begin(), broken.end(), f.name) == broken.end())
      d.varied.push_back(f.varied_label);
  return d;
}

} // namespace kdet::engine
