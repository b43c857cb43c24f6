// explain's decision rules (docs/EXPLAIN.md), one test per row, with scripted
// cell outcomes: a model says which cells vary or fail; no process is started.
#include "kdet/engine/explain.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace kdet;
using namespace kdet::engine;

namespace {

using Names = std::set<std::string>;

// A scripted compiler: given the varied, left-natural and fixed factors of a cell.
struct Model {
  std::function<bool(const Names& varied, const Names& fixed)> varies =
      [](const Names&, const Names&) { return false; };
  std::function<bool(const Names& varied, const Names& left, const Names& fixed)> fails =
      [](const Names&, const Names&, const Names&) { return false; };
  double rate = 0.5;           // the differing fraction of a varying cell
  Names quiet;                 // cells (by name) that come out deterministic whatever they vary
  double median_seconds = 0.4; // a run's time
};

std::vector<Factor> factors() {
  std::vector<Factor> out;
  for (const char* n : {"process", "heap", "aslr", "threads", "cwd", "tmpdir", "time", "pid"}) {
    Factor f;
    f.name = n;
    std::string name = n;
    f.fixed_label = name + (name == "aslr"      ? "=off"
                            : name == "process" ? "=fresh"
                            : name == "heap"    ? "=none"
                            : name == "threads" ? "=0"
                                                : "=fixed");
    f.varied_label = name + "=vary";
    f.natural_label = name == "time" ? "time=real" : name == "aslr" ? "aslr=on" : f.fixed_label;
    f.fix = f.vary = f.leave = [](perturb::Setting&) {};
    f.noun = name == "aslr"      ? "ASLR"
             : name == "heap"    ? "the heap layout"
             : name == "process" ? "compile history"
             : name == "threads" ? "allocating threads"
                                 : "the " + name;
    f.moves_addresses = name == "aslr" || name == "heap" || name == "process" || name == "threads";
    out.push_back(f);
  }
  return out;
}

struct Run {
  ExplainResult result;
  std::vector<CellPlan> plans;
};

Run run(const Model& m, ExplainOptions opt = {}, std::vector<std::string> left_out = {}) {
  auto fs = factors();
  Run r;
  CellRunner runner = [&](const CellPlan& p) {
    r.plans.push_back(p);
    Names varied(p.varied.begin(), p.varied.end()), left(p.left.begin(), p.left.end()), fixed;
    for (const auto& f : fs)
      if (!varied.count(f.name) && !left.count(f.name)) fixed.insert(f.name);
    Cell c;
    c.median_seconds = m.median_seconds;
    if (m.fails(varied, left, fixed)) {
      c.result = Verdict::failed;
      c.failure = "timed-out";
      c.runs = std::min<uint64_t>(2, p.runs);
      c.assessment.verdict = Verdict::failed;
    } else if (m.varies(varied, fixed) && p.runs > 1 && !m.quiet.count(p.name)) {
      c.result = Verdict::nondeterministic;
      c.runs = p.stop_early ? 2 : p.runs;
      c.outcomes = 2;
      c.assessment.verdict = Verdict::nondeterministic;
      c.assessment.rate = p.stop_early ? 0.5 : m.rate;
    } else {
      c.result = Verdict::deterministic;
      c.runs = p.runs;
      c.outcomes = 1;
      c.assessment.verdict = Verdict::deterministic;
      c.assessment.upper_bound = 1 - std::pow(0.05, 1.0 / static_cast<double>(p.runs));
    }
    return c;
  };
  r.result = explain_with(opt, fs, runner, {}, left_out);
  return r;
}

bool any(const Names& s, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s.count(n) > 0; });
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

// R1: the compiler fails even at its natural levels.
TEST(Explain, R1FailsAtNaturalLevels) {
  Model m;
  m.fails = [](const Names&, const Names&, const Names&) { return true; };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(has(r.conclusion, "natural levels")) << r.conclusion;
}

// R2: a fixed level that hangs the compiler costs short probes, then is left natural with a
// finding.
TEST(Explain, R2BrokenFixedLevelIsProbedAndLeftNatural) {
  Model m;
  m.fails = [](const Names&, const Names&, const Names& fixed) { return fixed.count("time") > 0; };
  m.varies = [](const Names& v, const Names&) { return v.count("aslr") > 0; };
  auto r = run(m);
  ASSERT_EQ(r.result.verdict, Verdict::explained) << r.result.conclusion;
  EXPECT_EQ(r.result.cause, std::vector<std::string>{"aslr"});
  ASSERT_FALSE(r.result.findings.empty());
  EXPECT_TRUE(has(r.result.findings[0], "time cannot be tested")) << r.result.findings[0];
  EXPECT_EQ(r.result.probe_timeout.count(), 4000); // 10 x the 0.4 s median
  for (const auto& p : r.plans) {
    if (p.probe)
      EXPECT_EQ(p.timeout.count(), 4000) << p.name;
    else
      EXPECT_TRUE(std::count(p.left.begin(), p.left.end(), "time") == 1 ||
                  p.name.rfind("natural", 0) == 0)
          << p.name;
  }
  EXPECT_TRUE(has(r.result.conclusion, "not tested: time (its levels break the compiler)"))
      << r.result.conclusion;
}

