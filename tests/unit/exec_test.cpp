// util/exec and util/reap: how children end, fd mappings, no fd leaked, and no
// process left behind (orphans, the PID-namespace reaper).
#include "kdet/util/exec.hpp"
#include "kdet/util/reap.hpp"
#include "process_support.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kdet;
using namespace std::chrono;

namespace {

SpawnOptions shell(const std::string& script) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  return o;
}

// True when no process with `pid` exists any more (or it is a zombie of someone else's).
bool gone(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return true;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// The pids of processes whose environment holds `marker` (scoped to this test).
std::vector<pid_t> processes_marked(const std::string& marker) {
  std::vector<pid_t> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(f)), {});
    if (env.find(marker) != std::string::npos && !gone(std::stoi(name)))
      found.push_back(std::stoi(name));
  }
  return found;
}

} // namespace

TEST(Exec, CouldNotStartIsToldApart) {
  SpawnOptions missing;
  missing.argv = {"/nonexistent/kdet-no-such-program"};
  auto r = run_captured(missing, seconds(5));
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::not_started);
  EXPECT_NE(r.status.describe().find("could not start"), std::string::npos);

  SpawnOptions bad_cwd = shell("true");
  bad_cwd.cwd = "/nonexistent/kdet-no-such-folder";
  r = run_captured(bad_cwd, seconds(5));
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::not_started);
  EXPECT_NE(r.status.error.find("/nonexistent/kdet-no-such-folder"), std::string::npos)
      << r.status.error;
}

// Out of descriptors, a start fails for that reason, said as such: the child's copy of /dev/null
// could not be made, and its "bad file descriptor" later used to hide why.
TEST(Exec, NoDescriptorLeftIsSaidAsSuch) {
  int to_parent[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(to_parent[0]);
    rlimit lim{64, 64};
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) ::_exit(3);
    std::vector<int> held;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
      held.push_back(fd);
    // Four left: kdet's error pipe and /dev/null take three, the child's copy of the error
    // pipe the last, and its copy of /dev/null finds none.
    for (int i = 0; i < 4; ++i) {
      ::close(held.back());
      held.pop_back();
    }
    ExitStatus status;
    const pid_t child = spawn(shell("true"), status);
    if (child > 0) wait_child(child);
    std::string said = child > 0 ? "started" : status.error;
    if (::write(to_parent[1], said.data(), said.size()) < 0) ::_exit(4);
    ::_exit(0);
  }
  ::close(to_parent[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = ::read(to_parent[0], buf, sizeof buf)) > 0;)
    said.append(buf, static_cast<size_t>(n));
  ::close(to_parent[0]);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  EXPECT_NE(said.find(std::strerror(EMFILE)), std::string::npos) << said;
  EXPECT_EQ(said.find(std::strerror(EBADF)), std::string::npos) << said;
}

TEST(Exec, ExitCodeAndSignalAreReported) {
  auto r = run_captured(shell("echo out; echo err >&2; exit 7"), seconds(5));
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::exited);
  EXPECT_EQ(r.status.code, 7);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");

  r = run_captured(shell("kill -SEGV $$"), seconds(5));
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::signaled);
  EXPECT_EQ(r.status.signal, SIGSEGV);
  EXPECT_EQ(r.status.describe(), "killed by signal 11 (SIGSEGV)");
}

namespace {
std::atomic<int> g_usr1_handled{0};
void count_usr1(int) {
  g_usr1_handled.fetch_add(1);
}
// The value of a "Name:\tvalue" line of /proc/PID/status text.
std::string status_field(const std::string& status, const std::string& name) {
  auto at = status.find("\n" + name + ":\t");
  if (at == std::string::npos) return "?";
  at += name.size() + 3;
  return status.substr(at, status.find('\n', at) - at);
}
} // namespace

