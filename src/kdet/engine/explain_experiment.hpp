//===- engine/explain_experiment.hpp - one explain experiment's state and stages ===//
//
// Internal to engine/explain*.cpp: explain.cpp runs the stages, explain_conclude.cpp reads the
// cells into the conclusion.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/explain.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace kdet::engine::explain_detail {

inline std::string join(const std::vector<std::string>& v, const std::string& sep = ", ",
                        const std::string& last_sep = " and ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += (i + 1 == v.size()) ? last_sep : sep;
    out += v[i];
  }
  return out;
}

inline bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The state of one experiment: its factors, the runner and what the cells showed.
class Experiment {
public:
  Experiment(const ExplainOptions& opt, const std::vector<Factor>& factors, const CellRunner& run,
             const std::function<void(const Cell&)>& on_cell, ExplainResult& res)
      : m_opt(opt), m_factors(factors), m_run(run), m_on_cell(on_cell), m_res(res) {
    for (const auto& f : factors)
      m_names.push_back(f.name);
  }

  void run();

private:
  Cell cell(const std::string& name, const std::vector<std::string>& varied, uint64_t runs,
            bool stop_early, bool probe = false, std::vector<std::string> left = {},
            bool all_runs = false);
  bool calibrate();
  bool probe_fixed_levels(Cell& fixed);
  bool probe_varied_levels();
  void single_factors();
  bool comes_back(const std::string& n, const Cell& first);
  bool natural_fails();
  bool probe_fails_again(const std::function<Cell()>& probe, const Cell& first);
  Cell confirm_failure(const Cell& c, const std::vector<std::string>& varied,
                       const std::vector<std::string>& left = {});
  void sufficient_set();
  void conclude();
  void conclude_rules(); // the rules of docs/EXPLAIN.md; conclude() adds what was left untried
  // Runs every cell so far made (probes included).
  uint64_t runs_spent() const {
    uint64_t n = 0;
    for (const auto& c : m_res.cells)
      n += c.runs;
    return n;
  }
  // True when the cells so far used up the budget: --budget-runs counts runs, so a loaded
  // machine stops at the same cell, only later; --budget (seconds) estimates runs x median
  // run time, which load changes.
  bool over_budget() const {
    if (m_opt.budget_runs > 0 && runs_spent() >= m_opt.budget_runs) return true;
    if (m_opt.budget_seconds <= 0) return false;
    double spent = 0;
    for (const auto& c : m_res.cells)
      spent += static_cast<double>(c.runs) * c.median_seconds;
    return spent > m_opt.budget_seconds;
  }
  // A cell whose every factor not held fixed was varied, whose fixed factors each showed, alone
  // or in a pair, that they make it vary: a measured sufficient set. Other deterministic cells
  // (a pair varied with the rest fixed) hold fixed factors that were never tested.
  bool measured_sufficient(const Cell& c) const {
    if (c.probe || c.fixed.empty() || !supported(c)) return false;
    for (const auto& n : c.fixed)
      if (!contains(m_single, n) && !contains(m_pairs, n)) return false;
    return c.varied == rest_of(c.fixed);
  }
  bool supported(const Cell& c) const {
    return c.result == Verdict::deterministic && c.assessment.upper_bound < m_all.assessment.rate;
  }
  const Factor& factor(const std::string& n) const {
    for (const auto& f : m_factors)
      if (f.name == n) return f;
    throw Error::format("explain: no factor '{}'", n);
  }
  std::vector<std::string> labels(const std::vector<std::string>& set, bool fixed) const {
    std::vector<std::string> l;
    l.reserve(set.size());
    for (const auto& n : set)
      l.push_back(fixed ? factor(n).fixed_label : factor(n).varied_label);
    return l;
  }
  std::vector<std::string> rest_of(const std::vector<std::string>& fixed_set) const {
    std::vector<std::string> r;
    for (const auto& n : m_names)
      if (!m_broken.count(n) && !contains(fixed_set, n)) r.push_back(n);
    return r;
  }
  std::vector<std::string> broken_list() const { return {m_broken.begin(), m_broken.end()}; }
  // What was not tested: left out by --factors/--skip, not available here, broken levels.
  std::string untested_clause() const;
  // What the budget left untried ("" when nothing): factors never varied alone, pairs.
  std::string untried_clause() const;
  std::string through(const perturb::FactorInfo& f) const; // "; time may act through ..."
  std::string output_word() const; // "cubin" from the first cell that knew; empty: unknown

  const ExplainOptions& m_opt;
  const std::vector<Factor>& m_factors;
  const CellRunner& m_run;
  const std::function<void(const Cell&)>& m_on_cell;
  ExplainResult& m_res;
  std::vector<std::string> m_names;
  std::set<std::string> m_broken; // levels that break the compiler: left natural in every cell
  Cell m_fixed, m_all, m_check;
  std::vector<std::string> m_single;        // factors that alone make it vary
  std::vector<std::string> m_pairs;         // factors found through pairs
  bool m_fails_by_itself = false;           // some natural-level runs failed, and some did not
  std::vector<std::string> m_untried_alone; // factors the budget left without a cell of their own
  std::vector<std::string> m_untried_pairs; // "a+b": pairs the budget left untried
};

} // namespace kdet::engine::explain_detail