// The probe timeout has a floor.
TEST(Explain, ProbeTimeoutHasAFloor) {
  Model m;
  m.median_seconds = 0.01;
  EXPECT_EQ(run(m).result.probe_timeout.count(), 2000);
}

// R3: no variance with every factor varied, in both regimes: deterministic with the bound.
TEST(Explain, R3DeterministicCoversBothRegimes) {
  auto r = run(Model{});
  EXPECT_EQ(r.result.verdict, Verdict::deterministic);
  EXPECT_EQ(r.result.exit_code, 0);
  EXPECT_TRUE(has(r.result.conclusion, "across processes and inside one process"))
      << r.result.conclusion;
  auto all = std::find_if(r.plans.begin(), r.plans.end(),
                          [](const CellPlan& p) { return p.name == "all varied"; });
  ASSERT_NE(all, r.plans.end());
  EXPECT_EQ(std::count(all->varied.begin(), all->varied.end(), "process"), 1); // process=both
  EXPECT_EQ(std::count(all->varied.begin(), all->varied.end(), "aslr"), 1);
}

// R3 with factors left out: the verdict names them.
TEST(Explain, R3DeterministicNamesLeftOutFactors) {
  auto r = run(Model{}, {}, {"env:X"}).result;
  EXPECT_TRUE(has(r.conclusion, "not varied: env:X (left out by --factors/--skip)"))
      << r.conclusion;
}

// R4: varies with everything fixed but not with everything varied: too few runs.
TEST(Explain, R4VariesOnlyFixed) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.empty(); };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::inconclusive);
  EXPECT_TRUE(has(r.conclusion, "raise --runs")) << r.conclusion;
}

// R5: varies with every tested factor fixed: name what was left out before blaming the compiler.
TEST(Explain, R5NamesLeftOutFactorsBeforeBlamingTheCompiler) {
  Model m;
  m.varies = [](const Names&, const Names&) { return true; };
  auto with = run(m, {}, {"locale", "umask"}).result;
  EXPECT_EQ(with.verdict, Verdict::inconclusive);
  EXPECT_TRUE(has(with.conclusion, "not tested: locale and umask (left out by --factors/--skip)"))
      << with.conclusion;
  auto without = run(m).result;
  EXPECT_TRUE(has(without.conclusion, "the cause is inside the compiler")) << without.conclusion;
}

// R6: no run differed with everything fixed, but too few runs for the baseline rate.
TEST(Explain, R6TooFewRunsForTheRate) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.count("aslr") > 0; };
  m.rate = 0.02;
  ExplainOptions o;
  o.max_cell_runs = 10;
  auto r = run(m, o).result;
  EXPECT_EQ(r.verdict, Verdict::inconclusive);
  EXPECT_TRUE(has(r.conclusion, "raise --max-cell-runs")) << r.conclusion;
}

// R7: fixing the single factors is not enough and no pair explains the rest: the smallest set seen.
TEST(Explain, R7SingleFactorsNotEnough) {
  Model m;
  m.varies = [](const Names& v, const Names&) {
    return v.count("aslr") || (v.count("cwd") && v.count("tmpdir") && v.count("time"));
  };
  // No pair varies it (three factors must vary together), so no measured set suffices: a quiet
  // pair cell held the other factors fixed without testing them, and names none of them.
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::inconclusive) << r.conclusion;
  EXPECT_TRUE(has(r.conclusion, "fixing aslr=off is not enough and no pair of the other factors"))
      << r.conclusion;
  for (const char* untested : {"process=fresh", "heap=none", "threads=0", "pid=fixed"})
    EXPECT_FALSE(has(r.conclusion, untested)) << untested << ": " << r.conclusion;
}

// R7 (no cell supports a claim): inconclusive, never a cause.
TEST(Explain, R7NothingSufficientIsInconclusive) {
  Model m;
  // Any three factors together vary it; cells varying one or two fail, so none supports a claim.
  m.varies = [](const Names& v, const Names&) { return v.size() >= 3; };
  m.fails = [](const Names& v, const Names&, const Names&) { return !v.empty() && v.size() <= 2; };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::inconclusive) << r.conclusion;
  EXPECT_TRUE(r.cause.empty());
  EXPECT_TRUE(has(r.conclusion, "fixing any single factor is not enough and no pair"))
      << r.conclusion;
}

