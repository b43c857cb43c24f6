// engine::execute's planner (engine/run_session.hpp) against a scripted executor with a virtual
// clock (fake_executor.hpp): which worker each run gets, when workers start and go, early
// stops, failures and interrupts, each decided exactly, with no process and no sleep. The
// process truth (real workers, real pipes) is tests/unit/runner_test.cpp's.
#include "fake_executor.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_queue.hpp"
#include "kdet/engine/run_session.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/session_loop.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/folder_stock.hpp"
#include "kdet/util/fs.hpp"

#include <dirent.h>
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
    perturb::level_of(p.setting, "pid") = perturb::Level::inherit;
    p.workers.prestart = false;
    return p;
  }
  FakeExecutor fake(FakeExecutor::Model model) const {
    return FakeExecutor(std::move(model), milliseconds(50), m_compiler);
  }

  std::string m_dir, m_input, m_compiler;
};

// A compiler whose output is its first option: two plans that differ in it tell their runs apart.
FakeExecutor::Answer first_option(const CompileMessage& m, const WorkerLaunch&, int) {
  return {backend::Status::ok, m.request.options.at(0), milliseconds(10), false};
}

// Drives `sessions` on one executor through a SessionLoop until each has ended; the sessions
// in the order they ended, each with the virtual time then and its error.
struct EndedAt {
  RunSession* session;
  long long ms;
  std::exception_ptr error;
};
std::vector<EndedAt> drive(FakeExecutor& ex, const std::vector<RunSession*>& sessions) {
  SessionLoop loop(ex);
  for (auto* s : sessions)
    loop.add(*s);
  std::vector<EndedAt> ended;
  while (loop.size() > 0)
    for (const auto& e : loop.step())
      ended.push_back({e.session, ex.ms_now(), e.error});
  return ended;
}

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
  p.stop.outcomes = 2;
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
  p.stop.after_failures = 2;
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

// Runs that meet kdet's own error beside runs that compile are no second outcome: the session
// does not stop at them, and the verdict is over the runs that reached the compiler.
TEST_F(RunSessionTest, KdetsOwnErrorsBesideCompilesAreNoOutcomeOfTheCompiler) {
  FakeExecutor ex = fake(always_a);
  ex.fail_starts_after(4); // the probe and three fresh workers load; the rest fail to start
  RunPlan p = plan(6, perturb::ProcessMode::fresh);
  p.stop.outcomes = 2;
  RunOutput out = execute(p, ex);
  EXPECT_FALSE(out.stopped_early);
  ASSERT_EQ(out.completed, 6u);
  ASSERT_EQ(out.variants.size(), 2u);
  Assessment a = assess(out);
  EXPECT_EQ(a.verdict, Verdict::deterministic);
  EXPECT_EQ(a.exit_code, k_exit_deterministic);
  EXPECT_EQ(a.kdet_errors, 3u);
  EXPECT_EQ(a.runs, 3u);
  EXPECT_EQ(a.outcomes, 1u);
  EXPECT_EQ(a.differing, 0u);
  EXPECT_EQ(a.upper_bound, stats::upper_bound(0, 3, a.confidence));
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
  p.workers.prestart = true;
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

// With a slot on every usable core each slot still starts its next run's worker while its
// compile runs (one spare a slot): a census at -j = cores otherwise leaves each slot without a
// compile for a whole compiler load every run (issue 46).
TEST_F(RunSessionTest, ASlotOnEveryCoreStillPrestartsItsNextWorker) {
  const int cores = static_cast<int>(usable_cores());
  const uint64_t runs = 4 * static_cast<uint64_t>(cores);
  RunPlan p = plan(runs, perturb::ProcessMode::fresh, cores);
  p.workers.prestart = true;
  FakeExecutor ex = fake(always_a);
  RunOutput out = execute(p, ex);
  ASSERT_EQ(out.completed, runs);
  // Each slot's first worker starts at its turn; every later run's was started ahead.
  EXPECT_EQ(out.workers_prestarted, static_cast<int>(runs) - cores);
  // Probe 50, each slot's first start 50, then per slot 4 runs of 10 ms, three of them after
  // the 40 ms left of a worker's start.
  EXPECT_EQ(ex.ms_now(), 50 + 50 + 3 * 50 + 10);
}

// A session never waits: its compiler's load is an event like any other, and nothing is
// compiled before that worker's hello.
TEST_F(RunSessionTest, TheLoadIsAnEventAndBeginReturnsBeforeIt) {
  FakeExecutor ex = fake(always_a);
  const RunPlan p = plan(2, perturb::ProcessMode::same);
  RunSession session(p, {}, ex);
  session.begin();
  EXPECT_FALSE(session.done());
  EXPECT_EQ(ex.count(Kind::launch), 1u);
  EXPECT_EQ(ex.count(Kind::compile), 0u);
  EXPECT_TRUE(session.owns(1));
  EXPECT_FALSE(session.owns(2));
  EXPECT_EQ(ex.ms_now(), 0);
  auto hello = ex.next();
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->kind, ExecutorEvent::Kind::started);
  session.on_event(*hello);
  EXPECT_EQ(ex.count(Kind::compile), 1u); // run 0, at once, in the probe
  while (!session.done())
    session.on_event(*ex.next());
  RunOutput out = session.output();
  EXPECT_EQ(out.completed, 2u);
  EXPECT_EQ(out.workers_started, 1);
  EXPECT_DOUBLE_EQ(out.worker_start_seconds, 0.050);
}

