//===- engine/run_defaults.cpp - what `kdet run` varies when not told ---------===//
#include "kdet/engine/run_defaults.hpp"

#include "kdet/engine/explain.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

namespace kdet::engine {

namespace {

// One compile of `plan` under `setting`, alone in a fresh worker or two.
const RunRecord* probe_once(const ProbeRunner& run, const RunPlan& plan,
                            const perturb::Setting& setting, std::chrono::milliseconds timeout,
                            RunOutput& keep, double& compile_cpu_seconds) {
  RunPlan p = plan;
  p.setting = setting;
  p.runs = 1;
  p.first_index = 0;
  p.jobs = 1;
  p.stop.outcomes = 0;
  p.on_record = {};
  if (timeout.count() > 0) p.timeout = timeout;
  keep = run(p);
  for (const auto& r : keep.records)
    if (r.done) {
      compile_cpu_seconds += r.compile_cpu_seconds;
      return &r;
    }
  return nullptr;
}

std::string how_it_failed(const RunRecord* r) {
  if (!r) return "it did not run";
  return r->detail.empty() ? backend::to_string(r->status)
                           : fmt::format("{}: {}", backend::to_string(r->status), r->detail);
}

// Two settings with the same levels (perturb::describe spells every one).
bool same_levels(perturb::Setting a, perturb::Setting b) {
  a.seed = b.seed = 0;
  return perturb::describe(a) == perturb::describe(b);
}

// "time=fixed": the level `f` has in `s` (its fixed or varied label), else its name.
std::string named_label(const Factor& f, const perturb::Setting& s) {
  perturb::Setting t = s;
  f.fix(t);
  if (same_levels(t, s)) return f.fixed_label;
  t = s;
  f.vary(t);
  if (same_levels(t, s)) return f.varied_label;
  return f.name;
}

// The plain compile failed `failures` of `runs` times, then compiled: no level is to blame.
std::string plain_failed_finding(int failures, int runs, backend::Status failed_as) {
  if (is_kdet_error(failed_as))
    return fmt::format(
        "the plain compile (every factor at its natural level) failed {} of {} times with an "
        "error of kdet's own ({}), not the compiler's: no level is blamed, and the runs do not "
        "count such errors as outcomes",
        failures, runs, backend::to_string(failed_as));
  return fmt::format(
      "the plain compile (every factor at its natural level) failed {} of {} times ({}): the "
      "compiler's own failure rate, not a factor's doing; no level is blamed for a failure, and "
      "the runs count the failures as outcomes",
      failures, runs, backend::to_string(failed_as));
}

// `f`'s varied level failed its probes as `how`: left natural. A failure that is kdet's own (a
// worker that could not start under the level, for a limit on processes or open files) is the
// machine's doing, not the compiler's.
std::string blame_finding(const Factor& f, bool kdet_error, const std::string& how,
                          backend::Status plain_status, double plain_seconds) {
  if (kdet_error)
    return fmt::format("kdet could not apply {} on this machine ({}, where a plain compile gave {} "
                       "in {:.2f} s): an error of kdet's own, not the compiler's; left at {}",
                       f.varied_label, how, backend::to_string(plain_status), plain_seconds,
                       f.natural_label);
  return fmt::format("{} breaks this compiler ({}, where a plain compile gave {} in {:.2f} s): "
                     "left at {}; kdet explain reports it as a finding",
                     f.varied_label, how, backend::to_string(plain_status), plain_seconds,
                     f.natural_label);
}

} // namespace

bool named_levels_break(RunPlan& plan, const perturb::Setting& with_named,
                        const std::vector<Factor>& named, const ProbeRunner& run, RunOutput& out,
                        DefaultLevels& d) {
  perturb::Setting all_natural = with_named;
  for (const auto& f : named)
    f.leave(all_natural);
  const RunRecord* base =
      probe_once(run, plan, all_natural, plan.timeout, out, d.compile_cpu_seconds);
  ++d.probe_runs;
  d.worker_start_seconds = out.worker_start_seconds;
  plan.known.identity = out.identity;
  plan.known.file = out.compiler_file;
  if (!base || out.interrupted || interrupted() || base->status == backend::Status::timed_out)
    return false; // nothing to compare with: the plain compile below times out as before
  const backend::Status base_status = base->status;
  const double base_seconds = base->compile_seconds > 0 ? base->compile_seconds : base->seconds;
  const auto limit = probe_timeout(base_seconds, plan.timeout);
  const RunRecord* r = probe_once(run, plan, with_named, limit, out, d.compile_cpu_seconds);
  ++d.probe_runs;
  if (!r || out.interrupted || interrupted() || r->status == base_status ||
      is_kdet_error(r->status))
    return false;
  std::vector<std::string> labels;
  labels.reserve(named.size());
  for (const auto& f : named)
    labels.push_back(named_label(f, with_named));
  // The runs keep what was named (the user asked for it), but each costs the probe's limit,
  // not --timeout, and two failures with no success end them.
  plan.timeout = limit;
  plan.stop.after_failures = 2;
  d.run_limit = limit;
  d.findings.push_back(fmt::format(
      "the levels named ({}) break this compiler ({}, where every factor at its natural level "
      "gave {} in {:.2f} s): the runs keep them, each limited to {} and ending after 2 such "
      "failures; the factors not named are left natural",
      fmt::join(labels, ", "), how_it_failed(r), backend::to_string(base_status), base_seconds,
      human_seconds(static_cast<double>(limit.count()) / 1e3)));
  plan.setting = with_named;
  return true;
}

std::chrono::milliseconds probe_timeout(double plain_seconds,
                                        std::chrono::milliseconds plan_timeout, double factor,
                                        std::chrono::milliseconds floor) {
  auto t = std::chrono::milliseconds(static_cast<long long>(plain_seconds * factor * 1000));
  t = std::max(t, floor);
  if (plan_timeout.count() > 0) t = std::min(t, plan_timeout);
  return t;
}

DefaultLevels vary_unset_factors(RunPlan& plan, const std::set<std::string>& given) {
  return vary_unset_factors_with(plan, given, explain_factors(plan, {}, {}, nullptr, nullptr),
                                 [](const RunPlan& p) { return execute(p); });
}

DefaultLevels vary_unset_factors_with(RunPlan& plan, const std::set<std::string>& given,
                                      std::vector<Factor> factors, const ProbeRunner& run) {
  DefaultLevels d;
  std::vector<Factor> unset, named;
  for (auto& f : factors) {
    if (f.name.starts_with("env:")) continue;
    if (!given.count(f.name)) {
      unset.push_back(std::move(f));
    } else if (perturb::Setting left = plan.setting;
               f.leave(left), !same_levels(left, plan.setting)) {
      named.push_back(std::move(f)); // named at a level other than its natural one
    }
  }
  if (unset.empty() && named.empty()) return d;

  perturb::Setting natural = plan.setting;
  for (const auto& f : unset)
    f.leave(natural);
  perturb::Setting varied = natural;
  for (const auto& f : unset)
    f.vary(varied);
  RunOutput out;
  // Levels named at other than their natural level are probed first, against a compile with
  // every factor natural that times the compiler: a named level that hangs it (libfaketime and
  // nvcc) must cost one short probe, not --timeout per run.
  if (!named.empty() && named_levels_break(plan, natural, named, run, out, d)) return d;
  if (unset.empty()) return d;

  // A plain compile (unset factors natural) times the compiler and gives the outcome kind the
  // varied levels must not change; a level that breaks the compiler must cost one short probe,
  // not --timeout per run. "Breaks" means a different kind of outcome than the plain compile's:
  // an input that does not compile gives compile errors either way, but a worker that cannot
  // start under a level, or a hang, is the level's doing.
  std::vector<std::string> broken;
  // plain(): one more plain compile; its status, or nullopt when it did not run.
  auto plain = [&]() -> std::optional<backend::Status> {
    const RunRecord* r = probe_once(run, plan, natural, plan.timeout, out, d.compile_cpu_seconds);
    ++d.probe_runs;
    return r ? std::optional(r->status) : std::nullopt;
  };
  const RunRecord* first = probe_once(run, plan, natural, plan.timeout, out, d.compile_cpu_seconds);
  ++d.probe_runs;
  if (d.worker_start_seconds == 0) d.worker_start_seconds = out.worker_start_seconds;
  plan.known.identity = out.identity;  // later probes and the runs skip the probe worker
  plan.known.file = out.compiler_file; // and compare the compiler file with this first one
  const bool ran = first && !(out.interrupted || interrupted());
  if (ran && first->status == backend::Status::timed_out) {
    // A plain compile that hangs leaves nothing to probe: every probe like it would cost the
    // time limit, and a level cannot be told to hang it. The runs vary as designed.
    d.findings.push_back(fmt::format(
        "the plain compile ({}) gave no result in {:.1f} s: no level is probed, since each probe "
        "would cost the time limit",
        named.empty() ? "every factor at its natural level"
                      : "the levels named, every other factor at its natural level",
        first->compile_seconds > 0 ? first->compile_seconds : first->seconds));
  } else if (ran) {
    // `first` points into `out`, which the next probe replaces: keep what is needed now.
    backend::Status plain_status = first->status;
    const double plain_seconds =
        first->compile_seconds > 0 ? first->compile_seconds : first->seconds;
    d.run_seconds = first->seconds;
    first = nullptr;
    // A plain compile that fails is tried twice more: when one of them succeeds, the failure is
    // the compiler's own rate at natural levels, and no level may be blamed for a failure.
    int plain_runs = 1, plain_failures = plain_status == backend::Status::ok ? 0 : 1;
    backend::Status failed_as = plain_status;
    while (plain_status != backend::Status::ok && plain_runs < 3) {
      auto again = plain();
      if (out.interrupted || interrupted()) return d;
      ++plain_runs;
      if (again && *again == backend::Status::ok) {
        plain_status = backend::Status::ok;
      } else {
        ++plain_failures;
      }
    }
    bool by_chance = plain_failures > 0 && plain_status == backend::Status::ok;
    auto chance_finding = [&] {
      d.findings.push_back(plain_failed_finding(plain_failures, plain_runs, failed_as));
    };
    if (by_chance) chance_finding();
    auto like_plain = [&](const RunRecord* r) { return r && r->status == plain_status; };
    auto t = probe_timeout(plain_seconds, plan.timeout);
    const RunRecord* all = probe_once(run, plan, varied, t, out, d.compile_cpu_seconds);
    ++d.probe_runs;
    if (out.interrupted || interrupted()) return d;
    if (like_plain(all)) d.run_seconds = all->seconds;
    if (!by_chance && !like_plain(all)) {
      const std::string all_failed = how_it_failed(all);
      const bool all_kdet_error = all && is_kdet_error(all->status); // `all` goes with `out`
      for (const auto& f : unset) {
        perturb::Setting one = natural;
        f.vary(one);
        const RunRecord* r = probe_once(run, plan, one, t, out, d.compile_cpu_seconds);
        ++d.probe_runs;
        // Stopped by SIGINT or SIGTERM: the probes not run say nothing about their levels.
        if (out.interrupted || interrupted()) return d;
        if (like_plain(r)) continue;
        const std::string how = how_it_failed(r);
        const bool kdet_error = r && is_kdet_error(r->status); // `r` goes with `out`
        // Before a level is blamed, its failure must come back twice more, with a plain compile
        // that gives the plain outcome before each. A plain compile that gives another outcome
        // means the compiler's outcome is its own chance, and then no level is blamed at all.
        // A compiler that fails every plain compile the same way (a crash on this input) still
        // lets a level be blamed that fails it otherwise: a worker that cannot start, a hang.
        // A hang is not probed again (each costs the probe's time limit; a compiler that hangs
        // at random is rare): one plain compile like the first is enough.
        const bool hang = r && r->status == backend::Status::timed_out;
        bool comes_back = true;
        for (int k = 0; k < 2 && comes_back && !by_chance; ++k) {
          auto check = plain();
          if (out.interrupted || interrupted()) return d;
          ++plain_runs;
          if (!check || *check != plain_status) {
            if (!check || *check != backend::Status::ok) {
              ++plain_failures;
              failed_as = check.value_or(backend::Status::infra_error);
            }
            by_chance = true;
            break;
          }
          if (hang) break;
          const RunRecord* again = probe_once(run, plan, one, t, out, d.compile_cpu_seconds);
          ++d.probe_runs;
          if (out.interrupted || interrupted()) return d;
          if (like_plain(again)) comes_back = false;
        }
        if (by_chance) {
          // Undo what was blamed so far: the failures were the compiler's own.
          chance_finding();
          broken.clear();
          std::erase_if(d.findings, [](const std::string& x) {
            return x.find("breaks this compiler") != std::string::npos ||
                   x.find("kdet could not apply") != std::string::npos;
          });
          varied = natural;
          for (const auto& g : unset)
            g.vary(varied);
          break;
        }
        if (!comes_back) {
          d.findings.push_back(fmt::format(
              "{} failed one probe ({}) and then ran like a plain compile: a fluke, not blamed",
              f.varied_label, how));
          continue;
        }
        f.leave(varied);
        broken.push_back(f.name);
        d.findings.push_back(blame_finding(f, kdet_error, how, plain_status, plain_seconds));
      }
      if (!by_chance && broken.empty() &&
          std::none_of(d.findings.begin(), d.findings.end(), [](const std::string& x) {
            return x.find("a fluke, not blamed") != std::string::npos;
          })) {
        // Only the combination fails: keep the plain levels rather than guess.
        varied = natural;
        for (const auto& f : unset)
          broken.push_back(f.name);
        if (all_kdet_error)
          d.findings.push_back(fmt::format(
              "kdet could not apply the varied levels together on this machine ({}), though it "
              "could each alone: an error of kdet's own, not the compiler's; every factor not "
              "given was left at its natural level",
              all_failed));
        else
          d.findings.push_back(fmt::format(
              "the varied levels together break this compiler ({}), none alone does: every "
              "factor not given was left at its natural level",
              all_failed));
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