// R8: one factor alone.
TEST(Explain, R8OneFactor) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.count("aslr") > 0; };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.conclusion, "varies with ASLR; nothing else matters (deterministic when aslr=off)");
}

// R8 for a factor with its own words (mtime): "the cubin follows ...", from the cells' output.
TEST(Explain, R8InTheFactorsOwnWords) {
  auto fs = factors();
  Factor mt;
  mt.name = "mtime";
  mt.fixed_label = "mtime=fixed";
  mt.varied_label = "mtime=vary";
  mt.natural_label = "mtime=real";
  mt.fix = mt.vary = mt.leave = [](perturb::Setting&) {};
  mt.noun = "the modification time of /src/a.py";
  mt.follows = "follows the modification time of /src/a.py";
  fs.push_back(mt);
  CellRunner runner = [&](const CellPlan& p) {
    bool varies = std::find(p.varied.begin(), p.varied.end(), "mtime") != p.varied.end();
    Cell c;
    c.median_seconds = 0.1;
    c.output = "cubin";
    c.runs = varies && p.stop_early ? 2 : p.runs;
    c.outcomes = varies && p.runs > 1 ? 2 : 1;
    c.result = c.outcomes > 1 ? Verdict::nondeterministic : Verdict::deterministic;
    c.assessment.verdict = c.result;
    c.assessment.rate = c.outcomes > 1 ? 1.0 : 0;
    c.assessment.upper_bound =
        c.outcomes > 1 ? 1 : 1 - std::pow(0.05, 1.0 / static_cast<double>(p.runs));
    return c;
  };
  auto r = explain_with({}, fs, runner);
  EXPECT_EQ(r.conclusion, "the cubin follows the modification time of /src/a.py; nothing else "
                          "matters (deterministic when mtime=fixed)");
  EXPECT_EQ(r.necessary, std::vector<std::string>{"mtime"});
  // With mtime left out, a time that varies it may act through the files: the conclusion says so.
  fs.pop_back();
  CellRunner by_time = [&](const CellPlan& p) {
    CellPlan q = p;
    std::replace(q.varied.begin(), q.varied.end(), std::string("time"), std::string("mtime"));
    return runner(q);
  };
  r = explain_with({}, fs, by_time, {}, {"mtime"});
  EXPECT_TRUE(has(r.conclusion, "varies with the time; nothing else matters")) << r.conclusion;
  EXPECT_TRUE(has(r.conclusion, "time may act through the files' modification times"))
      << r.conclusion;
}

// The regimes an experiment covers: inside one process where the factor that decides it
// (process, perturb::regime_factors) is tested, else across processes only.
TEST(Explain, RegimesFollowTheFactorThatDecidesThem) {
  Model m;
  EXPECT_EQ(run(m).result.regimes, "across processes and inside one process (process=both)");
  auto fs = factors();
  fs.erase(fs.begin()); // process
  CellRunner quiet = [](const CellPlan& p) {
    Cell c;
    c.name = p.name;
    c.result = c.assessment.verdict = Verdict::deterministic;
    c.runs = p.runs;
    c.outcomes = 1;
    c.assessment.upper_bound = 1 - std::pow(0.05, 1.0 / static_cast<double>(p.runs));
    c.median_seconds = 0.4;
    return c;
  };
  EXPECT_EQ(explain_with({}, fs, quiet).regimes, "across processes only (process is not varied)");
}

// R9: an interaction: two factors together, either fixed alone is enough.
TEST(Explain, R9TwoFactorsTogether) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.count("cwd") && v.count("tmpdir"); };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained);
  EXPECT_TRUE(r.necessary.empty());
  EXPECT_EQ(r.cause.size(), 1u);
  EXPECT_TRUE(has(r.conclusion,
                  "varies only when cwd and tmpdir vary together; fixing cwd alone is enough"))
      << r.conclusion;
}

// R10: a cell fixing fewer factors was deterministic: the conclusion says so (the smallest set
// seen).
TEST(Explain, R10SmallestSufficientSetSeen) {
  Model m;
  m.varies = [](const Names& v, const Names& fixed) {
    if (fixed == Names{"threads"}) return false; // "fix threads only" came out deterministic
    return any(v, {"heap", "aslr", "process", "threads"});
  };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained);
  EXPECT_EQ(r.cause, std::vector<std::string>{"threads"});
  EXPECT_TRUE(has(r.conclusion, "deterministic when threads=0 (cell 'fix threads only'"))
      << r.conclusion;
  EXPECT_TRUE(
      has(r.conclusion, "yet varied alone, process, heap, aslr and threads each made it vary"))
      << r.conclusion;
}

