//===- engine/explain.cpp - explain's stages and its conclusion --------------===//
//
// The stages run cells through a CellRunner and record them; `conclude` reads
// every cell. The rules are the table in docs/EXPLAIN.md; each has a unit test
// in tests/unit/explain_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/explain.hpp"

#include "kdet/engine/explain_experiment.hpp"
#include "kdet/engine/explain_internal.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace kdet::engine {

using explain_detail::contains;
using explain_detail::Experiment;
using explain_detail::join;

namespace explain_detail {

Cell Experiment::cell(const std::string& name, const std::vector<std::string>& varied,
                      uint64_t runs, bool stop_early, bool probe, std::vector<std::string> left,
                      bool all_runs) {
  CellPlan p;
  p.all_runs = all_runs;
  p.name = name;
  for (const auto& v : varied)
    if (!m_broken.count(v)) p.varied.push_back(v);
  for (const auto& b : m_broken)
    if (!contains(left, b)) left.push_back(b);
  p.left = left;
  p.runs = runs;
  p.stop_early = stop_early;
  p.probe = probe;
  if (probe) p.timeout = m_res.probe_timeout;
  Cell c = m_run(p);
  c.name = name;
  c.varied = p.varied;
  c.probe = probe;
  if (c.fixed.empty())
    for (const auto& n : m_names)
      if (!contains(p.varied, n) && !contains(p.left, n)) c.fixed.push_back(n);
  m_res.cells.push_back(c);
  if (m_on_cell) m_on_cell(c);
  return c;
}

// Stage 1: the compile as a plain user runs it; its time sizes the probes.
bool Experiment::calibrate() {
  Cell nat = cell("natural levels (calibration)", {}, 2, false, false, m_names);
  if (nat.result == Verdict::failed) {
    // Two failures in two may be chance (a compiler that crashes in half its runs does so a
    // quarter of the time): more runs before the compiler is called broken.
    Cell more = confirm_failure(nat, {}, m_names);
    if (more.result == Verdict::failed) {
      m_res.verdict = Verdict::failed;
      m_res.conclusion = fmt::format(
          "the compiler failed on every run, even at its natural levels ({}): {}",
          plural(nat.runs + (more.name == nat.name ? 0 : more.runs), "run"), nat.failure);
      m_res.exit_code = k_exit_compiler_failed;
      return false;
    }
    nat = more; // confirm_failure said that the compiler fails by itself
  }
  auto t = std::chrono::milliseconds(
      static_cast<long long>(nat.median_seconds * m_opt.probe_factor * 1000));
  t = std::max(t, m_opt.probe_floor);
  if (m_opt.base.timeout.count() > 0) t = std::min(t, m_opt.base.timeout);
  m_res.probe_timeout = t;
  return true;
}

// One more run at natural levels. True (and a finding, once) when it fails: the compiler then
// fails by itself, and no probe's failure is blamed on a level.
bool Experiment::natural_fails() {
  if (m_fails_by_itself) return true;
  Cell c = cell("natural levels (check)", {}, 1, false, true, m_names);
  if (c.result != Verdict::failed) return false;
  m_fails_by_itself = true;
  m_res.findings.push_back(fmt::format(
      "the compiler fails by itself: a run at its natural levels failed ({}) after one that "
      "did not; a failure is its own rate, never blamed on a factor",
      c.failure));
  return true;
}

// Whether a failed probe's failure is the level's: it comes back four times more, each after a
// run at natural levels that succeeds (a compiler that fails half its runs by itself passes
// that with probability 2^-8). A hang is not probed again (each costs the probe's limit;
// compilers that hang at random are rare): one natural run that succeeds is enough.
bool Experiment::probe_fails_again(const std::function<Cell()>& probe, const Cell& first) {
  const bool hang = first.failure.starts_with("timed-out");
  for (int k = 0; k < 4; ++k) {
    if (natural_fails()) return false;
    if (hang) return true;
    if (probe().result != Verdict::failed) return false;
  }
  return true;
}

// A cell whose every run failed, run again with k_confirm_runs runs that all run: a short cell
// stops at its second failure, and a compiler that fails at random fails it whole by chance
// (one that fails half its runs, a quarter of the time; all of 2 + 8 runs, 0.1 %). Returns the
// re-test, whose result is the one to judge, or `c` itself when it did not fail or its failure
// is a hang: each run costs the time limit, and compilers that hang at random are rare. When
// the re-test ran and succeeded in places, a cell that held every factor fixed (`varied`
// empty) shows that the compiler fails by itself, which is said once.
Cell Experiment::confirm_failure(const Cell& c, const std::vector<std::string>& varied,
                                 const std::vector<std::string>& left) {
  if (c.result != Verdict::failed || c.failure.starts_with("timed-out")) return c;
  constexpr uint64_t k_confirm_runs = 8;
  Cell again = cell(fmt::format("{} (re-test, {} more)", c.name, k_confirm_runs), varied,
                    k_confirm_runs, false, false, left, true);
  if (again.result != Verdict::failed && varied.empty() && !m_fails_by_itself) {
    m_fails_by_itself = true;
    m_res.findings.push_back(fmt::format(
        "the compiler fails by itself: every run of '{}' failed ({}), and {} of {} of its "
        "re-test did not; a failure is its own rate, never blamed on a factor",
        c.name, c.failure, again.assessment.ok_runs, again.runs));
  }
  return again;
}

// Stage 2: does holding every factor fixed break the compiler? One short probe, then one per level.
bool Experiment::probe_fixed_levels(Cell& fixed) {
  Cell p = cell("probe: all fixed", {}, 1, true, true);
  // A compiler that fails by itself fails probes by itself: they blame no level.
  if (p.result != Verdict::failed || natural_fails()) return true;
  for (const auto& f : m_factors) {
    if (f.fixed_label == f.natural_label) continue;
    std::vector<std::string> others;
    for (const auto& n : m_names)
      if (n != f.name) others.push_back(n);
    auto probe = [&] {
      return cell(fmt::format("probe: fix {} only", f.name), {}, 1, true, true, others);
    };
    Cell c = probe();
    if (c.result != Verdict::failed) continue;
    if (!probe_fails_again(probe, c)) {
      if (m_fails_by_itself) return true;
      m_res.findings.push_back(
          fmt::format("holding {} at {} failed one probe ({}) and then ran: a fluke, not blamed",
                      f.name, f.fixed_label, c.failure));
      continue;
    }
    m_broken.insert(f.name);
    const double limit_s = static_cast<double>(m_res.probe_timeout.count()) / 1e3;
    m_res.findings.push_back(
        fmt::format("{} cannot be tested with this compiler: holding it at {} made the "
                    "compiler fail ({}) within {} ({}x the median compile time); it is left "
                    "at {} in every cell",
                    f.name, f.fixed_label, c.failure, human_seconds(limit_s), m_opt.probe_factor,
                    f.natural_label));
  }
  fixed = cell("probe: all fixed, broken levels left natural", {}, 1, true, true);
  if (fixed.result == Verdict::failed && !natural_fails()) fixed = confirm_failure(fixed, {});
  if (fixed.result == Verdict::failed && !m_fails_by_itself) {
    m_res.verdict = Verdict::failed;
    m_res.conclusion =
        fmt::format("the compiler failed on every run with every factor fixed ({}), though it "
                    "works at its natural levels, and no single fixed level explains it",
                    fixed.failure);
    m_res.exit_code = k_exit_compiler_failed;
    return false;
  }
  return true;
}

// Stage 3: does varying every factor break it? A short probe, then one per varied level.
bool Experiment::probe_varied_levels() {
  Cell p = cell("probe: all varied", m_names, 1, true, true);
  if (p.result != Verdict::failed || natural_fails()) return true;
  for (const auto& f : m_factors) {
    if (m_broken.count(f.name) || f.varied_label == f.natural_label) continue;
    std::vector<std::string> others;
    for (const auto& n : m_names)
      if (n != f.name) others.push_back(n);
    auto probe = [&] {
      return cell(fmt::format("probe: vary {} only", f.name), {f.name}, 1, true, true, others);
    };
    Cell c = probe();
    if (c.result != Verdict::failed) continue;
    if (!probe_fails_again(probe, c)) {
      if (m_fails_by_itself) return true;
      m_res.findings.push_back(
          fmt::format("varying {} ({}) failed one probe ({}) and then ran: a fluke, not blamed",
                      f.name, f.varied_label, c.failure));
      continue;
    }
    m_broken.insert(f.name);
    m_res.findings.push_back(
        fmt::format("varying {} ({}) made the compiler fail: {}; it is left at {} in every "
                    "cell",
                    f.name, f.varied_label, c.failure, f.natural_label));
  }
  return true;
}

// Stage 5: each factor varied alone, the rest fixed.
void Experiment::single_factors() {
  for (const auto& n : m_names) {
    if (m_broken.count(n)) continue;
    if (over_budget()) {
      m_untried_alone.push_back(n);
      continue;
    }
    Cell c = cell(fmt::format("vary {} only", n), {n}, m_res.cell_runs, true);
    if (c.result == Verdict::nondeterministic) {
      if (comes_back(n, c)) m_single.push_back(n);
    } else if (c.result == Verdict::failed && !m_fails_by_itself) {
      // Every run failing may be chance too: the same cell again before it is said.
      Cell again = confirm_failure(c, {n});
      if (again.result == Verdict::failed)
        m_res.findings.push_back(
            fmt::format("varying {} alone made every run fail: {}", n, c.failure));
      else
        m_res.findings.push_back(fmt::format(
            "a fluke, not a cause: varying {} alone made every run fail once ({}), and not on "
            "re-test",
            n, c.failure));
    }
  }
}

// A factor that alone made it vary is a cause only if the variance comes back: the same cell
// again, with new seeds and enough runs that a rate as high as the first cell showed (a second
// output within its c.runs runs) would show again with 99 % probability ((1 - 1/k)^(4.6k) < 1 %).
// A cell whose variance does not come back is a fluke, reported as such, never a cause.
bool Experiment::comes_back(const std::string& n, const Cell& first) {
  uint64_t runs = std::clamp<uint64_t>((first.runs * 46 + 9) / 10, m_res.cell_runs,
                                       std::max(m_res.cell_runs, m_opt.max_cell_runs));
  Cell again = cell(fmt::format("re-test: vary {} only", n), {n}, runs, true);
  if (again.result == Verdict::nondeterministic) return true;
  if (again.result == Verdict::failed) {
    m_res.findings.push_back(fmt::format(
        "varying {} alone varied it, then every run of its re-test failed: {}", n, again.failure));
    return true;
  }
  m_res.findings.push_back(fmt::format(
      "a fluke, not a cause: varying {} alone gave {} outputs in {} once, and one output in {} "
      "on re-test",
      n, first.outcomes, plural(first.runs, "run"), plural(again.runs, "run")));
  return false;
}

// Stage 6: fix the single factors together; grow the set from pairs of the rest; fix each alone.
void Experiment::sufficient_set() {
  std::vector<std::string> cause = m_single;
  m_check = cell(cause.empty() ? "vary everything (no single factor varied it)"
                               : fmt::format("fix {}; vary the rest", join(cause)),
                 rest_of(cause), m_res.cell_runs, true);
  if (m_check.result == Verdict::nondeterministic) {
    std::vector<std::string> rest = rest_of(cause);
    for (size_t i = 0; i < rest.size(); ++i) {
      for (size_t j = i + 1; j < rest.size(); ++j) {
        if (over_budget()) {
          m_untried_pairs.push_back(rest[i] + "+" + rest[j]);
          continue;
        }
        Cell c = cell(fmt::format("vary {} and {} only", rest[i], rest[j]), {rest[i], rest[j]},
                      m_res.cell_runs, true);
        if (c.result != Verdict::nondeterministic) continue;
        for (const auto& n : {rest[i], rest[j]}) {
          if (!contains(cause, n)) cause.push_back(n);
          if (!contains(m_pairs, n)) m_pairs.push_back(n);
        }
      }
    }
    if (cause.size() > m_single.size())
      m_check = cell(fmt::format("fix {}; vary the rest", join(cause)), rest_of(cause),
                     m_res.cell_runs, true);
  }
  if (!supported(m_check) || cause.size() < 2) return;
  for (const auto& n : cause)
    cell(fmt::format("fix {} only", n), rest_of({n}), m_res.cell_runs, true);
}

void Experiment::run() {
  if (!calibrate()) return;
  m_fixed = Cell{};
  if (!probe_fixed_levels(m_fixed)) return;
  if (!probe_varied_levels()) return;
  m_fixed = cell("all fixed", {}, m_opt.min_cell_runs, true);
  m_fixed = confirm_failure(m_fixed, {});
  if (m_fixed.result == Verdict::failed) {
    m_res.verdict = Verdict::failed;
    m_res.conclusion = fmt::format("the compiler failed on every run with every factor fixed: {}",
                                   m_fixed.failure);
    m_res.exit_code = k_exit_compiler_failed;
    return;
  }
  // A short baseline first: a rate of one half or more is measured well enough by 15 runs, and a
  // slow compiler then saves the rest. Otherwise the full --runs baseline decides.
  uint64_t first = std::min<uint64_t>(m_opt.baseline_runs, 15);
  m_all = cell("all varied", m_names, first, false);
  if (first < m_opt.baseline_runs &&
      !(m_all.result == Verdict::nondeterministic && m_all.assessment.rate >= 0.5))
    m_all = cell("all varied (full baseline)", m_names, m_opt.baseline_runs, false);
  m_all = confirm_failure(m_all, m_names);
  if (m_all.result == Verdict::failed) {
    m_res.verdict = Verdict::inconclusive;
    m_res.conclusion =
        "the compiler fails whenever the factors are varied together, and no single factor "
        "explains the failure";
    m_res.exit_code = k_exit_compiler_failed;
    return;
  }
  m_res.baseline_rate = m_all.assessment.rate;
  if (m_all.result == Verdict::deterministic) {
    conclude();
    return;
  }
  // Cells sized to catch half the baseline rate with 95 % probability.
  double target = std::max(1e-4, m_all.assessment.rate / 2);
  m_res.cell_runs =
      std::clamp<uint64_t>(stats::runs_to_detect(target), m_opt.min_cell_runs, m_opt.max_cell_runs);
  // A run budget: the single-factor cells, the all-fixed rerun and the sufficient-set cells at
  // full length must fit in what is left of --budget-runs; cells get fewer runs (weaker bounds)
  // if not. Runs, not seconds: the same cells on a loaded machine.
  if (m_opt.budget_runs > 0) {
    const uint64_t spent = runs_spent();
    const uint64_t left = m_opt.budget_runs - std::min(m_opt.budget_runs, spent);
    const uint64_t fit = left / (m_names.size() + 3);
    if (std::max<uint64_t>(m_opt.min_cell_runs, fit) < m_res.cell_runs) {
      const uint64_t want = m_res.cell_runs;
      m_res.cell_runs = std::max<uint64_t>(m_opt.min_cell_runs, fit);
      m_res.findings.push_back(
          fmt::format("cells were cut to {} runs to fit the budget of {} runs (--budget-runs; "
                      "{} spent); a rate this low needs {} runs per cell",
                      m_res.cell_runs, m_opt.budget_runs, spent, want));
    }
  }
  // A time budget (--budget, seconds estimated from run times).
  if (m_opt.budget_seconds > 0 && m_all.median_seconds > 0) {
    double spent = 0;
    for (const auto& c : m_res.cells)
      spent += static_cast<double>(c.runs) * c.median_seconds;
    double left = m_opt.budget_seconds - spent;
    double cells = static_cast<double>(m_names.size() + 3);
    auto fit = static_cast<uint64_t>(std::max(0.0, left / (cells * m_all.median_seconds)));
    if (std::max<uint64_t>(m_opt.min_cell_runs, fit) < m_res.cell_runs) {
      m_res.cell_runs = std::max<uint64_t>(m_opt.min_cell_runs, fit);
      m_res.findings.push_back(
          fmt::format("cells were cut to {} runs to fit the {:.0f} s budget (--budget; a run "
                      "takes {}); a rate this low needs {} runs per cell",
                      m_res.cell_runs, m_opt.budget_seconds, human_seconds(m_all.median_seconds),
                      std::clamp<uint64_t>(stats::runs_to_detect(target), m_opt.min_cell_runs,
                                           m_opt.max_cell_runs)));
    }
  }
  if (m_fixed.runs < m_res.cell_runs && m_fixed.result == Verdict::deterministic)
    m_fixed = cell("all fixed (more runs)", {}, m_res.cell_runs, true);
  if (m_fixed.result == Verdict::deterministic && supported(m_fixed)) {
    single_factors();
    sufficient_set();
  }
  conclude();
}

// The regimes the experiment covers: runs inside one process come from varying the factors
// that decide the regime (perturb::regime_factors), where they are tested.
std::string regime_words(const std::vector<std::string>& tested, bool exec) {
  if (exec) return "across processes (the compiler is a new process every run)";
  std::vector<std::string> on, off;
  for (const perturb::FactorInfo* f : perturb::regime_factors()) {
    if (contains(tested, f->name))
      on.push_back(f->name + "=" + f->varied);
    else
      off.push_back(f->name);
  }
  if (!on.empty()) return fmt::format("across processes and inside one process ({})", join(on));
  return fmt::format("across processes only ({} {} not varied)", join(off),
                     off.size() == 1 ? "is" : "are");
}

} // namespace explain_detail

