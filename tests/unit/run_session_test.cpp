// engine::execute's planner (engine/run_session.hpp) against a scripted executor with a virtual
// clock (fake_executor.hpp): which worker each run gets, when workers start and go, early
// stops, failures and interrupts, each decided exactly, with no process and no sleep. The
// process truth (real workers, real pipes) is tests/unit/runner_test.cpp's.
#include "fake_executor.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace kdet;
using namespace kdet::engine;
using kdet::testing::FakeExecutor;
using Kind = FakeExecutor::Step::Kind;
using std::chrono::milliseconds;

namespace {

class RunSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-run-session-test");
    m_input = m_dir + "/k.ll";
    m_compiler = m_dir + "/libfakecc.so";
    write_file_atomic(m_input, "kernel\n");
    write_file_atomic(m_compiler, "a compiler\n");
  }
  void TearDown() override { remove_tree(m_dir); }

  // A plan of `runs` runs with every factor but the process fixed.
  RunPlan plan(uint64_t runs, perturb::ProcessMode process, int jobs = 1) const {
    RunPlan p;
    p.backend.kind = backend::Kind::nvvm;
    p.backend.lib = m_compiler;
    p.input_path = m_input;
    p.runs = runs;
    p.jobs = jobs;
    p.setting.seed = 7;
    p.setting.process = process;
    p.setting.heap = perturb::HeapMode::none;
    p.setting.aslr = false;
    p.setting.pid = perturb::Level::inherit;
    p.prestart = false;
    return p;
  }
  FakeExecutor fake(FakeExecutor::Model model) const {
    return FakeExecutor(std::move(model), milliseconds(50), m_compiler);
  }

  std::string m_dir, m_input, m_compiler;
};

// A compiler whose output is "A" always.
FakeExecutor::Answer always_a(const CompileMessage&, const WorkerLaunch&, int) {
  return {backend::Status::ok, "A", milliseconds(10), false};
}

} // namespace

TEST_F(RunSessionTest, SameProcessSlotsKeepTheirWorkerAndRunInParallel) {
  FakeExecutor ex = fake(always_a);
  RunOutput out = execute(plan(32, perturb::ProcessMode::same, 4), ex);
  EXPECT_EQ(out.completed, 32u);
  ASSERT_EQ(out.variants.size(), 1u);
  EXPECT_EQ(out.variants[0].count, 32u);
  // The probe becomes slot 0's worker; slots 1 to 3 start one each, then keep it.
  EXPECT_EQ(ex.count(Kind::launch), 4u);
  EXPECT_EQ(out.workers_started, 4);
  EXPECT_EQ(ex.most_busy(), 4);
  std::map<int, int> nth_by_worker;
  for (const auto& r : out.records) {
    ASSERT_TRUE(r.done);
    EXPECT_FALSE(r.fresh_process);
    EXPECT_EQ(r.nth_in_worker, ++nth_by_worker[r.worker]) << "run " << r.index;
  }
  // The probe's 50 ms; slot 0 then makes runs 0-4 while slots 1-3 start (50 ms); from 100 ms
  // the 27 runs left take 7 rounds of 10 ms on 4 slots.
  EXPECT_EQ(ex.ms_now(), 100 + 70);
  EXPECT_DOUBLE_EQ(out.wall_seconds, 0.170);
}

TEST_F(RunSessionTest, BothModesAlternateFreshAndSharedWorkers) {
  FakeExecutor ex = fake(always_a);
  RunOutput out = execute(plan(8, perturb::ProcessMode::both), ex);
  ASSERT_EQ(out.completed, 8u);
  int shared_worker = 0;
  for (const auto& r : out.records) {
    EXPECT_EQ(r.fresh_process, r.index % 2 == 0) << r.index;
    if (r.fresh_process) {
      EXPECT_EQ(r.nth_in_worker, 1);
    } else {
      if (shared_worker == 0) shared_worker = r.worker;
      EXPECT_EQ(r.worker, shared_worker); // the probe, kept as slot 0's shared worker
      EXPECT_EQ(r.nth_in_worker, static_cast<int>(r.index / 2 + 1));
    }
  }
  // The probe plus one worker for each of the 4 fresh runs, each quit after its run.
  EXPECT_EQ(ex.count(Kind::launch), 5u);
  EXPECT_EQ(ex.count(Kind::quit), 5u); // 4 fresh ones, then the shared one at the end
}

TEST_F(RunSessionTest, HistoryChainsStartANewWorkerEveryNRuns) {
  FakeExecutor ex = fake(always_a);
  RunPlan p = plan(8, perturb::ProcessMode::same);
  p.setting.history = 3;
  RunOutput out = execute(p, ex);
  ASSERT_EQ(out.completed, 8u);
  std::vector<int> nth;
  for (const auto& r : out.records)
    nth.push_back(r.nth_in_worker);
  EXPECT_EQ(nth, (std::vector<int>{1, 2, 3, 1, 2, 3, 1, 2}));
  EXPECT_EQ(ex.count(Kind::launch), 3u); // the probe serves the first chain
}

TEST_F(RunSessionTest, StopsAtTheSecondOutcomeInIndexOrderOnOneSlot) {
  FakeExecutor ex = fake([](const CompileMessage& m, const WorkerLaunch&, int) {
    return FakeExecutor::Answer{backend::Status::ok, m.run_index == 5 ? "B" : "A", milliseconds(10),
                                false};
  });
  RunPlan p = plan(32, perturb::ProcessMode::same);
  p.stop_at_outcomes = 2;
  RunOutput out = execute(p, ex);
  EXPECT_EQ(out.completed, 6u);
  EXPECT_TRUE(out.stopped_early);
  ASSERT_EQ(out.variants.size(), 2u);
  EXPECT_EQ(out.variants[0].count, 5u);
  EXPECT_EQ(out.variants[1].first_run, 5u);
  EXPECT_EQ(ex.count(Kind::compile), 6u);
}

