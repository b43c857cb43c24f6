// engine/run_measure: kdet run's session below the CLI: the CPU accounting, the exit decision
// (verdict, replayed capture, compiler change), and one session on the fake libNVVM.
#include "kdet/engine/run_measure.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>

using namespace kdet;
using namespace kdet::engine;

namespace {

RunRecord record(bool done, double compile_cpu_seconds) {
  RunRecord r;
  r.done = done;
  r.compile_cpu_seconds = compile_cpu_seconds;
  return r;
}

Assessment assessed(Verdict v, int exit_code) {
  Assessment a;
  a.verdict = v;
  a.exit_code = exit_code;
  return a;
}

} // namespace

TEST(RunMeasure, CpuCostSumsTheProbesAndTheDoneRunsOnly) {
  std::vector<RunRecord> records = {record(true, 0.25), record(false, 8.0), record(true, 0.5)};
  CpuCost c = cpu_cost(3'500'000'000, 1.25, records);
  EXPECT_DOUBLE_EQ(c.total_seconds, 3.5);
  EXPECT_DOUBLE_EQ(c.compile_seconds, 2.0) << "a run not reached measured nothing";
  CpuCost none = cpu_cost(0, 0, {});
  EXPECT_DOUBLE_EQ(none.total_seconds, 0);
  EXPECT_DOUBLE_EQ(none.compile_seconds, 0);
}

TEST(RunMeasure, ExitIsTheVerdictsWhenTheReplayCameBack) {
  EXPECT_EQ(run_exit(assessed(Verdict::deterministic, 0), true, "").code, 0);
  EXPECT_EQ(run_exit(assessed(Verdict::nondeterministic, 1), true, "").code, 1);
  EXPECT_EQ(run_exit(assessed(Verdict::failed, k_exit_compiler_failed), true, "").code,
            k_exit_compiler_failed);
  EXPECT_TRUE(run_exit(assessed(Verdict::deterministic, 0), true, "").error.empty());
}

TEST(RunMeasure, ACapturedOutputNotReproducedMakesAgreeingRunsNondeterministic) {
  RunExit e = run_exit(assessed(Verdict::deterministic, 0), false, "");
  EXPECT_EQ(e.code, k_exit_nondeterministic);
  EXPECT_TRUE(e.error.empty());
  // Any other verdict keeps its own code: a failure stays a failure.
  EXPECT_EQ(run_exit(assessed(Verdict::failed, k_exit_compiler_failed), false, "").code,
            k_exit_compiler_failed);
  EXPECT_EQ(run_exit(assessed(Verdict::nondeterministic, 1), false, "").code, 1);
}

TEST(RunMeasure, ACompilerChangedDuringTheRunsIsAnErrorWithoutVerdict) {
  RunExit e = run_exit(assessed(Verdict::none, 0), false, "the compiler file changed");
  EXPECT_EQ(e.code, k_exit_usage);
  EXPECT_EQ(e.error,
            "the compiler file changed; no verdict (run again once the compiler stays put)");
}

TEST(RunMeasure, ASessionOnTheFakeRunsAnnotatesAndAssesses) {
  std::signal(SIGPIPE, SIG_IGN);
  std::string dir = make_temp_dir("kdet-run-measure-test");
  write_file_atomic(dir + "/k.ll", "line one\nline two\n");
  const char* exe = std::getenv("KDET_EXE");
  const char* fakes = std::getenv("KDET_FAKES_DIR");
  RunPlan plan;
  plan.workers.exe = exe ? exe : KDET_EXE_PATH;
  plan.backend.kind = backend::Kind::nvvm;
  plan.backend.lib = std::string(fakes ? fakes : KDET_FAKES_PATH) + "/libfakenvvm.so";
  plan.input_path = dir + "/k.ll";
  plan.options = {"-fake-mode=echo"};
  plan.runs = 4;
  plan.timeout = std::chrono::seconds(20);
  plan.setting.seed = 42;

  MeasureOptions o;
  o.vary_unnamed = false;
  o.option_warnings = {"an option's warning"};
  int starts = 0;
  uint64_t last_done = 0;
  o.on_runs_start = [&starts] { ++starts; };
  o.progress = [&](uint64_t done, uint64_t, size_t) {
    EXPECT_EQ(starts, 1) << "the runs' progress comes after on_runs_start";
    last_done = done;
  };
  MeasuredRun m = measure_run(plan, o);
  remove_tree(dir);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(last_done, 4u);
  EXPECT_EQ(m.out.completed, 4u);
  EXPECT_EQ(m.assessment.verdict, Verdict::deterministic);
  EXPECT_EQ(m.assessment.runs, 4u);
  ASSERT_FALSE(m.out.warnings.empty());
  EXPECT_EQ(m.out.warnings.front(), "an option's warning");
  EXPECT_TRUE(m.out.default_varied.empty()) << "--unnamed natural varies nothing";
  EXPECT_EQ(m.out.probe_runs, 0u);
  EXPECT_TRUE(m.reaches.empty()) << "no reach asked for";
  EXPECT_GT(m.out.cpu_total_seconds, 0);
  double compile = 0;
  for (const auto& r : m.out.records)
    if (r.done) compile += r.compile_cpu_seconds;
  EXPECT_DOUBLE_EQ(m.out.cpu_compile_seconds, compile);
}