// What kdet's own process holds (handlers, ignored and blocked signals) never reaches the
// program, and the options it was given (working folder, umask, personality) do; the caller's
// mask is as it was after the start.
TEST(Exec, TheProgramStartsWithDefaultSignalsAndTheAskedSetup) {
  struct sigaction handler {
  }, old_usr1{}, old_hup{};
  handler.sa_handler = count_usr1;
  sigemptyset(&handler.sa_mask);
  ASSERT_EQ(::sigaction(SIGUSR1, &handler, &old_usr1), 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGHUP, &ignore, &old_hup), 0);
  sigset_t usr2, before, after;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr2, &before), 0);
  sigemptyset(&before); // the kernel fills only the signals it has, not all of sigset_t
  sigemptyset(&after);
  ::pthread_sigmask(SIG_SETMASK, nullptr, &before);

  SpawnOptions o;
  o.argv = {"/bin/cat", "/proc/self/status", "/proc/self/personality"};
  o.cwd = "/";
  o.umask = 027;
  o.disable_aslr = true;
  auto r = run_captured(o, seconds(10));
  ::pthread_sigmask(SIG_SETMASK, nullptr, &after);
  ::sigaction(SIGUSR1, &old_usr1, nullptr);
  ::sigaction(SIGHUP, &old_hup, nullptr);
  ::pthread_sigmask(SIG_UNBLOCK, &usr2, nullptr);

  ASSERT_TRUE(r.status.ok()) << r.status.describe() << r.err;
  // The signals this test set up (glibc's own, 32 and 33, are left as whoever started the test
  // left them: signal() refuses them).
  auto has = [&](const char* field, int sig) {
    return (std::stoull(status_field(r.out, field), nullptr, 16) >> (sig - 1)) & 1;
  };
  EXPECT_FALSE(has("SigBlk", SIGUSR2));
  EXPECT_FALSE(has("SigIgn", SIGHUP));
  EXPECT_FALSE(has("SigCgt", SIGUSR1));
  for (int sig = 1; sig < 32; ++sig)
    EXPECT_FALSE(has("SigBlk", sig) || has("SigIgn", sig) || has("SigCgt", sig)) << sig;
  EXPECT_EQ(status_field(r.out, "Umask"), "0027");
  EXPECT_NE(r.out.find("00040000\n"), std::string::npos) << "ADDR_NO_RANDOMIZE: " << r.out;
  for (int sig = 1; sig < NSIG; ++sig)
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << "signal " << sig;
  EXPECT_EQ(g_usr1_handled.load(), 0);

  o.argv = {"/bin/sh", "-c", "pwd; kill -USR1 $$"};
  r = run_captured(o, seconds(10));
  EXPECT_EQ(r.out, "/\n");
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::signaled) << "kdet's handler ran in the program";
  EXPECT_EQ(r.status.signal, SIGUSR1);
  EXPECT_EQ(g_usr1_handled.load(), 0);
}

