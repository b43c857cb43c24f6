// Helpers for unit tests about processes.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::test {

// A pid that no longer runs: a child that has exited and been reaped.
inline pid_t dead_pid() {
  pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  int st;
  ::waitpid(p, &st, 0);
  return p;
}

} // namespace kdet::test