// Two sessions on one executor run side by side: each takes only its own workers' events, and
// each run comes out as it does when its session runs alone.
TEST_F(RunSessionTest, TwoSessionsShareOneExecutorAndMakeTheRunsTheyMakeAlone) {
  RunPlan pa = plan(12, perturb::ProcessMode::both, 2);
  pa.options = {"A"};
  RunPlan pb = plan(9, perturb::ProcessMode::same, 3);
  pb.options = {"B"};
  pb.setting.seed = 11;
  FakeExecutor ex = fake(first_option);
  RunSession a(pa, {}, ex), b(pb, {}, ex);
  drive(ex, {&a, &b});
  ASSERT_TRUE(a.done());
  ASSERT_TRUE(b.done());
  RunOutput oa = a.output(), ob = b.output();
  FakeExecutor alone_a = fake(first_option), alone_b = fake(first_option);
  RunOutput ra = execute(pa, alone_a), rb = execute(pb, alone_b);
  // Both sessions' slots compiled at once.
  EXPECT_GT(ex.most_busy(), std::max(alone_a.most_busy(), alone_b.most_busy()));
  // Together they take as long as the longer alone, not the sum.
  EXPECT_EQ(ex.ms_now(), std::max(alone_a.ms_now(), alone_b.ms_now()));
  for (auto [together, alone] : {std::pair{&oa, &ra}, std::pair{&ob, &rb}}) {
    ASSERT_EQ(together->completed, alone->plan.runs);
    ASSERT_EQ(together->variants.size(), 1u);
    EXPECT_EQ(together->variants[0].artifacts.at(0).size, 1u);
    EXPECT_EQ(together->workers_started, alone->workers_started);
    for (size_t i = 0; i < together->records.size(); ++i) {
      const RunRecord &t = together->records[i], &l = alone->records[i];
      EXPECT_EQ(t.variant, l.variant) << i;
      EXPECT_EQ(t.seed, l.seed) << i;
      EXPECT_EQ(t.fresh_process, l.fresh_process) << i;
      EXPECT_EQ(t.nth_in_worker, l.nth_in_worker) << i;
      EXPECT_EQ(t.worker, l.worker) << i;
      EXPECT_EQ(t.slot, l.slot) << i;
    }
  }
  EXPECT_NE(oa.variants[0].id, ob.variants[0].id); // "A" and "B"
}

// The executor's interrupt reaches every session: each keeps what it recorded.
TEST_F(RunSessionTest, AnInterruptEndsEverySessionOnTheExecutor) {
  RunPlan pa = plan(10, perturb::ProcessMode::same);
  pa.options = {"A"};
  RunPlan pb = plan(10, perturb::ProcessMode::same);
  pb.options = {"B"};
  FakeExecutor ex = fake(first_option);
  ex.interrupt_at(milliseconds(50 + 35)); // during each session's fourth run
  RunSession a(pa, {}, ex), b(pb, {}, ex);
  drive(ex, {&a, &b});
  for (RunSession* s : {&a, &b}) {
    ASSERT_TRUE(s->done());
    RunOutput out = s->output();
    EXPECT_TRUE(out.interrupted);
    EXPECT_EQ(out.completed, 3u);
  }
}

// An interrupt during the compiler's load is the call's interrupt, not a compiler that
// cannot load.
TEST_F(RunSessionTest, AnInterruptDuringTheLoadIsAnInterrupt) {
  FakeExecutor ex = fake(always_a);
  ex.interrupt_at(milliseconds(20)); // the probe says hello at 50
  EXPECT_THROW(execute(plan(3, perturb::ProcessMode::same), ex), Interrupted);
  EXPECT_EQ(ex.count(Kind::compile), 0u);
}

