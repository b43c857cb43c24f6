//===- util/exec.hpp - starting and waiting for child processes ------------===//
//
// All subprocesses (workers, exec-backend compilers, probes) start here.
// spawn() forks and, in the child, applies only async-signal-safe settings
// (fds, cwd, umask, personality, process group) before execve; a failure to
// start is reported back through a close-on-exec pipe, so "could not start",
// "exited N", "killed by signal N" and "timed out" are always told apart.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace kdet {

struct SpawnOptions {
  std::vector<std::string> argv;                 // argv[0] is looked up in PATH if it has no '/'
  std::optional<std::vector<std::string>> env;   // full environment; nullopt = inherit
  std::string cwd;                               // empty = inherit
  std::optional<bool> disable_aslr;              // personality(ADDR_NO_RANDOMIZE) on/off; nullopt = inherit
  std::optional<unsigned> umask;                 // nullopt = inherit
  bool new_process_group = true;                 // so a timeout can kill the whole tree
  // Run the program as pid 2 of a fresh PID namespace (pid 1 is a small reaper;
  // the process kdet waits for relays the program's exit status or signal).
  bool new_pid_namespace = false;
  // Child fd <- parent fd. A parent fd of -1 means /dev/null. Child fds 0-2
  // not listed here are connected to /dev/null; every other fd is closed.
  std::vector<std::pair<int, int>> fds;
};

// How a child process ended.
struct ExitStatus {
  enum class Kind { exited, signaled, not_started, timed_out };
  Kind kind = Kind::not_started;
  int code = 0;       // exit code (exited) or errno (not_started)
  int signal = 0;     // signal number (signaled)
  std::string error;  // why it could not start

  bool ok() const { return kind == Kind::exited && code == 0; }
  // "exited 0", "killed by signal 11 (SIGSEGV)", "timed out", "could not start: ..."
  std::string describe() const;
};

// Starts a child. Returns its pid, or sets `status` to not_started and returns -1.
pid_t spawn(const SpawnOptions& options, ExitStatus& status);

// Waits for `pid` (retrying on EINTR). With a deadline, kills the child's
// process group with SIGKILL when it passes and returns Kind::timed_out.
ExitStatus wait_child(pid_t pid,
                      std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

// Kills a process group (or the process when it leads none) with SIGKILL and reaps it.
void kill_and_reap(pid_t pid);

// Result of a captured run.
struct CapturedRun {
  ExitStatus status;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs a command to completion, capturing stdout and stderr (each capped at
// `max_capture` bytes; the rest is drained and dropped). A timeout of zero
// means none.
CapturedRun run_captured(SpawnOptions options, std::chrono::milliseconds timeout,
                         size_t max_capture = 16 << 20);

// This process's environment as "K=V" strings.
std::vector<std::string> current_environment();

// `env` with each change applied in order: "K=V" sets K (replacing any
// earlier value), "K" alone removes it.
std::vector<std::string> with_env_changes(std::vector<std::string> env, const std::vector<std::string>& changes);

// Looks `name` up in PATH (or returns it as is when it contains '/'); empty when not found.
std::string find_program(const std::string& name);

// True when the kernel randomizes addresses at all (/proc/sys/kernel/randomize_va_space != 0).
bool system_aslr_enabled();

} // namespace kdet
