/* exec_fake.c: a command compiler for adversary_truth.sh. Usage: exec_fake MODE INPUT [OUTPUT]
 * (no OUTPUT: stdout is the artifact). MODE names the one thing the output follows: aslr (a
 * stack address), mmap, libc (a library address), time (seconds), pwd, tmpdir, pid, omp
 * (OMP_NUM_THREADS), lang (LC_ALL), umask, heap (a malloc address), inpath, cwdpid (two
 * factors), myenv (ADV_X, which kdet leaves alone), det (nothing). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  const char* mode = argv[1];
  const char* in = argv[2];
  const char* out = argc > 3 ? argv[3] : NULL;
  FILE* f = out ? fopen(out, "w") : stdout;
  if (!f) return 3;
  fprintf(f, "// compiled\n");
  int x;
  if (!strcmp(mode, "aslr"))
    fprintf(f, "%p\n", (void*)&x);
  else if (!strcmp(mode, "mmap")) {
    void* p = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    fprintf(f, "%p\n", p);
  } else if (!strcmp(mode, "libc"))
    fprintf(f, "%p\n", (void*)&printf);
  else if (!strcmp(mode, "time"))
    fprintf(f, "%ld\n", (long)time(NULL));
  else if (!strcmp(mode, "pwd")) {
    char b[4096];
    fprintf(f, "%s\n", getcwd(b, sizeof b));
  } else if (!strcmp(mode, "tmpdir")) {
    const char* t = getenv("TMPDIR");
    fprintf(f, "%s\n", t ? t : "(none)");
  } else if (!strcmp(mode, "pid"))
    fprintf(f, "%d\n", (int)getpid());
  else if (!strcmp(mode, "omp")) {
    const char* t = getenv("OMP_NUM_THREADS");
    fprintf(f, "%s\n", t ? t : "(none)");
  } else if (!strcmp(mode, "lang")) {
    const char* t = getenv("LC_ALL");
    fprintf(f, "%s\n", t ? t : "(none)");
  } else if (!strcmp(mode, "umask")) {
    mode_t m = umask(0);
    fprintf(f, "%o\n", m);
  } else if (!strcmp(mode, "heap")) {
    void* p = malloc(100);
    fprintf(f, "%p\n", p);
  } else if (!strcmp(mode, "inpath"))
    fprintf(f, "%s\n", in);
  else if (!strcmp(mode, "cwdpid")) {
    char b[4096];
    getcwd(b, sizeof b);
    fprintf(f, "%s %d\n", b, (int)getpid());
  } else if (!strcmp(mode, "myenv")) {
    const char* t = getenv("ADV_X");
    fprintf(f, "%s\n", t ? t : "(none)");
  } else if (!strcmp(mode, "det"))
    fprintf(f, "fixed\n");
  fclose(f);
  return 0;
}
