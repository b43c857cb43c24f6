//===- reduce/oracle.hpp - is a candidate still varying? ----------------------===//
//
// The property is random ("shows two outcomes in some runs"), so a test runs
// enough compiles to see the current rate p with 95 % probability:
// n = 1 + ceil(ln 0.05 / ln(1 - p)), capped, stopping at the second outcome.
// Only successful compiles are variants; a candidate whose variance is of
// another kind than the original's (a crash, a failure, a timeout among the
// outcomes) is rejected unless any_variance is set; a candidate that passed is confirmed
// by k_confirm_runs more runs, since stopping early cannot see what had not happened yet.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/executor.hpp"
#include "kdet/engine/runner.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdet::reduce {

// Most runs one test may take (a rate below ~1 % would need more; such inputs reduce slowly).
constexpr uint64_t k_max_test_runs = 300;
// Runs confirming a candidate that passed (without --any-variance): a kind of variance that
// shows in a fraction f of runs is missed with probability (1 - f)^16 (1.5e-5 at f = 0.5).
constexpr uint64_t k_confirm_runs = 16;
// Runs, all of them, before an input whose first runs all failed is called broken (as explain
// re-tests a cell that failed whole): a compiler that fails half its runs fails all of 2 + 8
// with probability 0.1 %.
constexpr uint64_t k_confirm_failure_runs = 8;

struct Measure {
  uint64_t runs = 0;      // completed runs
  uint64_t differing = 0; // runs whose outcome differs from the most common one
  size_t ok_variants = 0; // distinct successful outputs
  size_t failed_runs = 0; // compile errors, crashes, timeouts, ...
  std::string kind;       // the statuses among the outcomes, e.g. "ok" or "ok+crashed"
  std::string failure;    // how the most common failure failed (its detail, the log's first line)
  bool interrupted = false;
  double rate() const {
    return runs ? static_cast<double>(differing) / static_cast<double>(runs) : 0;
  }
};

// Why a candidate was not interesting.
enum class Rejection {
  none,            // it was interesting
  invalid,         // no successful compile, each a compile error: the compiler refused the text
  failed,          // no successful compile, and the compiler crashed, hung or gave no output
  stopped_varying, // one successful output only
  changed_kind,    // a status the original did not show (e.g. a crash where outputs differed)
  interrupted,     // the test was cut short
};
const char* to_string(Rejection r);

// Rejected candidates counted by kind; Rejection::none is never counted, so kind r has slot
// rejection_slot(r).
inline constexpr size_t k_rejection_kinds = static_cast<size_t>(Rejection::interrupted);
using RejectionCounts = std::array<uint64_t, k_rejection_kinds>;
constexpr size_t rejection_slot(Rejection r) {
  return static_cast<size_t>(r) - 1;
}

// Summarises one execute()'s outcomes.
Measure measure_of(const engine::RunOutput& out);

// Runs a test needs to see rate p with 95 % probability (at least 2, at most k_max_test_runs).
uint64_t runs_for_rate(double p);

// The rate that sizes the tests after `m` measured a new best (m.runs > 0), `previous` the rate
// before: m's own where it saw a second outcome; else at most `previous`, since a few quiet runs
// cannot tell 1 in 16 from 1 in 100, and their floor 1 / runs would size the next tests for the
// commoner rate.
double rate_after(const Measure& m, double previous);

// One candidate's test: whether it still varies as the original did, why not, the measure of
// its first runs and of its confirming runs (none without them: --any-variance, or rejected
// before).
struct TestResult {
  bool interesting = false;
  Rejection why = Rejection::none;
  Measure first;
  std::optional<Measure> confirmed;
};

// The verbose log's account of a test: its outcome and the evidence, e.g. "stopped varying: one
// output in 9 runs", "invalid: a compile error in each of 2 runs (...)", "accepted: 2 outputs in
// 3 runs, confirmed by 16".
std::string describe(const TestResult& t);

// The planner of reduce's tests: each test is one engine call (a RunSession) of the candidate,
// and the candidates tested at once share one executor, in one loop, with no thread of kdet's.
class Oracle {
public:
  // `base` holds the compiler, options and setting; its input_path is replaced per candidate.
  // Its processes run on `executor` when given (tests give a scripted one; it must outlive the
  // oracle), else on a ProcessExecutor of the oracle's own.
  Oracle(engine::RunPlan base, std::string work_dir, std::string extension, bool any_variance,
         engine::Executor* executor = nullptr);

  // Runs `runs` compiles of `text` (all of them, or until the second outcome when `early`).
  Measure run(const std::string& text, uint64_t runs, bool early,
              engine::RunOutput* keep = nullptr);
  // Runs all `runs` compiles of `text`, failures or not: the rate of a compiler that fails at
  // random (run stops at two failures before any success, as a broken input should cost two).
  Measure measure_all(const std::string& text, uint64_t runs);
  // Tests the candidates at once: for each, in order, whether it still varies as the original
  // did. `min_runs` raises each test's runs (a first test, whose "no" would end an external
  // reducer).
  std::vector<TestResult> interesting_all(const std::vector<std::string>& texts,
                                          uint64_t min_runs = 0);
  // interesting_all of one candidate.
  TestResult interesting(const std::string& text, uint64_t min_runs = 0);
  // Sets the kind to match and the rate that sizes each test.
  void set_reference(const std::string& kind, double rate);
  uint64_t tests() const { return m_tests; }
  uint64_t compiles() const { return m_compiles; }
  uint64_t runs_per_test() const { return runs_for_rate(m_rate); }
  double rate() const { return m_rate; }

private:
  // Runs each text as its own call, all at once; their outputs in order.
  std::vector<engine::RunOutput> execute(const std::vector<std::string>& texts, uint64_t runs,
                                         bool early, bool stop_at_failures = true);
  bool same_kind(const Measure& m) const;

  engine::RunPlan m_base;
  std::string m_dir;
  std::string m_ext;
  bool m_any = false;
  std::unique_ptr<engine::Executor> m_own_executor;
  engine::Executor& m_ex;
  std::string m_kind;
  double m_rate = 0.5;
  std::optional<backend::Identity> m_identity;
  uint64_t m_tests = 0;
  uint64_t m_compiles = 0;
  uint64_t m_serial = 0;
};

} // namespace kdet::reduce
