//===- util/exec.hpp - starting and waiting for child processes ------------===//
//
// All subprocesses (workers, exec-backend compilers, probes) start here.
// spawn() forks and, in the child, applies only async-signal-safe settings
// (fds, cwd, umask, personality, process group, parent-death signal) before
// execve; a failure to start is reported back through a close-on-exec pipe, so
// "could not start", "exited N", "killed by signal N" and "timed out" are
// always told apart. A child never outlives kdet (see util/reap.hpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace kdet {

struct SpawnOptions {
  std::vector<std::string> argv; // argv[0] is looked up in PATH if it has no '/'
  // The file to execute when it is not argv[0] (which the program still sees as its name).
  // kdet's workers run "/proc/self/exe": the very binary of the kdet that starts them, even
  // after an upgrade or a rebuild has replaced the file at its path.
  std::string program;
  std::optional<std::vector<std::string>> env; // full environment; nullopt = inherit
  std::string cwd;                             // empty = inherit
  std::optional<bool> disable_aslr; // personality(ADDR_NO_RANDOMIZE) on/off; nullopt = inherit
  std::optional<unsigned> umask;    // nullopt = inherit
  bool new_process_group = true;    // so a timeout can kill the whole tree
  // Run the program as pid 2 of a fresh PID namespace (pid 1 is a small reaper
  // that dies with the relay, taking the namespace down; the relay, which kdet
  // waits for, passes on the program's exit status or signal).
  bool new_pid_namespace = false;
  // Run the program under a guard: a subreaper between kdet and the program
  // that passes SIGTERM on, ends whatever the program left when it ends, and
  // does so too when kdet dies (even by SIGKILL). For a child that is not in a
  // process group or PID namespace of its own (`kdet exec`).
  bool guard = false;
  // With `guard`: once the program has ended, the guard waits up to this long for
  // the descendants it left that map a file whose path contains one of the
  // ':'-separated `guard_linger_marker` (/proc/PID/maps), then ends everything left and writes
  // what it waited for and what it killed to `guard_report_fd` (a pipe's write
  // end; -1: none). Set by run_lingering, which reads that report.
  std::chrono::milliseconds guard_linger{0};
  std::string guard_linger_marker;
  int guard_report_fd = -1;
  // Sent to the child when the thread that started it ends (PR_SET_PDEATHSIG),
  // so a killed kdet takes its children along; 0 = none.
  int death_signal = SIGKILL;
  // Child fd <- parent fd, any number of them. A parent fd of -1 means
  // /dev/null. Child fds 0-2 not listed here are connected to /dev/null; every
  // other fd is closed.
  std::vector<std::pair<int, int>> fds;
  // But the descriptors kdet itself was started with (3 and up, not close-on-exec, as
  // note_inherited_fds() found them), which pass to the program as they are: a build step run
  // as its caller ran it keeps a make jobserver's pipe, bash's <(...) or a flock'ed file
  // (kdet capture's pipeline, kdet exec's command). A listed fd takes its number first.
  bool inherit_fds = false;
};

// Records the descriptors this process was started with (3 and up, not close-on-exec), for
// SpawnOptions::inherit_fds. Called once, first thing in kdet's main.
void note_inherited_fds();
// Raises this process's soft limit on open files to its hard limit: kdet holds the pipes, pidfds
// and logs of many workers at once, and running short would make runs fail that the compiler
// never saw. Every child spawn() starts gets the limit kdet started with back, so a compiler
// sees the caller's. Once, at kdet's start (not in a worker, whose compiler shares its process).
void raise_open_file_limit();

// How long a child may take to end after SIGTERM before it and its process
// group get SIGKILL.
inline constexpr std::chrono::milliseconds k_kill_grace{1000};

// How a child process ended.
struct ExitStatus {
  enum class Kind { exited, signaled, not_started, timed_out };
  Kind kind = Kind::not_started;
  int code = 0;      // exit code (exited) or errno (not_started)
  int signal = 0;    // signal number (signaled)
  std::string error; // why it could not start

