//===- engine/explain_conclude.cpp - explain's conclusion from its cells -------===//
//
// The rules are the table in docs/EXPLAIN.md; each has a unit test in
// tests/unit/explain_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/explain_experiment.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::engine::explain_detail {

std::string Experiment::untested_clause() const {
  std::vector<std::string> parts;
  if (!m_res.left_out.empty())
    parts.push_back(fmt::format("{} (left out by --factors/--skip)", join(m_res.left_out)));
  for (const auto& u : m_res.untestable)
    parts.push_back(u);
  for (const auto& b : m_broken)
    parts.push_back(fmt::format("{} (its levels break the compiler)", b));
  return join(parts, "; ", "; ");
}

std::string Experiment::untried_clause() const {
  std::vector<std::string> parts;
  if (!m_untried_alone.empty())
    parts.push_back(fmt::format("never varied alone: {}", join(m_untried_alone)));
  if (!m_untried_pairs.empty()) {
    std::vector<std::string> among;
    for (const auto& p : m_untried_pairs)
      for (const auto& n : split(p, '+'))
        if (!contains(among, n)) among.push_back(n);
    parts.push_back(
        m_untried_pairs.size() <= 3
            ? fmt::format("pairs left untried: {}", join(m_untried_pairs))
            : fmt::format("{} pairs left untried, among {}", m_untried_pairs.size(), join(among)));
  }
  if (parts.empty()) return "";
  return fmt::format("the budget of {} ran out: {}",
                     m_opt.budget_runs > 0 ? plural(m_opt.budget_runs, "run")
                                           : fmt::format("{:g} s", m_opt.budget_seconds),
                     join(parts, "; ", "; "));
}

// Every rule of docs/EXPLAIN.md, in its order.
void Experiment::conclude() {
  conclude_rules();
  m_res.baseline_bound = m_all.assessment.upper_bound;
  for (const auto& n : m_untried_alone)
    m_res.untried.push_back(n);
  for (const auto& p : m_untried_pairs)
    m_res.untried.push_back("pair " + p);
  // What the budget left untried is part of every conclusion drawn after it ran out.
  if (std::string untried = untried_clause(); !untried.empty()) m_res.conclusion += "; " + untried;
}

