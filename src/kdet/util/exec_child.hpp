//===- util/exec_child.hpp - the child side of spawn() (internal) -------------===//
//
// What runs between fork and execve: async-signal-safe code only, shared by
// util/exec.cpp (spawn) and util/exec_child.cpp (the PID-namespace relay and
// reaper, the guard). Not for use outside util/exec.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
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
};

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
[[noreturn]] void run_guarded(const Prepared& p, char** envp, int ef, pid_t parent);

} // namespace kdet::detail