TEST_F(RunSessionTest, AHangingCompilerCostsTwoTimeoutsNotN) {
  FakeExecutor ex = fake([](const CompileMessage&, const WorkerLaunch&, int) {
    return FakeExecutor::Answer{backend::Status::ok, "A", milliseconds(3600000), false};
  });
  RunPlan p = plan(20, perturb::ProcessMode::same);
  p.timeout = milliseconds(2000);
  p.stop_after_failures = 2;
  RunOutput out = execute(p, ex);
  ASSERT_EQ(out.completed, 2u);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(out.records[i].status, backend::Status::timed_out);
  // The probe's 50 ms, a timeout, a new worker's 50 ms, a timeout.
  EXPECT_EQ(ex.ms_now(), 50 + 2000 + 50 + 2000);
  EXPECT_EQ(ex.count(Kind::launch), 2u);
}

TEST_F(RunSessionTest, ACrashLosesTheSharedWorkerAndTheNextRunStartsAnother) {
  FakeExecutor ex = fake([](const CompileMessage& m, const WorkerLaunch&, int) {
    if (m.run_index == 2)
      return FakeExecutor::Answer{backend::Status::crashed, "", milliseconds(10), true};
    return FakeExecutor::Answer{backend::Status::ok, "A", milliseconds(10), false};
  });
  RunOutput out = execute(plan(5, perturb::ProcessMode::same), ex);
  ASSERT_EQ(out.completed, 5u);
  std::vector<int> nth, worker;
  for (const auto& r : out.records) {
    nth.push_back(r.nth_in_worker);
    worker.push_back(r.worker);
  }
  EXPECT_EQ(nth, (std::vector<int>{1, 2, 3, 1, 2}));
  EXPECT_EQ(worker, (std::vector<int>{1, 1, 1, 2, 2}));
  EXPECT_EQ(out.records[2].status, backend::Status::crashed);
  EXPECT_EQ(out.variants.size(), 2u);
}

TEST_F(RunSessionTest, AnInterruptKeepsWhatWasRecordedAndDropsTheRunInFlight) {
  FakeExecutor ex = fake(always_a);
  ex.interrupt_at(milliseconds(50 + 35)); // during the fourth run
  RunOutput out = execute(plan(10, perturb::ProcessMode::same), ex);
  EXPECT_TRUE(out.interrupted);
  EXPECT_FALSE(out.stopped_early);
  EXPECT_EQ(out.completed, 3u);
  for (uint64_t i = 0; i < 10; ++i)
    EXPECT_EQ(out.records[i].done, i < 3) << i;
}

TEST_F(RunSessionTest, AWorkerThatCannotStartIsTheRunsFailureNotTheCalls) {
  FakeExecutor ex = fake(always_a);
  ex.fail_starts_after(1); // the probe loads; fresh workers then fail to
  RunOutput out = execute(plan(3, perturb::ProcessMode::fresh), ex);
  ASSERT_EQ(out.completed, 3u);
  for (const auto& r : out.records) {
    EXPECT_EQ(r.status, backend::Status::infra_error);
    EXPECT_NE(r.detail.find("could not start a worker"), std::string::npos) << r.detail;
  }
}

TEST_F(RunSessionTest, ACompilerThatCannotLoadIsAnError) {
  FakeExecutor ex = fake(always_a);
  ex.fail_starts_after(0);
  EXPECT_THROW(execute(plan(3, perturb::ProcessMode::same), ex), Error);
  EXPECT_EQ(ex.count(Kind::compile), 0u);
}

// Prestart: while a fresh run compiles, the next fresh run's worker loads. With 10 ms compiles
// and 50 ms starts, each fresh run waits only for the rest of its worker's start; the runs and
// their outcomes are the ones they have without.
TEST_F(RunSessionTest, PrestartTakesStartsOffThePathAndChangesNoRun) {
  if (usable_cores() < 2) GTEST_SKIP() << "prestart needs fewer slots than usable cores";
  auto model = [](const CompileMessage& m, const WorkerLaunch& l, int before) {
    // The output names what the run saw: its index, its worker's history and environment size.
    return FakeExecutor::Answer{backend::Status::ok,
                                std::to_string(m.run_index) + "/" + std::to_string(before) + "/" +
                                    std::to_string(l.env.size()),
                                milliseconds(10), false};
  };
  RunPlan p = plan(6, perturb::ProcessMode::fresh);
  FakeExecutor without = fake(model);
  RunOutput a = execute(p, without);
  p.prestart = true;
  FakeExecutor with = fake(model);
  RunOutput b = execute(p, with);
  ASSERT_EQ(a.completed, 6u);
  ASSERT_EQ(b.completed, 6u);
  for (uint64_t i = 0; i < 6; ++i)
    EXPECT_EQ(a.records[i].variant, b.records[i].variant) << i;
  EXPECT_EQ(a.workers_prestarted, 0);
  EXPECT_EQ(b.workers_prestarted, 5); // every run's worker but the first's
  // Without: probe 50, then 6 x (50 start + 10 compile). With: probe 50, the first start 50,
  // then each run 10 ms plus the 40 ms left of its worker's start, the last run 10.
  EXPECT_EQ(without.ms_now(), 50 + 6 * 60);
  EXPECT_EQ(with.ms_now(), 50 + 50 + 5 * 50 + 10);
}