void Experiment::conclude_rules() {
  std::string untested = untested_clause();
  std::string regimes = m_res.regimes;
  // R3/R4: no variance with every factor varied.
  if (m_all.result == Verdict::deterministic) {
    if (m_fixed.result == Verdict::nondeterministic) {
      m_res.verdict = Verdict::inconclusive;
      m_res.conclusion =
          "varies with every factor fixed but not with every factor varied: too few runs to tell; "
          "raise --runs";
      m_res.exit_code = k_exit_nondeterministic;
      return;
    }
    m_res.verdict = Verdict::deterministic;
    m_res.conclusion = fmt::format("one output with every factor varied, {}; {}", regimes,
                                   stats::no_variance_seen(m_all.runs, "run"));
    if (!untested.empty()) m_res.conclusion += "; not varied: " + untested;
    m_res.exit_code = 0;
    return;
  }
  m_res.exit_code = k_exit_nondeterministic;
  // R5: varies with everything fixed: name what was not tested before blaming the compiler.
  if (m_fixed.result == Verdict::nondeterministic) {
    m_res.verdict = Verdict::inconclusive;
    m_res.conclusion =
        untested.empty()
            ? "varies even with every factor fixed: the cause is inside the compiler (its own "
              "threads "
              "or timing) or in something kdet does not control"
            : fmt::format("varies even with every tested factor fixed; not tested: {}; test those "
                          "before blaming the compiler (its own threads or timing)",
                          untested);
    return;
  }
  // R6: too few runs to rule out the baseline rate.
  if (!supported(m_fixed)) {
    m_res.verdict = Verdict::inconclusive;
    m_res.conclusion =
        fmt::format("with every factor fixed no run differed, but {} runs cannot rule out the "
                    "baseline rate of {}; raise --max-cell-runs",
                    m_fixed.runs, percent(m_all.assessment.rate));
    return;
  }
  m_res.necessary = m_single;
  // The smallest set of fixed factors under which a cell showed (supported) determinism. A cell
  // that fixed nothing is no set: the short "all varied" baseline can come out quiet at a low
  // rate that the full baseline then showed ("deterministic when" nothing).
  // Only a measured sufficient set: a cell that varied a pair with the rest fixed says nothing
  // of the rest, and naming them would make causes of factors never tested.
  const Cell* best = nullptr;
  for (const auto& c : m_res.cells) {
    if (!measured_sufficient(c) || (c.varied.empty() && c.name != m_check.name)) continue;
    if (!best || c.fixed.size() < best->fixed.size()) best = &c;
  }
  // Mechanism: several address-moving factors each make it vary.
  std::vector<std::string> movers;
  for (const auto& n : m_single)
    if (factor(n).moves_addresses) movers.push_back(factor(n).noun);
  if (movers.size() >= 2)
    m_res.mechanism = fmt::format("follows memory addresses: {} each move it", join(movers));
  // R7: nothing sufficient was found.
  if (!best) {
    m_res.verdict = Verdict::inconclusive;
    m_res.cause =
        m_check.result == Verdict::nondeterministic ? std::vector<std::string>{} : m_single;
    if (m_check.result == Verdict::nondeterministic) {
      m_res.conclusion = fmt::format(
          "fixing {} is not enough and no pair of the other factors {}explains the rest",
          m_single.empty() ? "any single factor" : join(labels(m_single, true)),
          m_untried_pairs.empty() ? "" : "tried ");
      if (!untested.empty()) m_res.conclusion += "; not tested: " + untested;
    } else {
      m_res.conclusion = fmt::format(
          "no run differed with {} fixed, but {} runs cannot rule out the baseline rate of "
          "{}; raise --max-cell-runs",
          join(labels(m_single, true)), m_check.runs, percent(m_all.assessment.rate));
    }
    if (!m_res.mechanism.empty()) m_res.conclusion += "; it " + m_res.mechanism;
    return;
  }
  m_res.verdict = Verdict::explained;
  m_res.cause = best->fixed;
  const auto& cause = m_res.cause;
  std::string when = join(labels(cause, true));
  std::string evidence =
      fmt::format("(cell '{}': {}, one output)", best->name, plural(best->runs, "run"));
  bool singles_in_cause = std::all_of(m_single.begin(), m_single.end(),
                                      [&](const auto& n) { return contains(cause, n); });
  if (cause.size() == 1 && m_single == cause) {
    // R8: one factor, which alone makes it vary (in the output's words where the factor has them).
    const Factor& f = factor(cause[0]);
    m_res.conclusion =
        f.follows.empty()
            ? fmt::format("varies with {}", f.noun)
            : fmt::format("the {} {}", output_word().empty() ? "output" : output_word(), f.follows);
    m_res.conclusion += fmt::format("; nothing else matters (deterministic when {})", when);
  } else if (m_single.empty() && !m_pairs.empty()) {
    // R9: an interaction: no factor alone varies it, a pair together does.
    m_res.conclusion = fmt::format("varies only when {} vary together; ", join(m_pairs));
    m_res.conclusion += cause.size() == 1
                            ? fmt::format("fixing {} alone is enough {}", cause[0], evidence)
                            : fmt::format("deterministic when {} {}", when, evidence);
  } else {
    // R10/R11: the smallest sufficient set seen, with what the single-factor cells showed.
    m_res.conclusion = fmt::format("deterministic when {}", when);
    if (best->name != m_check.name) m_res.conclusion += " " + evidence;
    if (!singles_in_cause)
      m_res.conclusion += fmt::format("; yet varied alone, {} each made it vary", join(m_single));
    else if (m_check.result == Verdict::nondeterministic && !m_single.empty())
      m_res.conclusion +=
          fmt::format("; fixing {} alone is not enough", join(labels(m_single, true)));
    else if (m_single.size() > 1 && m_single.size() == cause.size())
      m_res.conclusion += cause.size() == 2 ? "; each of the two alone makes it vary"
                                            : "; each of them alone makes it vary";
  }
  if (!m_res.mechanism.empty()) m_res.conclusion += "; it " + m_res.mechanism;
  for (const auto& f : perturb::factor_registry())
    if (contains(cause, f.name) || contains(m_single, f.name)) m_res.conclusion += through(f);
  if (!untested.empty()) m_res.conclusion += "; not tested: " + untested;
}

// A factor that may act through another (FactorInfo::through_factor): where that other was not
// held apart (left out, untestable or broken), it may be the way this one acts.
std::string Experiment::through(const perturb::FactorInfo& f) const {
  const std::string& other = f.through_factor;
  if (other.empty()) return {};
  const bool apart = contains(m_names, other) && !m_broken.count(other);
  const bool applies = contains(m_res.left_out, other) || m_broken.count(other) ||
                       std::any_of(m_res.untestable.begin(), m_res.untestable.end(),
                                   [&](const auto& u) { return u.starts_with(other + " "); });
  if (apart || !applies) return {};
  return "; " + f.through_words;
}

std::string Experiment::output_word() const {
  for (const auto& c : m_res.cells)
    if (!c.output.empty()) return c.output;
  return {};
}

} // namespace kdet::engine::explain_detail
