// engine/runner: execute() through real workers (`kdet __worker`) on the fakes:
// what it records per run, how outcomes become variants, early stops, and that
// a run's seed depends on its index alone (what a resumed scan relies on).
#include "kdet/engine/runner.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <sys/stat.h>

using namespace kdet;
using namespace kdet::engine;

namespace {

// The environment may name another build (ctest sets it); else the paths this test was built with.
std::string kdet_exe() {
  const char* e = std::getenv("KDET_EXE");
  return e ? e : KDET_EXE_PATH;
}
std::string fakes_dir() {
  const char* e = std::getenv("KDET_FAKES_DIR");
  return e ? e : KDET_FAKES_PATH;
}

class Runner : public ::testing::Test {
protected:
  void SetUp() override {
    // As kdet's main does: telling a worker that already exited (one that failed to load) to
    // quit writes to a closed pipe.
    std::signal(SIGPIPE, SIG_IGN);
    m_dir = make_temp_dir("kdet-runner-test");
    m_input = m_dir + "/k.ll";
    write_file_atomic(m_input, "line one\nline two\nline three\n");
  }
  void TearDown() override { remove_tree(m_dir); }

  // A plan on the fake libNVVM in -fake-mode=MODE.
  RunPlan nvvm_plan(const std::string& mode, uint64_t runs) const {
    RunPlan p;
    p.workers.exe = kdet_exe();
    p.backend.kind = kdet::backend::Kind::nvvm;
    p.backend.lib = fakes_dir() + "/libfakenvvm.so";
    p.input_path = m_input;
    p.options = {"-fake-mode=" + mode};
    p.runs = runs;
    p.timeout = std::chrono::seconds(20);
    p.setting.seed = 42;
    return p;
  }

  std::string m_dir;
  std::string m_input;
};

} // namespace

TEST_F(Runner, DeterministicCompilerGivesOneVariantOverEveryRun) {
  // 20 ms compiles: slot 0 does not finish every run before slot 1's worker is up.
  RunPlan plan = nvvm_plan("slow", 6);
  plan.jobs = 2;
  int recorded = 0;
  plan.on_record = [&](const RunRecord& r) {
    ++recorded;
    EXPECT_TRUE(r.done);
  };
  uint64_t last_done = 0, last_planned = 0;
  plan.setting.process = perturb::ProcessMode::same;
  RunOutput out = execute(plan, [&](uint64_t done, uint64_t planned, size_t outcomes) {
    EXPECT_EQ(outcomes, 1u);
    last_done = done;
    last_planned = planned;
  });
  EXPECT_EQ(out.completed, 6u);
  EXPECT_EQ(recorded, 6);
  EXPECT_EQ(last_done, 6u);
  EXPECT_EQ(last_planned, 6u);
  ASSERT_EQ(out.records.size(), 6u);
  ASSERT_EQ(out.variants.size(), 1u);
  EXPECT_EQ(out.variants[0].count, 6u);
  EXPECT_EQ(out.variants[0].status, backend::Status::ok);
  std::set<int> slots;
  for (uint64_t i = 0; i < 6; ++i) {
    const RunRecord& r = out.records[i];
    EXPECT_EQ(r.index, i);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.status, backend::Status::ok) << r.detail;
    EXPECT_EQ(r.variant, out.variants[0].id);
    slots.insert(r.slot);
  }
  EXPECT_EQ(slots.size(), 2u) << "--jobs 2 should use both slots";
  EXPECT_FALSE(out.interrupted);
  EXPECT_FALSE(out.stopped_early);
}

// kdet compare --stress: any successful output but B's one ends the regime; failures do not.
TEST_F(Runner, StopAtOtherThanStopsAtTheFirstOtherSuccessfulOutput) {
  RunPlan plan = nvvm_plan("echo", 6);
  plan.stop.other_than = "not an outcome id";
  RunOutput out = execute(plan);
  EXPECT_EQ(out.completed, 1u) << "the first run's output is another one";
  EXPECT_TRUE(out.stopped_early);

  plan.stop.other_than = execute(nvvm_plan("echo", 1)).variants.at(0).id;
  EXPECT_EQ(execute(plan).completed, 6u) << "B's one output every time: every run is made";

  plan = nvvm_plan("fail", 4);
  plan.stop.other_than = "not an outcome id";
  EXPECT_EQ(execute(plan).completed, 4u) << "a failure is no output to compare";
}

