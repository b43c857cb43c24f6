// The probes of `kdet run`'s defaults (engine::vary_unset_factors) with scripted probe outcomes:
// which level is blamed for what, and in whose words. No process is started.
#include "kdet/engine/run_defaults.hpp"

#include <gtest/gtest.h>

using namespace kdet;
using namespace kdet::engine;

namespace {

// Two factors, time and tz, each a Level of the setting.
std::vector<Factor> two_factors() {
  std::vector<Factor> out;
  for (const char* n : {"time", "tz"}) {
    Factor f;
    f.name = n;
    const std::string name = n;
    f.fixed_label = name + "=fixed";
    f.varied_label = name + "=vary";
    f.natural_label = name + (name == "time" ? "=real" : "=inherit");
    auto level = [name](perturb::Setting& s) -> perturb::Level& {
      return name == "time" ? perturb::level_of(s, "time") : perturb::level_of(s, "tz");
    };
    f.fix = [level](perturb::Setting& s) { level(s) = perturb::Level::fixed; };
    f.vary = [level](perturb::Setting& s) { level(s) = perturb::Level::vary; };
    f.leave = [level](perturb::Setting& s) { level(s) = perturb::Level::inherit; };
    out.push_back(f);
  }
  return out;
}

// One probe's output: a single done run of `status`.
RunOutput one_run(backend::Status status, std::string detail = {}) {
  RunOutput out;
  RunRecord r;
  r.done = true;
  r.status = status;
  r.detail = std::move(detail);
  r.seconds = r.compile_seconds = 0.01;
  out.records.push_back(r);
  out.completed = 1;
  return out;
}

struct Probed {
  DefaultLevels levels;
  int probes = 0;
};

// `under_time`: what a probe gives while time is varied; every other probe compiles.
Probed probe(backend::Status under_time, const std::string& detail) {
  RunPlan plan;
  Probed p;
  ProbeRunner run = [&](const RunPlan& rp) {
    ++p.probes;
    if (perturb::level_of(rp.setting, "time") == perturb::Level::vary)
      return one_run(under_time, detail);
    return one_run(backend::Status::ok);
  };
  p.levels = vary_unset_factors_with(plan, {}, two_factors(), run);
  return p;
}

bool has(const std::vector<std::string>& findings, const std::string& part) {
  for (const auto& f : findings)
    if (f.find(part) != std::string::npos) return true;
  return false;
}

std::string all(const std::vector<std::string>& findings) {
  std::string s;
  for (const auto& f : findings)
    s += f + "\n";
  return s;
}

} // namespace

// A level under which the compiler crashes is the compiler's doing: blamed, left natural.
TEST(RunDefaults, ALevelThatCrashesTheCompilerIsBlamedOnTheCompiler) {
  auto p = probe(backend::Status::crashed, "signal 11");
  EXPECT_EQ(p.levels.varied, std::vector<std::string>{"tz=vary"});
  EXPECT_TRUE(has(p.levels.findings, "time=vary breaks this compiler (crashed: signal 11"))
      << all(p.levels.findings);
}

// A level under which kdet itself could not run the compile (a worker that could not start, for
// a limit on open files) is kdet's or the machine's doing: left natural, and said so, never
// "breaks this compiler".
TEST(RunDefaults, ALevelKdetCouldNotApplyIsNotBlamedOnTheCompiler) {
  auto p = probe(backend::Status::infra_error, "could not start a worker: Too many open files");
  EXPECT_EQ(p.levels.varied, std::vector<std::string>{"tz=vary"});
  EXPECT_FALSE(has(p.levels.findings, "breaks this compiler")) << all(p.levels.findings);
  EXPECT_TRUE(has(p.levels.findings,
                  "kdet could not apply time=vary on this machine (infra-error: could not start "
                  "a worker: Too many open files"))
      << all(p.levels.findings);
  EXPECT_TRUE(has(p.levels.findings, "an error of kdet's own, not the compiler's"))
      << all(p.levels.findings);
  // plain, all varied, time alone, then twice (plain, time alone), then tz alone
  EXPECT_EQ(p.probes, 8);
}

// A plain compile that kdet lost once (then compiled) is no failure rate of the compiler's.
TEST(RunDefaults, APlainCompileKdetLostOnceIsNotTheCompilersFailureRate) {
  RunPlan plan;
  int probes = 0;
  ProbeRunner run = [&](const RunPlan&) {
    return ++probes == 1 ? one_run(backend::Status::infra_error, "could not start a worker")
                         : one_run(backend::Status::ok);
  };
  auto d = vary_unset_factors_with(plan, {}, two_factors(), run);
  EXPECT_TRUE(has(d.findings, "failed 1 of 2 times with an error of kdet's own (infra-error), "
                              "not the compiler's"))
      << all(d.findings);
  EXPECT_FALSE(has(d.findings, "the compiler's own failure rate")) << all(d.findings);
  EXPECT_EQ(d.varied, (std::vector<std::string>{"time=vary", "tz=vary"}));
}

// A level the caller named that hangs the compiler is kept, found by a short probe against a
// compile with every factor natural; the runs get the probe's limit and end after 2 failures.
TEST(RunDefaults, ANamedLevelThatHangsTheCompilerLimitsTheRuns) {
  RunPlan plan;
  plan.timeout = std::chrono::seconds(300);
  perturb::level_of(plan.setting, "time") = perturb::Level::vary; // --time vary
  std::vector<std::chrono::milliseconds> limits;
  ProbeRunner run = [&](const RunPlan& rp) {
    limits.push_back(rp.timeout);
    return perturb::level_of(rp.setting, "time") == perturb::Level::vary
               ? one_run(backend::Status::timed_out)
               : one_run(backend::Status::ok);
  };
  auto d = vary_unset_factors_with(plan, {"time"}, two_factors(), run);
  ASSERT_EQ(limits.size(), 2u); // every factor natural, then the named level: nothing more
  EXPECT_EQ(limits[0], std::chrono::seconds(300));
  EXPECT_EQ(limits[1], std::chrono::seconds(2)); // 10 x 0.01 s, at least 2 s
  EXPECT_TRUE(has(d.findings, "the levels named (time=vary) break this compiler (timed-out"))
      << all(d.findings);
  EXPECT_EQ(d.run_limit, std::chrono::seconds(2));
  EXPECT_EQ(plan.timeout, std::chrono::seconds(2));
  EXPECT_EQ(plan.stop.after_failures, 2u);
  EXPECT_EQ(perturb::level_of(plan.setting, "time"), perturb::Level::vary); // kept as named
  EXPECT_EQ(perturb::level_of(plan.setting, "tz"),
            perturb::Level::inherit); // not named: left natural
  EXPECT_TRUE(d.varied.empty());
}

// A named level that compiles like the natural one changes nothing: the usual probes follow.
TEST(RunDefaults, ANamedLevelThatCompilesIsProbedOnceAndKept) {
  RunPlan plan;
  perturb::level_of(plan.setting, "time") = perturb::Level::fixed;
  int probes = 0;
  ProbeRunner run = [&](const RunPlan&) {
    ++probes;
    return one_run(backend::Status::ok);
  };
  auto d = vary_unset_factors_with(plan, {"time"}, two_factors(), run);
  EXPECT_EQ(d.run_limit.count(), 0);
  EXPECT_EQ(plan.stop.after_failures, 0u);
  EXPECT_EQ(d.varied, std::vector<std::string>{"tz=vary"});
  EXPECT_EQ(perturb::level_of(plan.setting, "time"), perturb::Level::fixed);
  EXPECT_EQ(probes, 4); // natural, named, then plain and all varied
}
