//===- reduce/cvise.cpp - cvise as the engine for C, C++ and CUDA C++ ---------===//
#include "kdet/reduce/cvise.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/reduce/oracle.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/reap.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <mutex>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace kdet::reduce {

namespace {

// A held flock on DIR/lock, released with the object.
class DirLock {
public:
  explicit DirLock(const std::string& dir) {
    m_fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_fd < 0) throw Error::format("{}/lock: cannot open", dir);
    while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~DirLock() { ::close(m_fd); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

private:
  int m_fd = -1;
};

std::string read_or_empty(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return "";
  return read_file(path);
}

// The tests recorded in DIR/tests: a line per test, "COMPILES VERDICT", the verdict being a
// Rejection's number (0: accepted).
struct Tally {
  uint64_t tests = 0, compiles = 0, accepted = 0;
  RejectionCounts rejected{};
};
Tally tests_of(const std::string& dir) {
  Tally t;
  for (const auto& line : split(read_or_empty(dir + "/tests"), '\n')) {
    if (line.empty()) continue;
    ++t.tests;
    char* end = nullptr;
    t.compiles += std::strtoull(line.c_str(), &end, 10);
    unsigned long why = std::strtoul(end, nullptr, 10);
    if (why == 0)
      ++t.accepted;
    else if (why <= t.rejected.size())
      ++t.rejected[why - 1];
  }
  return t;
}

// One write of `line` at the end of `path` (O_APPEND: oracle processes running at once never
// interleave within a line); best effort, as a count the summary shows.
void append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  write_all(fd, line);
  ::close(fd);
}

size_t size_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

// The interestingness script: cvise runs it in a folder of its own holding the candidate;
// kdet runs where the user started it, with the $TMPDIR it had (the compiler's environment
// stays what it was for the original).
std::string script_text(const CviseOptions& o, const std::string& name, const std::string& dir) {
  std::string tmp = o.tmpdir ? "export TMPDIR=" + shell_join({*o.tmpdir}) : "unset TMPDIR";
  return fmt::format("#!/bin/sh\n"
                     "# kdet reduce's interestingness test for cvise: exit 0 when the candidate\n"
                     "# still varies as the original did (kdet's flaky-aware oracle decides).\n"
                     "{}\n"
                     "cd {} || exit 1\n"
                     "{}\n"
                     "exec {} reduce --oracle-state {} --oracle-candidate \"$cand\" {}\n",
                     o.tool == CviseOptions::Tool::llvm_reduce
                         ? std::string("case $1 in /*) cand=$1 ;; *) cand=\"$PWD\"/$1 ;; esac")
                         : "cand=\"$PWD\"/" + shell_join({name}),
                     shell_join({o.cwd}), tmp, shell_join({o.kdet}), shell_join({dir}),
                     shell_join(o.reduce_args));
}

} // namespace

std::string find_cvise(const std::string& given) {
  if (given == "none") return "";
  std::string path = find_program(given.empty() ? "cvise" : given);
  // find_program returns a name with a '/' as it is: it must be a program too.
  return !path.empty() && ::access(path.c_str(), X_OK) == 0 ? path : "";
}

void write_oracle_state(const std::string& dir, const OracleState& state) {
  write_file_atomic(dir + "/state", fmt::format("{}\n{:.17g}\n", state.kind, state.rate));
}

OracleState read_oracle_state(const std::string& dir) {
  auto lines = split(read_or_empty(dir + "/state"), '\n');
  if (lines.size() < 2 || lines[0].empty())
    throw Error::format("--oracle-state {}: holds no reference state (kdet reduce writes it "
                        "for the cvise script; the option is internal)",
                        dir);
  return {lines[0], std::strtod(lines[1].c_str(), nullptr)};
}

void note_oracle_test(const std::string& dir, uint64_t compiles, Rejection why) {
  append_line(dir + "/tests", fmt::format("{} {}\n", compiles, static_cast<int>(why)));
}

void remember_accepted(const std::string& dir, const std::string& text) {
  append_line(dir + "/accepted", hash_bytes(text) + "\n");
}

bool was_accepted(const std::string& dir, const std::string& text) {
  std::string hash = hash_bytes(text);
  for (const auto& line : split(read_or_empty(dir + "/accepted"), '\n'))
    if (line == hash) return true;
  return false;
}