TEST_F(Runner, AFailingCompilerIsAVariantNotAnException) {
  RunOutput out = execute(nvvm_plan("fail", 3));
  EXPECT_EQ(out.completed, 3u);
  ASSERT_EQ(out.variants.size(), 1u);
  EXPECT_EQ(out.variants[0].status, backend::Status::compile_error);
  EXPECT_EQ(out.variants[0].count, 3u);
}

TEST_F(Runner, ACrashIsRecordedAndTheNextRunGetsAFreshWorker) {
  RunPlan plan = nvvm_plan("crash", 3);
  plan.setting.process = perturb::ProcessMode::same;
  RunOutput out = execute(plan);
  EXPECT_EQ(out.completed, 3u);
  for (const RunRecord& r : out.records)
    EXPECT_EQ(r.status, backend::Status::crashed) << r.index << ": " << r.detail;
  std::set<int> workers;
  for (const RunRecord& r : out.records)
    workers.insert(r.worker);
  EXPECT_EQ(workers.size(), 3u) << "a crashed worker must not serve another run";
}

TEST_F(Runner, StopsAtTheSecondOutcomeWhenAsked) {
  RunPlan plan = nvvm_plan("echo", 40);
  plan.backend.kind = kdet::backend::Kind::exec;
  plan.backend.lib.clear();
  plan.backend.command = fakes_dir() + "/fake_cc pid {input} {output}";
  plan.backend.output_ext = "ptx";
  plan.options.clear();
  plan.stop.outcomes = 2;
  RunOutput out = execute(plan);
  EXPECT_TRUE(out.stopped_early);
  EXPECT_EQ(out.variants.size(), 2u);
  EXPECT_LT(out.completed, 40u);
  EXPECT_GE(out.completed, 2u);
}

TEST_F(Runner, ARunsSeedDependsOnItsIndexAloneAndSkippedRunsStayUndone) {
  RunOutput whole = execute(nvvm_plan("echo", 5));
  RunPlan tail = nvvm_plan("echo", 5);
  tail.first_index = 3;
  RunOutput rest = execute(tail);
  EXPECT_EQ(rest.completed, 2u);
  ASSERT_EQ(rest.records.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(rest.records[i].done, i >= 3) << i;
    if (i >= 3) {
      EXPECT_EQ(rest.records[i].seed, whole.records[i].seed) << i;
    }
  }
  EXPECT_NE(whole.records[3].seed, whole.records[4].seed);
}

// Fresh-process workers launched while the previous compile runs (RunPlan::prestart) are still
// one exec each: each its own process and address-space layout, and the launch (ASLR, the run's
// environment) is the one the run would have had at its turn.
TEST_F(Runner, PrestartedFreshWorkersAreEachTheirOwnProcess) {
  RunPlan plan = nvvm_plan("loadaddr", 6);
  plan.setting.process = perturb::ProcessMode::fresh;
  plan.setting.heap = perturb::HeapMode::none;
  RunOutput out = execute(plan);
  ASSERT_EQ(out.completed, 6u);
  std::set<int> pids;
  for (const auto& r : out.records)
    pids.insert(r.worker_pid);
  EXPECT_EQ(pids.size(), 6u);
  EXPECT_GE(out.variants.size(), 5u) << "each fresh worker loads the library at its own address";
  EXPECT_EQ(out.workers_prestarted, 5) << "every run after the first found its worker started";

  plan.setting.aslr = false;
  RunOutput fixed = execute(plan);
  ASSERT_EQ(fixed.completed, 6u);
  EXPECT_EQ(fixed.variants.size(), 1u) << "a prestarted worker keeps ASLR off";
}

