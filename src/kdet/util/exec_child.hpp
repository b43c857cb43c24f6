//===- util/exec_child.hpp - the child side of spawn() (internal) -------------===//
//
// What runs between fork and execve: async-signal-safe code only, shared by
// util/exec.cpp (spawn) and util/exec_child.cpp (the PID-namespace relay and
// reaper, the guard). Not for use outside util/exec.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/exec.hpp"

#include <csignal>
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace kdet::detail {

// Everything the child needs, prepared before fork so the child only makes syscalls.
struct Prepared {
  std::vector<std::string> argv_store;
  std::vector<char*> argv;
  std::vector<std::string> env_store;
  std::vector<char*> env;
  std::string program;
  std::vector<int> moved;      // scratch for the child: the sources, moved above every target
  std::vector<char> is_target; // indexed by fd below `low`
  int low = 3;                 // fds at or above this are neither targets nor kept
  std::vector<int> inherited;  // SpawnOptions::inherit_fds: passed on as they are
  long linger_ms = 0;          // SpawnOptions::guard_linger
  std::string linger_marker;   // SpawnOptions::guard_linger_marker
};

// The child side of spawn(): what it was asked and what was prepared for it.
struct ChildStart {
  const SpawnOptions* options;
  const Prepared* prepared;
  char** envp;
  int err_fd;  // the error pipe's write end
  int devnull; // /dev/null open, or -1
  pid_t parent;
  const rlimit* open_files; // the limit on open files to give back before exec, or null
};

// Whether this build may start a child that shares its memory until execve: not under a
// sanitizer, whose instrumented code in the child would act on the parent's shadow state.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool k_can_share_memory = false;
#else
inline constexpr bool k_can_share_memory = true;
#endif

// Sets the child up as `c` says and execs the program (or hands over to the PID-namespace
// relay or the guard); on failure sends errno to c.err_fd and exits 127. Async-signal-safe.
[[noreturn]] void run_child(const ChildStart& c);

// Starts run_child(c) in a child that shares this process's memory (clone with CLONE_VM and
// CLONE_VFORK, on a stack of its own, every signal blocked until its handlers are reset): the
// calling thread waits until the child has exec'd or exited. Only for children that exec.
// Returns its pid, or -1 with errno.
pid_t start_sharing_memory(const ChildStart& c);

// What the child was doing when it failed, sent with errno.
enum ChildStage : int { k_stage_exec = 0, k_stage_chdir = 1 };

// Sends errno and the stage to the parent through `err_fd` and exits 127.
[[noreturn]] void child_fail(int err_fd, int err, int stage = k_stage_exec);

// Marks every fd from `low` up close-on-exec (close_range, else /proc/self/fd).
void cloexec_from(int low);

// Closes every fd but `keep` and `keep2` (-1: none).
void close_all_but(int keep, int keep2 = -1);

// Runs the program as pid 2 of a fresh PID namespace under a reaper that dies
// with this relay; ends the way the program did.
[[noreturn]] void run_in_pid_namespace(const Prepared& p, char** envp, int ef);

// Runs the program under a guard (see SpawnOptions::guard); ends the way the program did.
// `report_fd` (-1: none) gets what linger_and_report saw.
[[noreturn]] void run_guarded(const Prepared& p, char** envp, int ef, pid_t parent, int report_fd);

// In the guard, after the program ended (exec_linger.cpp): waits up to
// `linger_ms` while a descendant maps a file whose path contains `marker` (or
// until *stop is set), then writes to `report_fd` "waited MS N" ("stopped 1" next when
// *stop was set), then "left PID MARKED HEX(cmdline)" for each descendant still there
// (at most 64, then "more N"). Does not kill. Async-signal-safe.
void linger_and_report(long linger_ms, const char* marker, int report_fd,
                       volatile sig_atomic_t* stop);

} // namespace kdet::detail
