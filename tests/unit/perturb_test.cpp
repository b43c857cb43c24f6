// The factors: the same seed gives the same perturbation; fixed levels give
// the same values every run; varied levels differ; nothing is set by default.
#include "kdet/engine/runner.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/presets.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"

#include <gtest/gtest.h>
#include <set>
#include <thread>

using namespace kdet;
using namespace kdet::perturb;

namespace {
Context ctx() {
  Context c;
  c.session_dir = "/tmp/s";
  c.input_path = "/data/kernel.ll";
  c.base_cwd = "/work";
  c.faketime_lib = "/usr/lib/faketime/libfaketime.so.1";
  c.chaos_lib = "/x/libkdet_chaos.so";
  return c;
}
} // namespace

TEST(Factors, DefaultsChangeNothingPerRun) {
  Setting s;
  auto a = plan_run(s, ctx(), 0, 11), b = plan_run(s, ctx(), 1, 22);
  EXPECT_TRUE(a.host.env.empty());
  EXPECT_EQ(a.input_path, "/data/kernel.ll");
  EXPECT_EQ(a.input_name, "kernel.ll");
  EXPECT_EQ(a.host.cwd, b.host.cwd);
  EXPECT_EQ(a.host.umask, -1);
}

TEST(Factors, VariedLevelsDifferAndReplay) {
  Setting s;
  level_of(s, "path") = Level::vary;
  level_of(s, "cwd") = Level::vary;
  level_of(s, "tmpdir") = Level::vary;
  level_of(s, "time") = Level::vary;
  level_of(s, "locale") = Level::vary;
  level_of(s, "umask") = Level::vary;
  level_of(s, "threadvars") = Level::vary;
  auto a = plan_run(s, ctx(), 0, 11), a2 = plan_run(s, ctx(), 0, 11), b = plan_run(s, ctx(), 1, 22);
  EXPECT_EQ(a.host.env, a2.host.env);
  EXPECT_EQ(a.input_path, a2.input_path);
  EXPECT_NE(a.input_path, b.input_path);
  EXPECT_NE(a.host.cwd, b.host.cwd);
  EXPECT_NE(a.input_name, "kernel.ll");
  EXPECT_EQ(a.input_name.substr(a.input_name.size() - 3), ".ll");
}

TEST(Factors, FixedLevelsAreTheSameEveryRun) {
  Setting s;
  level_of(s, "time") = Level::fixed;
  level_of(s, "locale") = Level::fixed;
  level_of(s, "umask") = Level::fixed;
  level_of(s, "threadvars") = Level::fixed;
  auto a = plan_run(s, ctx(), 0, 11), b = plan_run(s, ctx(), 7, 99);
  EXPECT_EQ(a.host.env, b.host.env);
  EXPECT_EQ(a.host.umask, 0022);
  bool omp = false;
  for (const auto& e : a.host.env)
    omp |= e == "OMP_NUM_THREADS=1";
  EXPECT_TRUE(omp);
}

// threadvars=vary picks 1..N threads per variable, N the machine's hardware threads: asked
// once for the session (Context::hardware_threads), or by each run when not given; the same
// count gives the same values.
TEST(Factors, VariedThreadCountsFollowTheHardwareThreads) {
  Setting s;
  level_of(s, "threadvars") = Level::vary;
  Context c = ctx();
  c.hardware_threads = 3;
  std::set<std::string> omp;
  for (uint64_t run = 0; run < 64; ++run)
    for (const auto& e : plan_run(s, c, run, mix_seed(5, run)).host.env)
      if (e.rfind("OMP_NUM_THREADS=", 0) == 0) omp.insert(e);
  EXPECT_EQ(omp,
            (std::set<std::string>{"OMP_NUM_THREADS=1", "OMP_NUM_THREADS=2", "OMP_NUM_THREADS=3"}));
  Context asked = ctx();
  asked.hardware_threads = std::max(2u, std::thread::hardware_concurrency());
  EXPECT_EQ(plan_run(s, ctx(), 3, 99).host.env, plan_run(s, asked, 3, 99).host.env);
}