// With history = N each chain of N same-process runs starts in a worker that compiled nothing;
// that worker is launched while the previous chain's last compile runs, and each run keeps its
// place in its worker with or without prestart.
TEST_F(Runner, ChainWorkersArePrestartedAndKeepTheirHistory) {
  RunPlan plan = nvvm_plan("loadaddr", 8);
  plan.setting.process = perturb::ProcessMode::same;
  plan.setting.heap = perturb::HeapMode::none;
  plan.setting.history = 3;
  RunOutput with = execute(plan);
  plan.workers.prestart = false;
  RunOutput without = execute(plan);
  ASSERT_EQ(with.completed, 8u);
  ASSERT_EQ(without.completed, 8u);
  EXPECT_EQ(without.workers_prestarted, 0);
  EXPECT_EQ(with.workers_prestarted, 2) << "chains 2 and 3 found their worker started";
  for (const RunOutput* out : {&with, &without}) {
    EXPECT_EQ(out->variants.size(), 3u) << "one library address per chain's worker";
    for (size_t i = 0; i < 8; ++i) {
      const RunRecord& r = out->records[i];
      EXPECT_EQ(r.nth_in_worker, static_cast<int>(i % 3) + 1) << "run " << i + 1;
      EXPECT_EQ(r.worker_pid, out->records[i - i % 3].worker_pid) << "run " << i + 1;
      if (i >= 3) {
        EXPECT_NE(r.worker_pid, out->records[i - 3].worker_pid) << "run " << i + 1;
      }
    }
  }
}

// A worker a call asked the pool for serves the next call's first run as a worker started at
// its turn would: a process of its own (its own library address) that compiled nothing. A call
// that starts its workers otherwise (another environment) is not served it.
TEST_F(Runner, APooledWorkerServesTheNextCallAsANewOne) {
  if (kdet::usable_cores() < 2) GTEST_SKIP() << "prestart needs a spare core";
  auto pool = std::make_shared<WorkerPool>(2);
  RunPlan plan = nvvm_plan("loadaddr", 3);
  plan.setting.process = perturb::ProcessMode::same;
  plan.setting.heap = perturb::HeapMode::none;
  plan.workers.pool = pool;
  RunOutput first = execute(plan); // asks for a worker while its last compile runs
  // The pool's thread launches it; on a loaded machine that can come after execute() returns,
  // so the test waits for that launch (30 s only guards against a hang).
  ASSERT_TRUE(pool->await_launched(1, std::chrono::seconds(30)))
      << "the worker asked for was never launched";
  RunOutput second = execute(plan);
  ASSERT_EQ(first.completed, 3u);
  ASSERT_EQ(second.completed, 3u);
  EXPECT_EQ(pool->taken(), 1u);
  EXPECT_EQ(second.workers_prestarted, 1);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(second.records[i].nth_in_worker, static_cast<int>(i) + 1) << "run " << i + 1;
    EXPECT_EQ(second.records[i].worker_pid, second.records[0].worker_pid);
  }
  EXPECT_NE(second.records[0].worker_pid, first.records[0].worker_pid);
  plan.workers.pool.reset();
  plan.setting.env = {"KDET_POOL_TEST=1"};
  plan.workers.pool = pool;
  RunOutput third = execute(plan);
  ASSERT_EQ(third.completed, 3u);
  EXPECT_EQ(pool->taken(), 1u) << "a worker started with another environment was served";
  EXPECT_EQ(third.workers_prestarted, 0);
}

TEST_F(Runner, PrestartGivesEachRunTheOutcomeItHasWithout) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // time=vary preloads libfaketime into the worker, ahead of the sanitizer's runtime, which then
  // refuses to start (the e2e tests of the time factor are skipped in these builds likewise).
  GTEST_SKIP() << "a sanitizer build: libfaketime cannot be preloaded ahead of its runtime";
#endif
  if (!std::filesystem::exists("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"))
    GTEST_SKIP() << "libfaketime not installed (apt-get install faketime)";
  // time=vary: each run's clock comes in its fresh worker's initial environment.
  RunPlan plan = nvvm_plan("date", 6);
  plan.setting.process = perturb::ProcessMode::fresh;
  plan.setting.heap = perturb::HeapMode::none;
  perturb::level_of(plan.setting, "time") = perturb::Level::vary;
  RunOutput with = execute(plan);
  plan.workers.prestart = false;
  RunOutput without = execute(plan);
  EXPECT_EQ(without.workers_prestarted, 0);
  ASSERT_EQ(with.completed, 6u);
  ASSERT_EQ(without.completed, 6u);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(with.records[i].variant, without.records[i].variant) << "run " << i + 1;
  EXPECT_GE(with.variants.size(), 2u)
      << "time=vary must show in the date mode, or this proves nothing";
}