// The short baseline came out quiet (a low rate), the full one varied: the quiet baseline, which
// fixed nothing, is no sufficient set ("deterministic when" nothing).
TEST(Explain, AQuietShortBaselineIsNoSufficientSet) {
  Model m;
  m.rate = 0.3; // 15 quiet runs would have shown it with 99.5 % probability: a supported cell
  m.quiet = {"all varied"};
  m.varies = [](const Names& v, const Names&) { return v.count("heap") > 0; };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained) << r.conclusion;
  EXPECT_EQ(r.cause, std::vector<std::string>{"heap"}) << r.conclusion;
  EXPECT_FALSE(has(r.conclusion, "deterministic when  ")) << r.conclusion;
  EXPECT_FALSE(has(r.conclusion, "'all varied'")) << r.conclusion;
}

// R11: several factors, each needed, all moving addresses: the mechanism is named.
TEST(Explain, R11SeveralAddressFactors) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return any(v, {"heap", "aslr", "process"}); };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained);
  EXPECT_EQ(r.necessary, (std::vector<std::string>{"process", "heap", "aslr"}));
  EXPECT_TRUE(has(r.conclusion,
                  "deterministic when process=fresh, heap=none and aslr=off; each of them alone"))
      << r.conclusion;
  EXPECT_EQ(r.mechanism,
            "follows memory addresses: compile history, the heap layout and ASLR each move it");
}

// A varied level that breaks the compiler is found by a probe and left natural.
TEST(Explain, BrokenVariedLevelIsLeftNatural) {
  Model m;
  m.fails = [](const Names& v, const Names&, const Names&) { return v.count("pid") > 0; };
  m.varies = [](const Names& v, const Names&) { return v.count("heap") > 0; };
  auto r = run(m).result;
  EXPECT_EQ(r.verdict, Verdict::explained) << r.conclusion;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(has(r.findings[0], "varying pid")) << r.findings[0];
}

// --budget: a slow compiler with a low rate gets shorter cells, and a finding says so.
TEST(Explain, BudgetCutsCellRuns) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.count("aslr") > 0; };
  m.rate = 0.05;
  m.median_seconds = 2;
  ExplainOptions o;
  o.budget_seconds = 300;
  auto r = run(m, o).result;
  EXPECT_LT(r.cell_runs, 20u);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(has(r.findings.back(), "to fit the 300 s budget")) << r.findings.back();
  o.budget_seconds = 0;
  EXPECT_GT(run(m, o).result.cell_runs, 100u);
}

// The case: three factors each make it vary, fixing them is not enough (two others vary
// it together), and the run budget ends while pairs are tried. A pair cell that came out quiet
// held every other factor fixed without testing it: those are no causes, the conclusion names
// none of them, and it says what the budget left untried.
TEST(Explain, AConclusionNamesOnlyFactorsItTested) {
  Model m;
  m.varies = [](const Names& v, const Names&) {
    return any(v, {"heap", "aslr", "process"}) || (v.count("time") && v.count("pid"));
  };
  ExplainOptions o;
  o.budget_runs = 110;
  auto r = run(m, o);
  const auto& res = r.result;
  EXPECT_TRUE(std::any_of(r.plans.begin(), r.plans.end(), [](const CellPlan& p) {
    return p.name == "vary threads and cwd only";
  })) << "a pair cell ran before the budget ended";
  EXPECT_EQ(res.verdict, Verdict::inconclusive) << res.conclusion;
  EXPECT_EQ(res.necessary, (std::vector<std::string>{"process", "heap", "aslr"}));
  for (const char* untested : {"threads=0", "cwd=fixed", "tmpdir=fixed", "time=fixed", "pid=fixed"})
    EXPECT_FALSE(has(res.conclusion, untested)) << untested << ": " << res.conclusion;
  EXPECT_TRUE(has(res.conclusion, "the budget of 110 runs ran out")) << res.conclusion;
  EXPECT_TRUE(has(res.conclusion, "pairs left untried")) << res.conclusion;
  EXPECT_TRUE(std::find(res.untried.begin(), res.untried.end(), "pair time+pid") !=
              res.untried.end());
}