// A split round as one session that grows: slots added while it runs (idle compile slots of
// its driver) take the round's runs from its queue, each with the outcome it has when one slot
// makes the round, and the round ends sooner.
TEST_F(RunSessionTest, AddedSlotsTakeTheRoundsRunsAndChangeNoOutcome) {
  auto model = [](const CompileMessage& m, const WorkerLaunch& l, int before) {
    return FakeExecutor::Answer{backend::Status::ok,
                                std::to_string(m.run_index) + "/" + std::to_string(before) + "/" +
                                    std::to_string(l.env.size()),
                                milliseconds(10), false};
  };
  RunPlan serial = plan(12, perturb::ProcessMode::fresh);
  FakeExecutor alone = fake(model);
  RunOutput one = execute(serial, alone);
  RunPlan grown = serial;
  grown.shared.queue = std::make_shared<RunQueue>(0, 12, 1);
  FakeExecutor ex = fake(model);
  RunSession session(grown, {}, ex);
  session.begin();
  EXPECT_EQ(session.busy_slots(), 1);
  session.on_event(*ex.next()); // the probe's hello: slot 0 launches run 0's worker
  EXPECT_EQ(session.add_slots(3), 3);
  EXPECT_EQ(session.busy_slots(), 4);
  while (!session.done())
    session.on_event(*ex.next());
  RunOutput out = session.output();
  ASSERT_EQ(out.completed, 12u);
  EXPECT_EQ(ex.most_busy(), 4);
  EXPECT_EQ(alone.most_busy(), 1);
  std::set<int> slots;
  for (uint64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(out.records[i].variant, one.records[i].variant) << i;
    slots.insert(out.records[i].slot);
  }
  EXPECT_EQ(slots, (std::set<int>{0, 1, 2, 3}));
  // Alone: the probe, then 12 x (50 start + 10 compile). Grown: 3 rounds of 4 runs.
  EXPECT_EQ(alone.ms_now(), 50 + 12 * 60);
  EXPECT_EQ(ex.ms_now(), 50 + 3 * 60);
}

// A session takes no more slots than it has runs to hand out, and slots asked for during the
// compiler's load open with the others.
TEST_F(RunSessionTest, AddedSlotsAreBoundedByTheRunsLeft) {
  FakeExecutor ex = fake(always_a);
  const RunPlan p = plan(3, perturb::ProcessMode::same);
  RunSession session(p, {}, ex);
  session.begin();
  EXPECT_EQ(session.add_slots(1), 1); // during the load
  EXPECT_EQ(session.busy_slots(), 2);
  session.on_event(*ex.next());
  EXPECT_EQ(ex.count(Kind::compile), 1u); // slot 0 in the probe; slot 1 launches its worker
  EXPECT_EQ(ex.count(Kind::launch), 2u);
  EXPECT_EQ(session.add_slots(5), 1); // run 2 is the only one no slot has taken
  EXPECT_EQ(session.add_slots(5), 0);
  EXPECT_EQ(session.busy_slots(), 3);
  while (!session.done())
    session.on_event(*ex.next());
  EXPECT_EQ(session.busy_slots(), 0);
  RunOutput out = session.output();
  EXPECT_EQ(out.completed, 3u);
  EXPECT_EQ(out.workers_started, 3);
}

// A stop at the second outcome holds in a grown session: every run of the serial round up to
// the one that showed it is made, none after it is handed out.
TEST_F(RunSessionTest, AGrownSessionStopsWhereTheSerialRoundStops) {
  auto model = [](const CompileMessage& m, const WorkerLaunch&, int) {
    return FakeExecutor::Answer{backend::Status::ok, m.run_index == 5 ? "B" : "A", milliseconds(10),
                                false};
  };
  RunPlan p = plan(40, perturb::ProcessMode::fresh);
  p.stop.outcomes = 2;
  p.shared.queue = std::make_shared<RunQueue>(0, 40, 1);
  FakeExecutor ex = fake(model);
  RunSession session(p, {}, ex);
  session.begin();
  session.on_event(*ex.next());
  EXPECT_EQ(session.add_slots(2), 2);
  while (!session.done())
    session.on_event(*ex.next());
  RunOutput out = session.output();
  EXPECT_TRUE(out.stopped_early);
  for (uint64_t i = 0; i <= 5; ++i)
    EXPECT_TRUE(out.records[i].done) << i;
  EXPECT_EQ(out.variants.size(), 2u);
  EXPECT_LE(out.completed, 5u + 3u); // at most the runs in flight when run 5 ended
  EXPECT_EQ(p.shared.queue->left(), 0u);
}