TEST(Factors, ChaosGoesInProcessForLibrariesAndToTheChildForExec) {
  Setting s;
  s.heap = HeapMode::chaos;
  auto lib = plan_run(s, ctx(), 0, 5);
  EXPECT_TRUE(lib.heap.chaos_reseed);
  EXPECT_EQ(lib.heap.chaos_seed, 5u);
  auto launch = plan_launch(s, ctx());
  bool preload = false;
  for (const auto& e : launch.env)
    preload |= e.rfind("LD_PRELOAD=/x/libkdet_chaos.so", 0) == 0;
  EXPECT_TRUE(preload);
  Context ec = ctx();
  ec.exec_backend = true;
  auto ex = plan_run(s, ec, 0, 5);
  EXPECT_FALSE(ex.heap.chaos_reseed);
  bool seed = false;
  for (const auto& e : ex.host.env)
    seed |= e == "KDET_CHAOS_SEED=0x5";
  EXPECT_TRUE(seed);
  EXPECT_TRUE(plan_launch(s, ec).env.empty()); // the worker itself is not preloaded for exec
}

TEST(Factors, LevelsParseWithTheirOwnWords) {
  EXPECT_EQ(parse_level("time", "real", "--time"), Level::inherit);
  EXPECT_EQ(parse_level("pid", "fixed", "--pid"), Level::fixed);
  EXPECT_THROW(parse_level("pid", "inherit", "--pid"), Error);
  EXPECT_THROW(parse_env_vary("X=1"), Error);
  auto [k, v] = parse_env_vary("OMP_NUM_THREADS=1,2,8");
  EXPECT_EQ(k, "OMP_NUM_THREADS");
  EXPECT_EQ(v.size(), 3u);
}

// The factor registry: every row parses its own levels back, names are unique, and the regimes
// are those the experiment relies on.
TEST(Registry, EveryRowRoundTripsItsLevels) {
  std::set<std::string> names;
  for (const auto& f : factor_registry()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    if (f.name == "env-vary") continue;
    for (const auto& level : {f.fixed, f.varied, f.natural}) {
      Setting s;
      f.set(s, level, "--" + f.name);
      EXPECT_EQ(f.get(s), level) << f.name;
    }
    Setting s;
    EXPECT_THROW(f.set(s, "nonsense", "--" + f.name), Error) << f.name;
  }
  EXPECT_EQ(factor("aslr").regime, Regime::across);
  EXPECT_EQ(factor("pid").regime, Regime::across);
  EXPECT_EQ(factor("heap").regime, Regime::inside);
  EXPECT_EQ(factor("process").varied, "both");
  EXPECT_FALSE(factor("threads").exec);
  EXPECT_EQ(find_factor("threadvars")->noun, "thread-count variables");
  EXPECT_THROW(factor("nonsense"), Error);
}

TEST(Registry, RegimesCovered) {
  Setting s;
  s.process = ProcessMode::both;
  EXPECT_EQ(covered_regime(s, false), Regime::both);
  EXPECT_TRUE(unreachable_factors(s, false).empty());
  s.process = ProcessMode::same;
  EXPECT_EQ(covered_regime(s, false), Regime::inside);
  EXPECT_EQ(unreachable_factors(s, false), (std::vector<std::string>{"aslr", "pid"}));
  EXPECT_EQ(covered_regime(s, true), Regime::across);
}

TEST(Registry, BothAlternatesFreshAndSharedRuns) {
  EXPECT_TRUE(kdet::engine::runs_in_fresh_process(ProcessMode::both, 0));
  EXPECT_FALSE(kdet::engine::runs_in_fresh_process(ProcessMode::both, 1));
  EXPECT_TRUE(kdet::engine::runs_in_fresh_process(ProcessMode::fresh, 1));
  EXPECT_FALSE(kdet::engine::runs_in_fresh_process(ProcessMode::same, 0));
}

