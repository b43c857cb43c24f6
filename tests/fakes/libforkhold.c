/* libforkhold.so: an LD_PRELOAD for hostile-process tests. When FAKE_FORKHOLD=1
 * is set, the process it is loaded into forks once at start a child that calls
 * setsid() and sleeps, holding every fd it inherited (a worker's request and
 * reply pipes, its log). Models a compiler library that starts a detached
 * helper: the helper must neither hide the process's crash (kdet must not wait
 * for the pipe to close) nor outlive kdet. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void forkhold_start(void) {
  const char* on = getenv("FAKE_FORKHOLD");
  if (!on || strcmp(on, "1") != 0) return;
  unsetenv("FAKE_FORKHOLD"); /* once: not in what the process itself starts */
  pid_t p = fork();
  if (p == 0) {
    setsid();
    for (;;)
      pause();
  }
}
