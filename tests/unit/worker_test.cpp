// engine/worker and worker_main through a real worker (`kdet __worker`) on the
// fake libNVVM: what the driver records when a run cannot be set up.
#include "kdet/engine/worker.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "process_support.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace kdet;
using namespace kdet::engine;

namespace {

// A worker on the fake libNVVM, logging into `dir`. The environment may name another build
// (ctest sets it); else the paths this test was built with.
WorkerLaunch fake_launch(const std::string& dir) {
  const char* exe = std::getenv("KDET_EXE") ? std::getenv("KDET_EXE") : KDET_EXE_PATH;
  const char* fakes =
      std::getenv("KDET_FAKES_DIR") ? std::getenv("KDET_FAKES_DIR") : KDET_FAKES_PATH;
  WorkerLaunch launch;
  launch.exe = exe;
  launch.backend.kind = backend::Kind::nvvm;
  launch.backend.lib = std::string(fakes) + "/libfakenvvm.so";
  launch.env = current_environment();
  launch.log_path = dir + "/worker.log";
  return launch;
}

} // namespace

TEST(Worker, FailedChdirIsAnOutcomeNamingTheFolder) {
  std::string dir = make_temp_dir("kdet-worker-test");
  WorkerLaunch launch = fake_launch(dir);
  WorkerProcess worker;
  HelloMessage hello;
  std::string error;
  ASSERT_TRUE(worker.start(launch, hello, error)) << error;

  CompileMessage msg;
  msg.request.input = "line\n";
  msg.request.input_name = "k.ll";
  msg.request.host.cwd = dir + "/gone";
  WorkerReply reply = worker.compile(msg, std::chrono::seconds(20), -1);
  EXPECT_EQ(reply.message.result.status, backend::Status::infra_error);
  EXPECT_NE(reply.message.result.detail.find(dir + "/gone"), std::string::npos)
      << reply.message.result.detail;
  EXPECT_TRUE(worker.alive()); // the worker itself is fine: the next run goes on

  msg.request.host.cwd = dir;
  reply = worker.compile(msg, std::chrono::seconds(20), -1);
  EXPECT_EQ(reply.message.result.status, backend::Status::ok) << reply.message.result.detail;
  worker.stop();
  remove_tree(dir);
}

// quit() does not wait for the worker to exit; stop_quitting reaps what has ended and, with
// wait, everything, so no worker outlives the run that quit it.
TEST(Worker, AQuitWorkerIsReapedLaterAndNoneIsLeft) {
  std::string dir = make_temp_dir("kdet-worker-test");
  const WorkerLaunch launch = fake_launch(dir);
  std::vector<pid_t> quitting;
  std::vector<test::ProcessEnd> ends;
  for (int i = 0; i < 3; ++i) {
    WorkerProcess worker;
    HelloMessage hello;
    std::string error;
    ASSERT_TRUE(worker.start(launch, hello, error)) << error;
    const pid_t pid = worker.pid();
    ends.emplace_back(pid);
    EXPECT_EQ(worker.quit(), pid);
    EXPECT_FALSE(worker.alive());
    quitting.push_back(pid);
  }
  ASSERT_EQ(::kill(quitting[0], 0), 0) << "not reaped yet: its pid is still this process's child";
  // Once each has exited (its pidfd says so; 30 s only guards against a hang), one call reaps
  // them all without waiting.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (size_t i = 0; i < ends.size(); ++i)
    ASSERT_TRUE(ends[i].wait_until(deadline)) << "worker " << i << " told to quit did not exit";
  stop_quitting(quitting, false);
  EXPECT_TRUE(quitting.empty()) << "an ended worker was not reaped";

  WorkerProcess worker;
  HelloMessage hello;
  std::string error;
  ASSERT_TRUE(worker.start(launch, hello, error)) << error;
  const pid_t pid = worker.pid();
  quitting.push_back(worker.quit());
  stop_quitting(quitting, true);
  EXPECT_TRUE(quitting.empty());
  EXPECT_EQ(::kill(pid, 0), -1) << "reaped: no such process";
  remove_tree(dir);
}

// A pool serves only a launch that starts exactly as its worker did, each worker once; a full
// pool drops its oldest; what is left is stopped with the pool, none left running.
TEST(WorkerPool, ServesOnlyTheSameStartOnceAndLeavesNoProcess) {
  std::string dir = make_temp_dir("kdet-worker-test");
  const WorkerLaunch launch = fake_launch(dir);
  WorkerLaunch other = launch;
  other.env.push_back("KDET_POOL_TEST=1");
  EXPECT_TRUE(same_start(launch, launch));
  WorkerLaunch elsewhere = launch;
  elsewhere.log_path = dir + "/other.log";
  EXPECT_TRUE(same_start(launch, elsewhere)) << "where its log goes is not how it starts";
  EXPECT_FALSE(same_start(launch, other));
  std::vector<pid_t> pids;
  {
    WorkerPool pool(2);
    EXPECT_FALSE(pool.take(launch)) << "nothing started yet";
    pool.prestart(other);
    pool.prestart(launch);
    // take() serves only launched workers: wait for the pool's thread to launch both (30 s
    // only guards against a hang).
    constexpr auto k_guard = std::chrono::seconds(30);
    ASSERT_TRUE(pool.await_launched(2, k_guard)) << "the pool's thread never launched them";
    std::optional<WorkerProcess> w = pool.take(launch);
    ASSERT_TRUE(w) << "the pool never served its worker";
    ASSERT_TRUE(w->alive());
    pids.push_back(w->pid());
    EXPECT_EQ(pool.taken(), 1u);
    // Taking one asked for its replacement: another process, never the same one twice.
    ASSERT_TRUE(pool.await_launched(2, k_guard)) << "a taken worker was not replaced";
    std::optional<WorkerProcess> again = pool.take(launch);
    ASSERT_TRUE(again) << "a taken worker was not replaced";
    EXPECT_NE(again->pid(), w->pid()) << "a worker was served twice";
    EXPECT_EQ(pool.taken(), 2u);
    again->stop();
    // It compiles as a worker started at its turn would.
    CompileMessage msg;
    msg.request.input = "; saxpy\n";
    msg.request.input_name = "saxpy.ll";
    msg.request.workdir = dir;
    WorkerReply reply = w->compile(msg, std::chrono::seconds(20), -1);
    EXPECT_EQ(reply.message.result.status, backend::Status::ok) << reply.message.result.detail;
    // Told to quit and handed to the pool, it is reaped while the pool lives.
    std::vector<pid_t> quitting{w->quit()};
    pool.reap_later(quitting);
    EXPECT_TRUE(quitting.empty());
    ASSERT_TRUE(pool.await_reaped(1, k_guard)) << "a worker handed to reap_later was not reaped";
    EXPECT_EQ(::kill(pids[0], 0), -1) << "reaped: no such process";
    // Full: a third start drops the oldest (`other`), so `other` is not served any more, once
    // the pool's thread has launched what it holds (the two starts like `launch`).
    pool.prestart(launch);
    pool.prestart(launch);
    ASSERT_TRUE(pool.await_launched(2, k_guard));
    EXPECT_FALSE(pool.take(other)) << "the oldest start was dropped when the pool was full";
  }
  // The pool's destructor stopped and reaped the two workers it still held.
  int st = 0;
  EXPECT_EQ(::waitpid(-1, &st, WNOHANG), -1) << "a pooled worker was left a child";
  EXPECT_EQ(errno, ECHILD);
  remove_tree(dir);
}