// reprotest's variations: fixed is one value every run, vary replays from the seed and differs.
TEST(Factors, HostFactorsFixAndVary) {
  Context c = ctx();
  c.usable_cpus = {0, 2, 3, 5};
  Setting s;
  auto n = plan_run(s, c, 0, 1);
  EXPECT_TRUE(n.host.cpus.empty());
  EXPECT_TRUE(n.host.hostname.empty());
  EXPECT_FALSE(plan_launch(s, c).private_uts);
  level_of(s, "tz") = Level::fixed;
  level_of(s, "home") = Level::fixed;
  level_of(s, "cpus") = Level::fixed;
  level_of(s, "hostname") = Level::fixed;
  auto a = plan_run(s, c, 0, 1), b = plan_run(s, c, 9, 77);
  EXPECT_EQ(a.host.env, b.host.env);
  EXPECT_EQ(a.host.cpus, std::vector<int>{0});
  // Each parallel slot its own one CPU, the same in every run of that slot.
  ASSERT_GE(c.usable_cpus.size(), 2u);
  EXPECT_EQ(plan_run(s, c, 5, 3, 1).host.cpus, std::vector<int>{c.usable_cpus[1]});
  EXPECT_EQ(plan_run(s, c, 6, 4, 1).host.cpus, plan_run(s, c, 5, 3, 1).host.cpus);
  EXPECT_EQ(plan_run(s, c, 0, 1, static_cast<int>(c.usable_cpus.size())).host.cpus, a.host.cpus);
  EXPECT_EQ(a.host.hostname, b.host.hostname);
  EXPECT_NE(std::find(a.host.env.begin(), a.host.env.end(), "TZ=UTC0"), a.host.env.end());
  EXPECT_NE(std::find(a.host.env.begin(), a.host.env.end(), "HOME=/nonexistent/kdet-home"),
            a.host.env.end());
  EXPECT_TRUE(plan_launch(s, c).private_uts);
  level_of(s, "tz") = Level::vary;
  level_of(s, "home") = Level::vary;
  level_of(s, "cpus") = Level::vary;
  level_of(s, "hostname") = Level::vary;
  std::set<std::vector<int>> masks;
  std::set<std::string> hosts, envs;
  for (uint64_t i = 0; i < 32; ++i) {
    auto p = plan_run(s, c, i, mix_seed(7, i));
    EXPECT_EQ(p.host.env, plan_run(s, c, i, mix_seed(7, i)).host.env);
    ASSERT_FALSE(p.host.cpus.empty());
    for (int cpu : p.host.cpus)
      EXPECT_NE(std::find(c.usable_cpus.begin(), c.usable_cpus.end(), cpu), c.usable_cpus.end());
    masks.insert(p.host.cpus);
    hosts.insert(p.host.hostname + "." + p.host.domainname);
    for (const auto& e : p.host.env)
      envs.insert(e);
  }
  EXPECT_GT(masks.size(), 4u);
  EXPECT_EQ(hosts.size(), 32u);
  EXPECT_GT(envs.size(), 8u); // several TZ and HOME values
}

// Python's hash seed: a factor of Python stages alone, across processes; fixed is 0 in every
// worker, vary a seeded value per run (a fresh interpreter's) and one per session for workers
// that live on.
TEST(Factors, HashSeedReachesPythonStagesAlone) {
  const FactorInfo& h = factor("hashseed");
  EXPECT_EQ(h.regime, Regime::across);
  EXPECT_TRUE(reaches(h, false, true));
  EXPECT_FALSE(reaches(h, false, false));
  EXPECT_FALSE(reaches(h, true, false));
  EXPECT_FALSE(reaches(factor("path"), false, true));
  EXPECT_TRUE(reaches(factor("heap"), false, true));
  Setting s;
  EXPECT_EQ(level_of(s, "hashseed"), Level::inherit);
  auto has = [](const std::vector<std::string>& env, const std::string& prefix) {
    for (const auto& e : env)
      if (e.rfind(prefix, 0) == 0) return e;
    return std::string();
  };
  EXPECT_EQ(has(plan_launch(s, ctx()).env, "PYTHONHASHSEED="), "");
  EXPECT_EQ(has(plan_run(s, ctx(), 0, 1).host.env, "PYTHONHASHSEED="), "");
  level_of(s, "hashseed") = Level::fixed;
  EXPECT_EQ(has(plan_launch(s, ctx()).env, "PYTHONHASHSEED="), "PYTHONHASHSEED=0");
  EXPECT_EQ(has(plan_run(s, ctx(), 0, 1).host.env, "PYTHONHASHSEED="), "");
  level_of(s, "hashseed") = Level::vary;
  std::string a = has(plan_run(s, ctx(), 0, 1).host.env, "PYTHONHASHSEED=");
  EXPECT_NE(a, "");
  EXPECT_NE(a, "PYTHONHASHSEED=0");
  EXPECT_EQ(a, has(plan_run(s, ctx(), 0, 1).host.env, "PYTHONHASHSEED="));
  EXPECT_NE(a, has(plan_run(s, ctx(), 1, 2).host.env, "PYTHONHASHSEED="));
  EXPECT_NE(has(plan_launch(s, ctx()).env, "PYTHONHASHSEED="), "");
  s.process = ProcessMode::same;
  EXPECT_EQ(unreachable_factors(s, false), (std::vector<std::string>{"aslr", "pid", "hashseed"}));
}