ExplainResult explain_with(const ExplainOptions& opt, const std::vector<Factor>& factors,
                           const CellRunner& run, const std::function<void(const Cell&)>& on_cell,
                           const std::vector<std::string>& left_out,
                           const std::vector<std::string>& untestable) {
  ExplainResult res;
  if (factors.empty()) throw Error("--factors/--skip left no factor to test");
  for (const auto& f : factors)
    res.factors.push_back(f.name);
  res.left_out = left_out;
  res.untestable = untestable;
  res.regimes =
      explain_detail::regime_words(res.factors, opt.base.backend.kind == backend::Kind::exec);
  Experiment(opt, factors, run, on_cell, res).run();
  return res;
}

ExplainResult explain(const ExplainOptions& opt, const std::function<void(const Cell&)>& on_cell) {
  std::vector<std::string> left_out, untestable;
  std::vector<Factor> factors =
      explain_factors(opt.base, opt.only, opt.skip, &left_out, &untestable);
  // Factors left out of the design stay at their natural level, as a plain compile sees them.
  ExplainOptions o = opt;
  for (const auto& info : perturb::factor_registry())
    if (!info.natural.empty()) info.set(o.base.setting, info.natural, "explain");
  backend::Identity identity;
  CellRunner runner = execute_runner(o, factors, identity);
  ExplainResult r = explain_with(o, factors, runner, on_cell, left_out, untestable);
  r.identity = identity;
  return r;
}

} // namespace kdet::engine