  bool ok() const { return kind == Kind::exited && code == 0; }
  // "exited 0", "killed by signal 11 (SIGSEGV)", "timed out", "could not start: ..."
  std::string describe() const;
};

// Starts a child. Returns its pid, or sets `status` to not_started and returns -1.
pid_t spawn(const SpawnOptions& options, ExitStatus& status);

// Waits for `pid` (retrying on EINTR). With a deadline, ends the child
// (terminate_and_reap) when it passes and returns Kind::timed_out. When
// `interrupt_fd` becomes readable, ends the child and returns how it ended.
ExitStatus wait_child(pid_t pid,
                      std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt,
                      int interrupt_fd = -1);

// Reaps `pid` if it has ended and returns true; false, and nothing done, while it runs.
bool try_reap(pid_t pid);

// Kills a process group (or the process when it leads none) with SIGKILL and reaps it.
void kill_and_reap(pid_t pid);

// Sends SIGTERM to the child's process group (or the child), gives it `grace`
// to end, then SIGKILLs the group and reaps the child. Returns how it ended.
ExitStatus terminate_and_reap(pid_t pid, std::chrono::milliseconds grace = k_kill_grace);

// A process a guard found still running when it stopped waiting, and killed.
struct LeftProcess {
  long pid = 0;
  bool marked = false; // it mapped the marker file (run_lingering)
  std::string command; // its /proc/PID/cmdline, arguments joined by spaces (cut at 200 bytes)
};

// What a lingering guard saw after the program ended.
struct GuardReport {
  bool received = false;         // false: the guard said nothing (it was killed)
  double waited_s = 0;           // how long it waited for marked descendants
  size_t waited_for = 0;         // marked descendants running when the program ended
  std::vector<LeftProcess> left; // still running when it stopped waiting (killed)
  size_t left_unlisted = 0;      // beyond those listed
  bool stopped = false; // the guard was told to stop (kdet interrupted): `left` were not waited out
};

// Runs `options` under a guard (guard set) that, once the program has ended,
// waits up to `linger` for the descendants it left that map a file whose path
// contains one of the ':'-separated `marker` (a pipeline's children that carry
// a preload), ends
// everything left and says in `report` what it waited for and what it killed.
// Waits for the program like wait_child (an interrupt on `interrupt_fd` ends the
// waiting too); returns how the program ended, not_started when it could not start.
ExitStatus run_lingering(SpawnOptions options, std::chrono::milliseconds linger,
                         const std::string& marker, GuardReport& report, int interrupt_fd = -1);

// Result of a captured run.
struct CapturedRun {
  ExitStatus status;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs a command to completion, capturing stdout and stderr (each capped at
// `max_capture` bytes; the rest is drained and dropped). A timeout of zero
// means none. The run ends when the command itself ends: output still held open
// by a process it left behind is not waited for, and its process group (and,
// in a subreaper, every orphan) is killed. At the timeout the group gets
// SIGTERM, then SIGKILL after k_kill_grace. When `interrupt_fd` becomes readable, the
// command's group is ended the same way and its status is whatever that made of it.
CapturedRun run_captured(SpawnOptions options, std::chrono::milliseconds timeout,
                         size_t max_capture = 16 << 20, int interrupt_fd = -1);

// This process's environment as "K=V" strings.
std::vector<std::string> current_environment();

// `env` with each change applied in order: "K=V" sets K (replacing any
// earlier value), "K" alone removes it.
std::vector<std::string> with_env_changes(std::vector<std::string> env,
                                          const std::vector<std::string>& changes);

// Looks `name` up in PATH (or returns it as is when it contains '/'); empty when not found.
std::string find_program(const std::string& name);

// True when the kernel randomizes addresses at all (/proc/sys/kernel/randomize_va_space != 0).
bool system_aslr_enabled();

} // namespace kdet