// A split round's queue hands out its runs once each, in units that end at multiples of the
// unit (a chain kept whole), and no run past a stop.
TEST_F(Runner, ACompilerOtherThanTheOnePlannedIsNamedAndATouchedOneIsNot) {
  // The compiler as a scan planned it: a copy of the fake, stamped and hashed now.
  const std::string lib = m_dir + "/libnvvm.so";
  std::filesystem::copy_file(fakes_dir() + "/libfakenvvm.so", lib);
  const std::optional<kdet::FileStamp> planned = kdet::file_stamp(lib);
  ASSERT_TRUE(planned);
  RunPlan plan = nvvm_plan("echo", 2);
  plan.backend.lib = lib;
  plan.known.file = CompilerFile{*planned, kdet::hash_file(lib)};
  RunOutput same = execute(plan);
  EXPECT_EQ(same.compiler_changed, "");
  EXPECT_EQ(same.compiler_file, plan.known.file);

  // Touched: a new stamp, the same bytes: no change.
  std::filesystem::last_write_time(lib, std::filesystem::file_time_type::clock::now() -
                                            std::chrono::hours(24));
  EXPECT_EQ(execute(plan).compiler_changed, "");
  // An identical copy renamed over it (another inode, the same bytes): no change either.
  const std::string copy = m_dir + "/copy.so";
  std::filesystem::copy_file(lib, copy);
  std::filesystem::rename(copy, lib);
  EXPECT_EQ(execute(plan).compiler_changed, "");

  // Replaced by other bytes after the plan, before the runs: every run used another compiler
  // than the one planned, though nothing in the runs themselves could tell.
  const std::string other = m_dir + "/other.so";
  std::filesystem::copy_file(lib, other);
  write_file_atomic(other, read_file(other) + "x");
  std::filesystem::rename(other, lib);
  RunOutput replaced = execute(plan);
  EXPECT_NE(replaced.compiler_changed.find("a new worker found that " + lib +
                                           " holds other bytes than when the runs began"),
            std::string::npos)
      << replaced.compiler_changed;
  EXPECT_EQ(replaced.warnings.back(), replaced.compiler_changed);
  EXPECT_EQ(replaced.completed, 0u) << "no run compiles with a compiler other than the planned";

  // A FIFO in its place: each worker refuses it at once, never opening it (dlopen would wait
  // for a writer until the worker start times out, 60 s a run).
  std::filesystem::remove(lib);
  ASSERT_EQ(::mkfifo(lib.c_str(), 0600), 0);
  plan.known.identity = replaced.identity; // no probe: the runs' own workers load it
  const auto t0 = std::chrono::steady_clock::now();
  RunOutput fifo = execute(plan);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  ASSERT_EQ(fifo.completed, 2u);
  for (const auto& r : fifo.records) {
    EXPECT_EQ(r.status, kdet::backend::Status::infra_error);
    EXPECT_NE(r.detail.find("not a regular file"), std::string::npos) << r.detail;
  }
}

TEST_F(Runner, ACompilerReplacedUnderALiveWorkerIsNoChange) {
  // --process same: the one worker loaded the compiler once; replacing the file after changes
  // nothing it compiles with, so there is nothing to report.
  const std::string lib = m_dir + "/libnvvm.so";
  std::filesystem::copy_file(fakes_dir() + "/libfakenvvm.so", lib);
  RunPlan plan = nvvm_plan("echo", 3);
  plan.backend.lib = lib;
  plan.setting.process = kdet::perturb::ProcessMode::same;
  plan.on_record = [&](const RunRecord& r) {
    if (r.index != 0) return;
    const std::string other = m_dir + "/other.so";
    std::filesystem::copy_file(lib, other);
    write_file_atomic(other, read_file(other) + "x");
    std::filesystem::rename(other, lib);
  };
  RunOutput out = execute(plan);
  EXPECT_EQ(out.compiler_changed, "");
  EXPECT_EQ(out.completed, 3u);
  EXPECT_EQ(out.workers_started, 1);
}