// Threads starting children at once (a scan's loop thread and its pool's): each child is its
// own, each started as asked.
TEST(Exec, ThreadsStartChildrenAtOnce) {
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&ok, t] {
      for (int i = 0; i < 20; ++i) {
        const std::string want = std::to_string(t) + "-" + std::to_string(i);
        auto r =
            run_captured(shell("echo " + want + "; exit " + std::to_string(i % 3)), seconds(20));
        if (r.status.kind == ExitStatus::Kind::exited && r.status.code == i % 3 &&
            r.out == want + "\n")
          ok.fetch_add(1);
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST(Exec, TimeoutKillsEvenWhatIgnoresSigterm) {
  auto t0 = steady_clock::now();
  auto r = run_captured(shell("trap '' TERM; sleep 30; sleep 30"), milliseconds(200));
  auto took = steady_clock::now() - t0;
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::timed_out);
  // The timeout, the grace after SIGTERM, and slack for a loaded machine.
  EXPECT_LT(took, milliseconds(200) + k_kill_grace + seconds(2));

  ExitStatus st;
  pid_t pid = spawn(shell("sleep 30"), st);
  ASSERT_GT(pid, 0);
  st = wait_child(pid, steady_clock::now() + milliseconds(100));
  EXPECT_EQ(st.kind, ExitStatus::Kind::timed_out);
}

TEST(Exec, EndsWhenTheCommandEndsNotWhenItsOutputCloses) {
  // The command leaves a child holding stdout open: its own exit status counts, at once.
  auto t0 = steady_clock::now();
  auto r = run_captured(shell("sleep 30 & echo $!; exit 3"), seconds(20));
  EXPECT_LT(steady_clock::now() - t0, seconds(5));
  EXPECT_EQ(r.status.kind, ExitStatus::Kind::exited);
  EXPECT_EQ(r.status.code, 3);
  pid_t left = std::atoi(r.out.c_str());
  ASSERT_GT(left, 0);
  // Its end, awaited: it was killed, or it would run its 30 s (10 s only guards against a hang).
  EXPECT_TRUE(test::ProcessEnd(left).wait_for(seconds(10)))
      << "the command's child " << left << " was left running";
}

TEST(Exec, FdMappingsPastSixteenAllArrive) {
  constexpr int k_n = 40;
  std::vector<std::pair<int, int>> pipes;
  SpawnOptions o;
  std::string script;
  for (int i = 0; i < k_n; ++i) {
    int p[2];
    ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
    pipes.push_back({p[0], p[1]});
    int target = 3 + i;
    o.fds.push_back({target, p[1]});
    script += "echo " + std::to_string(target) + " >&" + std::to_string(target) + "; ";
  }
  o.argv = {"/bin/bash", "-c", script};
  if (::access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "needs /bin/bash for fds above 9";
  ExitStatus st;
  pid_t pid = spawn(o, st);
  ASSERT_GT(pid, 0) << st.describe();
  for (auto& p : pipes)
    ::close(p.second);
  st = wait_child(pid, steady_clock::now() + seconds(10));
  EXPECT_TRUE(st.ok()) << st.describe();
  for (int i = 0; i < k_n; ++i) {
    char buf[16] = {};
    ssize_t n = ::read(pipes[static_cast<size_t>(i)].first, buf, sizeof buf - 1);
    EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), std::to_string(3 + i) + "\n")
        << "fd " << 3 + i;
    ::close(pipes[static_cast<size_t>(i)].first);
  }
}

TEST(Exec, NoOtherFdReachesTheChild) {
  rlimit rl{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur < 2048) {
    rl.rlim_cur = std::min<rlim_t>(2048, rl.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
  if (rl.rlim_cur < 2048) GTEST_SKIP() << "RLIMIT_NOFILE below 2048";
  int p[2];
  ASSERT_EQ(::pipe(p), 0); // not close-on-exec: only spawn's closing keeps it out
  ASSERT_EQ(::dup2(p[0], 1500), 1500);
  int low = ::fcntl(p[1], F_DUPFD, 5); // a gap below a mapped target
  ASSERT_GE(low, 5);
  SpawnOptions o = shell("for fd in 1500 " + std::to_string(low) +
                         "; do [ -e /proc/$$/fd/$fd ] && echo leaked $fd; done; echo done");
  int keep = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  o.fds.push_back({low + 3, keep});
  auto r = run_captured(o, seconds(10));
  ::close(1500);
  ::close(low);
  ::close(keep);
  ::close(p[0]);
  ::close(p[1]);
  EXPECT_TRUE(r.status.ok()) << r.status.describe();
  EXPECT_EQ(r.out, "done\n");
}

TEST(Exec, InterruptEndsTheChild) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  ExitStatus st;
  pid_t pid = spawn(shell("sleep 30"), st);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::write(p[1], "x", 1), 1);
  auto t0 = steady_clock::now();
  st = wait_child(pid, std::nullopt, p[0]);
  EXPECT_LT(steady_clock::now() - t0, seconds(5));
  EXPECT_EQ(st.kind, ExitStatus::Kind::signaled);
  ::close(p[0]);
  ::close(p[1]);
}