// A factor's level lives by name (Setting::levels): the listing factor, added as one file and one
// line of factors.def, parses, prints, goes into JSON only when set, and plans its variable.
// What kdet exec can fix, and what explain says of regimes and of a factor acting through
// another, come from the rows (no list outside them names a factor).
TEST(Registry, ExecFixesRegimesAndThroughAreInTheRows) {
  std::vector<std::string> fixes, defaults;
  for (const auto& f : factor_registry()) {
    if (!f.exec_fix) continue;
    EXPECT_FALSE(f.exec_help.empty()) << f.name;
    fixes.push_back(f.name);
    if (f.exec_default) defaults.push_back(f.name);
  }
  EXPECT_EQ(fixes, (std::vector<std::string>{"aslr", "time", "locale", "umask", "pid", "threadvars",
                                             "tz", "listing"}));
  EXPECT_EQ(defaults, (std::vector<std::string>{"aslr", "locale", "umask", "threadvars", "tz"}));
  EXPECT_FALSE(factor("threads").exec_refusal.empty());
  // The variables kdet exec sets for a factor are those of kdet run's fixed level.
  for (const char* n : {"locale", "tz", "threadvars"}) {
    CommandFix c;
    factor(n).exec_fix(c);
    EXPECT_EQ(c.view.env, fixed_environment(n)) << n;
  }
  CommandFix u;
  factor("umask").exec_fix(u);
  Setting s;
  factor("umask").set(s, "fixed", "--umask");
  EXPECT_EQ(u.view.umask, plan_run(s, ctx(), 0, 1).host.umask);
  std::vector<std::string> regime;
  for (const FactorInfo* f : regime_factors())
    regime.push_back(f->name);
  EXPECT_EQ(regime, std::vector<std::string>{"process"});
  EXPECT_EQ(factor("time").through_factor, "mtime");
}

TEST(Factors, ListingIsAFactorByItsRowAlone) {
  Setting s;
  EXPECT_EQ(level_of(s, "listing"), Level::inherit);
  EXPECT_FALSE(to_json(s).contains("listing")); // settings stored before it compare equal
  auto listing = [](const RunPerturbation& p) {
    for (const auto& e : p.host.env)
      if (e.rfind("KDET_LISTING=", 0) == 0) return e;
    return std::string();
  };
  EXPECT_EQ(listing(plan_run(s, ctx(), 0, 1)), "");
  factor("listing").set(s, "fixed", "--listing");
  EXPECT_EQ(to_json(s).at("listing"), "fixed");
  EXPECT_EQ(listing(plan_run(s, ctx(), 0, 1)), "KDET_LISTING=sorted");
  EXPECT_EQ(listing(plan_run(s, ctx(), 5, 9)), "KDET_LISTING=sorted");
  factor("listing").set(s, "vary", "--listing");
  const std::string a = listing(plan_run(s, ctx(), 0, 1));
  EXPECT_TRUE(a.starts_with("KDET_LISTING=shuffle:0x")) << a;
  EXPECT_EQ(a, listing(plan_run(s, ctx(), 0, 1)));
  EXPECT_NE(a, listing(plan_run(s, ctx(), 1, 2)));
  EXPECT_FALSE(all_fixed(s));
  EXPECT_THROW(factor("listing").set(s, "shuffled", "--listing"), Error);
}