// The loop gives back each session when it ends, while the others go on.
TEST_F(RunSessionTest, TheLoopGivesBackEachSessionWhenItEnds) {
  RunPlan pa = plan(2, perturb::ProcessMode::same);
  pa.options = {"A"};
  RunPlan pb = plan(20, perturb::ProcessMode::same);
  pb.options = {"B"};
  FakeExecutor ex = fake(first_option);
  RunSession a(pa, {}, ex), b(pb, {}, ex);
  auto ended = drive(ex, {&b, &a});
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_EQ(ended[0].session, &a);
  EXPECT_EQ(ended[0].ms, 50 + 2 * 10); // its two runs after its probe's hello
  EXPECT_EQ(ended[1].session, &b);
  EXPECT_EQ(ended[1].ms, 50 + 20 * 10);
  EXPECT_EQ(a.output().completed, 2u);
  EXPECT_EQ(b.output().completed, 20u);
}

// A compiler that cannot load ends its own session with the error, not the loop: the session
// whose compiler loaded makes its runs.
TEST_F(RunSessionTest, ASessionThatCannotLoadEndsAloneWithItsError) {
  RunPlan pa = plan(4, perturb::ProcessMode::same);
  pa.options = {"A"};
  RunPlan pb = plan(4, perturb::ProcessMode::same);
  pb.options = {"B"};
  FakeExecutor ex = fake(first_option);
  ex.fail_starts_after(1); // a's probe starts, b's does not
  RunSession a(pa, {}, ex), b(pb, {}, ex);
  auto ended = drive(ex, {&a, &b});
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_EQ(ended[0].session, &b);
  ASSERT_TRUE(ended[0].error);
  EXPECT_THROW(std::rethrow_exception(ended[0].error), Error);
  EXPECT_EQ(ended[1].session, &a);
  EXPECT_FALSE(ended[1].error);
  RunOutput out = a.output();
  EXPECT_EQ(out.completed, 4u);
  ASSERT_EQ(out.variants.size(), 1u);
}

// A grown session records its runs out of index order: the run that brings the second outcome
// may come after later runs, so the queue stops where the runs recorded show that the serial
// round stops, not at that run. Here chains of 4 runs (both, history = 2) go to two slots; run
// 0 gives "C" after run 4 gave "A": stopping the queue at run 0 would leave run 1, which the
// serial round makes (it stops there), unmade.
TEST_F(RunSessionTest, AGrownSessionStopsWhereTheRunsRecordedShowTheSerialStop) {
  auto model = [](const CompileMessage& m, const WorkerLaunch&, int) {
    return FakeExecutor::Answer{backend::Status::ok, m.run_index == 0 ? "C" : "A",
                                milliseconds(m.run_index == 0 ? 40 : 10), false};
  };
  RunPlan p = plan(8, perturb::ProcessMode::both);
  p.setting.history = 2;
  p.stop.outcomes = 2;
  p.shared.queue = std::make_shared<RunQueue>(0, 8, 4);
  FakeExecutor ex = fake(model);
  RunSession session(p, {}, ex);
  session.begin();
  session.on_event(*ex.next());
  EXPECT_EQ(session.add_slots(1), 1);
  while (!session.done())
    session.on_event(*ex.next());
  RunOutput out = session.output();
  ASSERT_TRUE(out.records[0].done);
  ASSERT_TRUE(out.records[4].done);
  EXPECT_LT(out.records[4].started, out.records[0].started + 0.040) << "run 4 ended first";
  EXPECT_TRUE(out.records[1].done) << "the serial round's second run";
  EXPECT_EQ(out.records[1].variant, out.records[4].variant);
  EXPECT_EQ(out.variants.size(), 2u);
}