TEST(RunQueue, HandsOutUnitsAlignedToTheUnitUntilStopped) {
  using Unit = RunQueue::Unit;
  RunQueue q(7, 20, 3);
  std::vector<Unit> got;
  while (auto u = q.take())
    got.push_back(*u);
  const std::vector<Unit> want = {{7, 9}, {9, 12}, {12, 15}, {15, 18}, {18, 20}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(q.left(), 0u);

  RunQueue r(0, 10, 1);
  ASSERT_TRUE(r.take());
  EXPECT_EQ(r.left(), 9u);
  r.stop(0);
  EXPECT_EQ(r.left(), 0u);
  EXPECT_FALSE(r.take()) << "a piece reached stop_at_outcomes at run 0: no run after it";
  EXPECT_TRUE(r.wanted(0));
  EXPECT_FALSE(r.wanted(1));
}

// A `both` round without history: its same-process runs (odd indices, one worker's history) all
// go to the first piece that takes a run, which takes every run in index order while alone (so
// it makes the serial order); other pieces take only fresh runs. A stop at run i leaves every run
// before it to be handed out, whichever kind, and none after it; a closed queue hands out nothing.
TEST(RunQueue, OnePieceHoldsTheSharedWorkersRuns) {
  using Unit = RunQueue::Unit;
  auto alone = RunQueue::shared_worker(0, 7);
  bool holds = false;
  std::vector<Unit> got;
  while (auto u = alone->take(holds))
    got.push_back(*u);
  EXPECT_TRUE(holds);
  EXPECT_EQ(got, (std::vector<Unit>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}}));

  auto q = RunQueue::shared_worker(0, 8);
  EXPECT_EQ(q->left(), 8u);
  bool a = false, b = false;
  ASSERT_EQ(q->take(a), (Unit{0, 1}));
  EXPECT_TRUE(a) << "the first piece to take a run holds the shared worker";
  ASSERT_EQ(q->take(b), (Unit{2, 3})) << "another piece takes only fresh runs";
  EXPECT_FALSE(b);
  ASSERT_EQ(q->take(b), (Unit{4, 5}));
  ASSERT_EQ(q->take(a), (Unit{1, 2}));
  ASSERT_EQ(q->take(a), (Unit{3, 4}));
  q->stop(3); // the holder saw its second outcome at run 3
  EXPECT_EQ(q->left(), 0u) << "run 4 was handed out already; 5, 6 and 7 come after the stop";
  EXPECT_FALSE(q->take(a));
  EXPECT_FALSE(q->take(b));

  auto r = RunQueue::shared_worker(0, 8);
  bool c = false, d = false;
  ASSERT_EQ(r->take(c), (Unit{0, 1}));
  ASSERT_EQ(r->take(d), (Unit{2, 3}));
  ASSERT_EQ(r->take(d), (Unit{4, 5}));
  r->stop(4); // a fresh piece saw the second outcome at run 4, before the holder's run 1
  EXPECT_EQ(r->left(), 2u) << "runs 1 and 3, before the stop, are still to be made";
  EXPECT_FALSE(r->take(d)) << "no fresh run is left before the stop";
  ASSERT_EQ(r->take(c), (Unit{1, 2}));
  ASSERT_EQ(r->take(c), (Unit{3, 4}));
  EXPECT_FALSE(r->take(c));

  // Alone, the holder keeps index order; once helped, it takes its same-process runs first.
  auto h = RunQueue::shared_worker(0, 9);
  bool holder = false, helper = false;
  ASSERT_EQ(h->take(holder), (Unit{0, 1}));
  ASSERT_EQ(h->take(holder), (Unit{1, 2}));
  ASSERT_EQ(h->take(holder), (Unit{2, 3}));
  ASSERT_EQ(h->take(helper), (Unit{4, 5}));
  ASSERT_EQ(h->take(holder), (Unit{3, 4}));
  ASSERT_EQ(h->take(holder), (Unit{5, 6}));
  ASSERT_EQ(h->take(holder), (Unit{7, 8})) << "run 6 is fresh: the helper's to take";
  ASSERT_EQ(h->take(holder), (Unit{6, 7})) << "no same-process run left: fresh ones";
  ASSERT_EQ(h->take(helper), (Unit{8, 9}));
  EXPECT_FALSE(h->take(holder));

  auto e = RunQueue::shared_worker(0, 8);
  e->close();
  EXPECT_EQ(e->left(), 0u);
  EXPECT_FALSE(e->take());
  EXPECT_FALSE(e->wanted(0));
}