// --budget-runs counts runs: the same compiler, ten times slower a run (a loaded machine), gives
// the same cells and the same conclusion. A budget in seconds would cut it shorter.
TEST(Explain, ARunBudgetGivesTheSameConclusionAtAnySpeed) {
  Model m;
  m.varies = [](const Names& v, const Names&) { return v.count("aslr") > 0; };
  m.rate = 0.05;
  ExplainOptions o;
  o.budget_runs = 600;
  auto fast = run(m, o);
  m.median_seconds *= 10;
  auto slow = run(m, o);
  EXPECT_EQ(fast.result.conclusion, slow.result.conclusion);
  EXPECT_EQ(fast.result.cell_runs, slow.result.cell_runs);
  EXPECT_EQ(fast.plans.size(), slow.plans.size());
  ASSERT_FALSE(fast.result.findings.empty());
  EXPECT_TRUE(has(fast.result.findings.back(), "to fit the budget of 600 runs"))
      << fast.result.findings.back();
}

// A factor whose variance does not come back on re-test is a fluke, not a cause: time alone
// varies once (a scripted second output), its re-test with new seeds gives one output.
TEST(Explain, AVarianceThatDoesNotComeBackIsAFluke) {
  Model m;
  m.varies = [](const Names& varied, const Names&) {
    return varied.count("aslr") > 0 || (varied.size() == 1 && varied.count("time") > 0);
  };
  m.quiet = {"re-test: vary time only"};
  auto run_result = run(m);
  const auto& r = run_result.result;
  EXPECT_EQ(r.verdict, Verdict::explained) << r.conclusion;
  EXPECT_EQ(r.cause, std::vector<std::string>{"aslr"}) << r.conclusion;
  EXPECT_EQ(r.necessary, std::vector<std::string>{"aslr"});
  bool fluke = std::any_of(r.findings.begin(), r.findings.end(), [](const std::string& f) {
    return has(f, "a fluke, not a cause: varying time alone");
  });
  EXPECT_TRUE(fluke) << r.conclusion;
  // Both re-tests ran; aslr's came back, so it stays a cause.
  size_t retests =
      std::count_if(run_result.plans.begin(), run_result.plans.end(),
                    [](const CellPlan& p) { return p.name.rfind("re-test: ", 0) == 0; });
  EXPECT_EQ(retests, 2u);
}

// A compiler that crashes at random in half its runs, whatever the factors: no seed may end in
// "failed on every run" or blame a factor (a level that breaks it, a factor that makes every run
// fail, a cause). A short cell fails whole by chance (both of 2 runs, a quarter of the time), so
// every cell that failed whole is tried again before it is believed.
TEST(Explain, RandomCrashesAreTheCompilersOwnRateForEverySeed) {
  auto fs = factors();
  for (uint64_t seed = 0; seed < 300; ++seed) {
    uint64_t draw = seed * 7919 + 1;
    auto crashes = [&draw] {
      draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
      return (draw >> 33) % 2 == 0;
    };
    CellRunner runner = [&](const CellPlan& p) {
      Cell c;
      c.median_seconds = 0.1;
      uint64_t ok = 0, failed = 0;
      for (uint64_t i = 0; i < p.runs; ++i) {
        (crashes() ? failed : ok) += 1;
        if (p.stop_early && ok > 0 && failed > 0) break;  // its second outcome
        if (!p.all_runs && ok == 0 && failed >= 2) break; // two failures, no success
      }
      c.runs = ok + failed;
      c.outcomes = (ok > 0) + (failed > 0);
      c.result = ok == 0       ? Verdict::failed
                 : failed == 0 ? Verdict::deterministic
                               : Verdict::nondeterministic;
      c.assessment.verdict = c.result;
      c.assessment.runs = c.runs;
      c.assessment.ok_runs = ok;
      c.assessment.rate = static_cast<double>(std::min(ok, failed)) / static_cast<double>(c.runs);
      c.assessment.upper_bound = 1 - std::pow(0.05, 1.0 / static_cast<double>(c.runs));
      if (ok == 0) c.failure = "crashed (signal 11)";
      return c;
    };
    ExplainResult r = explain_with({}, fs, runner, {}, {});
    EXPECT_NE(r.verdict, Verdict::failed) << "seed " << seed << ": " << r.conclusion;
    EXPECT_NE(r.verdict, Verdict::explained) << "seed " << seed << ": " << r.conclusion;
    EXPECT_TRUE(r.cause.empty()) << "seed " << seed;
    for (const auto& f : r.findings) {
      EXPECT_FALSE(has(f, "made the compiler fail") || has(f, "made every run fail") ||
                   has(f, "cannot be tested"))
          << "seed " << seed << ": " << f;
    }
    EXPECT_FALSE(has(r.conclusion, "fails whenever")) << "seed " << seed << ": " << r.conclusion;
  }
}
