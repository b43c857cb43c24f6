//===- engine/explain.hpp - which factor makes a compile nondeterministic ----===//
//
// A designed experiment over the perturbation factors of perturb/registry.hpp.
// Each factor has a fixed and a varied level; process's varied level is
// `both`, so every cell that varies it covers both regimes (fresh workers and
// one shared worker). Stages: calibrate (natural levels, measures the compile
// time that sizes the short probes), probe the fixed and varied levels for
// ones that break the compiler, the baseline (everything varied), everything
// fixed, each factor varied alone, the sufficient factors fixed together
// (and each fixed alone), and pairs where single factors do not explain it.
// The conclusion follows from every cell (rules in docs/EXPLAIN.md).
//
// The decision logic takes a CellRunner, so tests can script cell outcomes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/perturb/registry.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace kdet::engine {

// One factor of the experiment: how to hold it fixed, vary it, or leave it at its natural level.
struct Factor {
  std::string name;
  std::string fixed_label;   // "aslr=off"
  std::string varied_label;  // "aslr=on"
  std::string natural_label; // "aslr=on": what a plain compile sees
  std::function<void(perturb::Setting&)> fix;
  std::function<void(perturb::Setting&)> vary;
  std::function<void(perturb::Setting&)>
      leave;        // the natural level (used when a level breaks the compiler)
  std::string noun; // "the heap history"
  // What the output does when this factor alone explains it, after "the cubin": "follows the
  // modification time of /src/a.py" (mtime); empty: "varies with NOUN".
  std::string follows;
  perturb::Regime regime = perturb::Regime::both;
  bool moves_addresses = false;
};

// What one cell runs: `varied` at their varied level, `left` at their natural level, the rest
// fixed.
struct CellPlan {
  std::string name;
  std::vector<std::string> varied;
  std::vector<std::string> left;
  uint64_t runs = 0;
  bool stop_early = true;               // stop at the second outcome
  std::chrono::milliseconds timeout{0}; // 0: the base plan's --timeout
  bool probe = false;                   // a short probe for a broken level
  // Every run runs: a cell otherwise stops after its first two runs when both failed (a level
  // that hangs the compiler costs two time limits, not N).
  bool all_runs = false;
};

struct Cell {
  std::string name;                // "vary aslr only"
  std::vector<std::string> varied; // factor names varied in this cell
  std::vector<std::string> fixed;  // factor names held fixed (the rest were left natural)
  uint64_t runs = 0;
  size_t outcomes = 0;
  Assessment assessment;
  // The cell's verdict; a cell without a run is failed.
  Verdict result = Verdict::no_runs;
  std::string failure;       // for failed cells: how
  double median_seconds = 0; // median wall time of a run
  bool probe = false;
  std::string output; // what the compiler made, for conclusions: "cubin", "PTX" (empty: unknown)
};

// Runs one cell (the real one calls engine::execute; tests script outcomes).
using CellRunner = std::function<Cell(const CellPlan&)>;

struct ExplainOptions {
  RunPlan base;                  // input, backend, options, timeout; setting.seed and env used
  std::vector<std::string> only; // restrict to these factors (empty: all that apply)
  std::vector<std::string> skip;
  uint64_t baseline_runs = 60;
  uint64_t min_cell_runs = 5;
  uint64_t max_cell_runs = 150;
  double probe_factor = 10; // a probe's timeout: this many times the median compile time ...
  std::chrono::milliseconds probe_floor{2000}; // ... but never less than this
  double budget_seconds = 0; // > 0: cut cell runs so the cells fit (estimated from run times)
  // > 0: the runs every cell together may make; cell runs are cut to fit, and stages stop when
  // it is spent. Counted in runs, so a loaded machine draws the same conclusion, only later.
  uint64_t budget_runs = 0;
};

struct ExplainResult {
  std::vector<Cell> cells;
  std::vector<std::string> factors;    // the factors in the design
  std::vector<std::string> left_out;   // applicable factors --factors/--skip left out
  std::vector<std::string> untestable; // factors this machine cannot vary ("time: no libfaketime")
  std::vector<std::string> findings;   // factors that break the compiler or cannot be tested
  std::vector<std::string> cause;      // what to fix: the smallest sufficient set seen
  std::vector<std::string> necessary;  // factors that alone make it vary (every fix must hold them)
  std::string mechanism;  // "follows memory addresses: ..." when several address factors matter
  std::string regimes;    // which regimes the baseline covered
  std::string conclusion; // one sentence
  // What the experiment concluded: deterministic, explained, inconclusive or failed (Verdict).
  Verdict verdict = Verdict::inconclusive;
  double baseline_rate = 0;
  // The "all varied" baseline's 95% upper bound: its word is DETERMINISTIC only where it
  // excludes stats::k_rate_of_interest.
  double baseline_bound = 1;
  std::vector<std::string> untried; // what the budget left untried: "factor", "pair a+b"
  uint64_t cell_runs = 0;           // runs per cell planned from the baseline rate
  std::chrono::milliseconds probe_timeout{0};
  int exit_code = 0;
  backend::Identity identity;
};

// The factors that apply to a backend, with their levels (user --env-vary variables included).
// `left_out` (optional) receives those that apply but --factors/--skip removed; `untestable` those
// this machine cannot vary.
std::vector<Factor> explain_factors(const RunPlan& base, const std::vector<std::string>& only,
                                    const std::vector<std::string>& skip,
                                    std::vector<std::string>* left_out = nullptr,
                                    std::vector<std::string>* untestable = nullptr);

// Runs the experiment through engine::execute. `on_cell` is told about each finished cell
// (progress).
ExplainResult explain(const ExplainOptions& options,
                      const std::function<void(const Cell&)>& on_cell = {});

// The experiment over given factors with a given cell runner (the seam unit tests use);
// `left_out` and `untestable` are named in conclusions as explain_factors gave them.
ExplainResult explain_with(const ExplainOptions& options, const std::vector<Factor>& factors,
                           const CellRunner& run,
                           const std::function<void(const Cell&)>& on_cell = {},
                           const std::vector<std::string>& left_out = {},
                           const std::vector<std::string>& untestable = {});

} // namespace kdet::engine
