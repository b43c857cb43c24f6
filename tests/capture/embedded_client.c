/*===- tests/capture/embedded_client.c - a build on the embedded DSL --------===//
 *
 * Usage: embedded_client LIB OUTDIR [--as PROGRAM] NAME...
 * Loads LIB (embedded_dsl.c) with dlopen(RTLD_LOCAL), compiles each kernel NAME to
 * PTX through the library's own API, writes OUTDIR/NAME.ptx and, with --as, runs
 * `PROGRAM OUTDIR/NAME.ptx -o OUTDIR/NAME.cubin` on it (as Triton runs ptxas).
 * Exit 0 when every step succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: embedded_client LIB OUTDIR [--as PROGRAM] NAME...\n");
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "embedded_client: %s\n", dlerror());
    return 3;
  }
  int (*compile)(const char*, char**) = (int (*)(const char*, char**))dlsym(h, "edsl_compile");
  if (!compile) return 3;
  const char* as = NULL;
  int first = 3;
  if (strcmp(argv[3], "--as") == 0 && argc > 5) {
    as = argv[4];
    first = 5;
  }
  for (int i = first; i < argc; ++i) {
    char* ptx = NULL;
    if (compile(argv[i], &ptx) != 0) return 4;
    char in[4096], out[4096];
    snprintf(in, sizeof in, "%s/%s.ptx", argv[2], argv[i]);
    snprintf(out, sizeof out, "%s/%s.cubin", argv[2], argv[i]);
    FILE* f = fopen(in, "w");
    if (!f) return 5;
    fputs(ptx, f);
    fclose(f);
    free(ptx);
    if (!as) continue;
    char* args[] = {(char*)as, in, (char*)"-o", out, NULL};
    pid_t pid;
    int st;
    if (posix_spawnp(&pid, as, NULL, NULL, args, environ) != 0) return 6;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 7;
  }
  return 0;
}