// Run in a forked copy of the test so becoming a subreaper does not change the test runner.
TEST(Exec, SubreaperKillsWhatLeftTheProcessGroup) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  pid_t test = ::fork();
  ASSERT_GE(test, 0);
  if (test == 0) {
    ::close(p[0]);
    bool ok = become_subreaper();
    auto r =
        run_captured(shell("setsid sleep 30 & sh -c 'sleep 31 & echo $!' ; echo $!"), seconds(10));
    pid_t pids[2] = {0, 0};
    std::sscanf(r.out.c_str(), "%d %d", &pids[0], &pids[1]);
    bool dead = ok && pids[0] > 0 && pids[1] > 0 && gone(pids[0]) && gone(pids[1]);
    char c = dead ? 'y' : 'n';
    ssize_t ignored = ::write(p[1], &c, 1);
    (void)ignored;
    ::_exit(0);
  }
  ::close(p[1]);
  char c = 0;
  ASSERT_EQ(::read(p[0], &c, 1), 1);
  ::close(p[0]);
  int status;
  ::waitpid(test, &status, 0);
  EXPECT_EQ(c, 'y') << "a setsid'd or double-forked process outlived run_captured in a subreaper";
}

TEST(Exec, PidNamespaceDiesWithItsRelay) {
  if (::unshare(0) != 0 || ::geteuid() != 0) GTEST_SKIP() << "PID namespaces need root here";
  std::string marker = "KDET_EXEC_TEST_MARK=" + std::to_string(::getpid()) + "-" +
                       std::to_string(steady_clock::now().time_since_epoch().count());
  // Two processes of the namespace (the program and a subshell) each say on fd 3 that they run,
  // then wait on fd 4, which this test holds open and never writes: they exec nothing more (a
  // process in the middle of an exec can show an empty environment) and end only by a kill.
  int ready[2], hold[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(hold, O_CLOEXEC), 0);
  SpawnOptions o = shell("(echo >&3; read x <&4) & echo >&3; read x <&4");
  o.fds = {{3, ready[1]}, {4, hold[0]}};
  o.env = with_env_changes(current_environment(), {marker});
  o.new_pid_namespace = true;
  o.new_process_group = false; // as `kdet exec` starts it: killing the relay alone must be enough
  ExitStatus st;
  pid_t pid = spawn(o, st);
  ::close(ready[1]);
  ::close(hold[0]);
  struct Cleanup { // whatever an assertion below leaves: no process outlives the test
    int fds[2];
    pid_t relay;
    ~Cleanup() {
      if (relay > 0) kill_and_reap(relay);
      for (int fd : fds)
        ::close(fd);
    }
  } cleanup{{ready[0], hold[1]}, pid};
  if (pid < 0) GTEST_SKIP() << "cannot make a PID namespace: " << st.describe();
  for (int said = 0; said < 2;) {
    pollfd p{ready[0], POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 30000), 1) << "the namespace's processes did not say they run";
    char buf[2];
    ssize_t n = ::read(ready[0], buf, sizeof buf);
    ASSERT_GT(n, 0);
    said += static_cast<int>(n);
  }
  std::vector<pid_t> marked = processes_marked(marker);
  ASSERT_GE(marked.size(), 2u);
  std::vector<test::ProcessEnd> ends;
  for (pid_t p : marked)
    ends.emplace_back(p);
  st = wait_child(pid, steady_clock::now() + milliseconds(100));
  cleanup.relay = -1; // reaped by wait_child
  EXPECT_EQ(st.kind, ExitStatus::Kind::timed_out);
  // Each one's end, awaited: killed with the namespace, or it would wait for as long as this
  // test holds fd 4 (the deadline only guards against a hang).
  const auto deadline = steady_clock::now() + seconds(10);
  for (size_t i = 0; i < ends.size(); ++i)
    EXPECT_TRUE(ends[i].wait_until(deadline)) << "pid " << marked[i] << " outlived its relay";
  std::vector<pid_t> left = processes_marked(marker);
  EXPECT_TRUE(left.empty()) << left.size() << " processes of the namespace outlived its relay";
  for (pid_t p : left)
    ::kill(p, SIGKILL);
}