// cwd, tmpdir and path vary: each run's folders are new paths, empty when its compile starts,
// whatever the run before left in its own; a scan's rounds (one stock, RunPlan::folders) hand
// the folders on by rename rather than make and remove them for every run.
TEST_F(RunSessionTest, EachRunGetsEmptyFoldersOfItsOwnAtNewPaths) {
  auto folders = std::make_shared<FolderStock>(true);
  std::set<std::string> cwds, tmpdirs, inputs;
  int not_empty = 0, runs_seen = 0;
  auto empty = [](const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return false;
    int n = 0;
    while (const dirent* e = ::readdir(d))
      n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    ::closedir(d);
    return n == 0;
  };
  auto model = [&](const CompileMessage& m, const WorkerLaunch& launch, int) {
    ++runs_seen;
    // A fresh worker has its run's variables in its environment, a shared one gets them sent.
    std::string tmpdir;
    for (const auto* env : {&launch.env, &m.request.host.env})
      for (const auto& e : *env)
        if (e.rfind("TMPDIR=", 0) == 0) tmpdir = e.substr(7);
    const std::string input_dir = m.request.input_path.substr(0, m.request.input_path.rfind('/'));
    for (const auto& d : {m.request.host.cwd, tmpdir, input_dir})
      not_empty += !empty(d);
    cwds.insert(m.request.host.cwd);
    tmpdirs.insert(tmpdir);
    inputs.insert(m.request.input_path);
    // A compiler that leaves a file in its TMPDIR every third run.
    if (m.run_index % 3 == 0) write_file_atomic(tmpdir + "/left.tmp", "x");
    return FakeExecutor::Answer{backend::Status::ok, "A", milliseconds(10), false};
  };
  for (int round = 0; round < 2; ++round) {
    FakeExecutor ex = fake(model);
    RunPlan p = plan(12, perturb::ProcessMode::both, 2);
    p.setting.seed = 7 + static_cast<uint64_t>(round);
    perturb::level_of(p.setting, "cwd") = perturb::Level::vary;
    perturb::level_of(p.setting, "tmpdir") = perturb::Level::vary;
    perturb::level_of(p.setting, "path") = perturb::Level::vary;
    p.shared.folders = folders;
    RunOutput out = execute(p, ex);
    EXPECT_EQ(out.completed, 12u);
  }
  EXPECT_EQ(runs_seen, 24);
  EXPECT_EQ(not_empty, 0);
  EXPECT_EQ(cwds.size(), 24u);
  EXPECT_EQ(tmpdirs.size(), 24u);
  EXPECT_EQ(inputs.size(), 24u);
  // Three folders a run, two slots: at most six made by mkdir in the first round, plus one for
  // each TMPDIR a run left a file in; every other one was a folder handed on.
  EXPECT_EQ(folders->made() + folders->reused(), 72u);
  EXPECT_LE(folders->made(), 6u + 8u);
  EXPECT_GE(folders->reused(), 72u - 14u);
}

// A held session (scan's next round, begun while another round's last compile runs) starts its
// first run's worker at once and sends nothing until released; then its runs are the ones an
// unheld session makes, and the first counts from the release, its worker ready by then.
TEST_F(RunSessionTest, AHeldSessionLoadsItsFirstWorkerAndCompilesOnlyOnceReleased) {
  auto model = [](const CompileMessage& m, const WorkerLaunch& l, int before) {
    return FakeExecutor::Answer{backend::Status::ok,
                                std::to_string(m.run_index) + "/" + std::to_string(before) + "/" +
                                    std::to_string(l.env.size()),
                                milliseconds(10), false};
  };
  RunPlan p = plan(3, perturb::ProcessMode::fresh);
  p.workers.prestart = true;
  p.known.identity = backend::Identity{"nvvm", m_compiler, "", "fake 1.0"};
  FakeExecutor alone = fake(model);
  RunOutput a = execute(p, alone);
  FakeExecutor ex = fake(model);
  RunSession session(p, {}, ex);
  ASSERT_TRUE(session.hold());
  session.begin();
  EXPECT_EQ(ex.count(Kind::launch), 1u);
  EXPECT_EQ(session.busy_slots(), 0) << "a held session holds no compile slot";
  auto hello = ex.next();
  ASSERT_TRUE(hello);
  session.on_event(*hello);
  EXPECT_EQ(ex.count(Kind::compile), 0u) << "compiled while held";
  EXPECT_FALSE(ex.next()) << "nothing in flight while held";
  EXPECT_FALSE(session.done());
  EXPECT_EQ(ex.ms_now(), 50); // the worker said hello
  const double released = std::chrono::duration<double>(ex.now().time_since_epoch()).count();
  session.release();
  EXPECT_EQ(ex.count(Kind::compile), 1u);
  EXPECT_EQ(session.busy_slots(), 1);
  while (!session.done())
    session.on_event(*ex.next());
  RunOutput b = session.output();
  ASSERT_EQ(b.completed, 3u);
  for (uint64_t i = 0; i < 3; ++i)
    EXPECT_EQ(a.records[i].variant, b.records[i].variant) << i;
  EXPECT_DOUBLE_EQ(b.records[0].setup_seconds, 0.0);
  EXPECT_DOUBLE_EQ(b.records[0].started, released);
  // Not held: an exec compiler's worker loads nothing.
  RunPlan e = p;
  e.backend.kind = backend::Kind::exec;
  RunSession exec_session(e, {}, ex);
  EXPECT_FALSE(exec_session.hold());
}
