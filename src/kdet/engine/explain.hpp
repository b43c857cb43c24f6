//===- engine/explain.hpp - which factor makes a compile nondeterministic ----===//
//
// A designed experiment over the perturbation factors. Each factor has a
// fixed level and a varied level. Cells: everything varied (confirms the
// variance and measures its rate), everything fixed, each factor varied
// alone, the sufficient factors fixed together (and each fixed alone), and
// pairs where single factors do not explain it. A cell stops at its second
// outcome; a cell with one outcome carries the 95 % bound its runs give, and
// is only used for a claim when that bound is below the rate being explained.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"

#include <functional>
#include <string>
#include <vector>

namespace kdet::engine {

// One factor of the experiment: how to hold it fixed and how to vary it.
struct Factor {
  std::string name;
  std::string fixed_label;   // "aslr=off"
  std::string varied_label;  // "aslr=on"
  std::function<void(perturb::Setting&)> fix;
  std::function<void(perturb::Setting&)> vary;
  std::function<void(perturb::Setting&)> leave; // neither: the untouched level (used when a factor breaks the compiler)
};

struct Cell {
  std::string name;                 // "vary aslr only"
  std::vector<std::string> varied;  // factor names varied in this cell
  uint64_t runs = 0;
  size_t outcomes = 0;
  Assessment assessment;
  std::string result;               // "varies", "deterministic", "failed"
  std::string failure;              // for failed cells: how
};

struct ExplainOptions {
  RunPlan base;                      // input, backend, options, timeout; setting.seed and env used
  std::vector<std::string> only;     // restrict to these factors (empty: all that apply)
  std::vector<std::string> skip;
  uint64_t baseline_runs = 60;
  uint64_t min_cell_runs = 10;
  uint64_t max_cell_runs = 150;
};

struct ExplainResult {
  std::vector<Cell> cells;
  std::vector<std::string> factors;        // the factors in the design
  std::vector<std::string> findings;       // factors that break the compiler or cannot be tested
  std::vector<std::string> cause;          // factors that must be fixed for determinism
  std::string conclusion;                  // one sentence
  std::string verdict;                     // deterministic | explained | inconclusive | failed
  double baseline_rate = 0;
  uint64_t cell_runs = 0;                  // runs per cell planned from the baseline rate
  int exit_code = 0;
  backend::Identity identity;
};

// The factors that apply to a backend, with their levels (user --env-vary variables included).
std::vector<Factor> explain_factors(const RunPlan& base, const std::vector<std::string>& only,
                                    const std::vector<std::string>& skip);

// Runs the experiment. `on_cell` is told about each finished cell (for progress).
ExplainResult explain(const ExplainOptions& options, const std::function<void(const Cell&)>& on_cell = {});

} // namespace kdet::engine