bool any_test_recorded(const std::string& dir) {
  return size_of(dir + "/tests") > 0;
}

bool offer_best(const std::string& dir, const std::string& best_path, const std::string& text) {
  DirLock lock(dir);
  std::string best = dir + "/best";
  if (::access(best.c_str(), F_OK) == 0 && size_of(best) <= text.size()) return false;
  write_file_atomic(best, text);
  write_file_atomic(best_path, text);
  return true;
}

CviseOutcome run_cvise(const CviseOptions& o, const std::string& input, const std::string& name,
                       const std::string& work_dir, int jobs, double timeout_s,
                       const std::function<void(size_t, uint64_t, double)>& progress) {
  std::string state = work_dir + "/state";
  std::string folder = work_dir + "/cvise";
  std::string tmp = work_dir + "/tmp"; // cvise's own temporary folders go with the work folder
  make_dirs(folder);
  make_dirs(tmp);
  std::string script = work_dir + "/interesting.sh";
  write_file_atomic(script, script_text(o, name, state));
  ::chmod(script.c_str(), 0700);
  write_file_atomic(folder + "/" + name, input);

  int log =
      ::open((work_dir + "/cvise.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) throw Error::format("{}/cvise.log: cannot create", work_dir);
  SpawnOptions so;
  bool llvm_reduce = o.tool == CviseOptions::Tool::llvm_reduce;
  std::string result = folder + "/" + name + (llvm_reduce ? ".reduced.ll" : "");
  if (llvm_reduce) // llvm-reduce 14 tests one candidate at a time (no -j)
    so.argv = {o.program, "--test=" + script, "-o", result, name};
  else
    so.argv = {o.program,
               "--n",
               std::to_string(std::max(1, jobs)),
               "--tidy",
               "--skip-interestingness-test-check",
               "--timeout",
               "86400",
               script,
               name};
  so.cwd = folder;
  so.env = with_env_changes(current_environment(), {"TMPDIR=" + tmp});
  so.fds = {{0, -1}, {1, log}, {2, log}};
  ExitStatus status;
  pid_t pid = spawn(so, status);
  ::close(log);
  CviseOutcome out;
  if (pid < 0) {
    out.failure = fmt::format("{}: {}", o.program, status.describe());
    return out;
  }

  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  auto report = [&] {
    uint64_t tests = tests_of(state).tests;
    double rate = 0;
    try {
      rate = read_oracle_state(state).rate;
    } catch (const Error&) {
    }
    size_t best = size_of(state + "/best");
    if (progress) progress(best ? best : input.size(), tests, rate);
  };
  std::thread reporter([&] {
    std::unique_lock lock(mutex);
    while (!cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return done; }))
      report();
  });
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout_s > 0)
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(timeout_s));
  // On the deadline or an interrupt: SIGTERM to cvise's group, SIGKILL after the grace.
  status = wait_child(pid, deadline, engine::interrupt_fd());
  // Test processes cvise's workers left (a worker killed mid-test) came to kdet: end them.
  kill_orphans();
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  cv.notify_all();
  reporter.join();

  out.stopped = status.kind == ExitStatus::Kind::timed_out || engine::interrupted();
  if (!out.stopped && !status.ok()) {
    std::string text = read_or_empty(work_dir + "/cvise.log");
    if (text.size() > 2000) text = "..." + text.substr(text.size() - 2000);
    out.failure = fmt::format("{} {}:\n{}", o.program, status.describe(), text);
  }
  Tally t = tests_of(state);
  out.tests = t.tests;
  out.compiles = t.compiles;
  out.accepted = t.accepted;
  out.rejected = t.rejected;
  out.rate = read_oracle_state(state).rate;
  out.best = read_or_empty(state + "/best");
  // cvise's last accepted text was judged by the oracle too; it is the result when smaller.
  if (!out.stopped && out.failure.empty()) {
    std::string final_text = read_or_empty(result);
    if (!final_text.empty() && final_text != input &&
        (out.best.empty() || final_text.size() < out.best.size()))
      out.best = final_text;
  }
  return out;
}

} // namespace kdet::reduce
