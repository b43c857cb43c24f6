/* tests/capture/hostile_client.c - a pipeline that plays descriptor and process games.
 *
 * Usage: hostile_client LIB MODULE OUTDIR STEP...
 * Loads a libNVVM (the fake's echo mode, or a real one) by path and runs the
 * steps in order; each compile writes one line (its number and the size and a
 * checksum of the PTX) to the pipeline's own results file, OUTDIR/results.txt,
 * through a descriptor the steps keep moving. Every byte it writes depends on
 * the steps alone, so a run under kdet capture must leave OUTDIR byte for byte
 * as a run without it. Steps:
 *   option=OPT  the compile option from here on (default -fake-mode=echo, the fake's)
 *   compile     one compile (module MODULE, with that option)
 *   closerange  close every descriptor from 3 up, then reopen results.txt and
 *               open other.txt (they take the lowest numbers again)
 *   dup2all     dup2 other.txt over every descriptor 3..1024 but results.txt's
 *   closeall    close every descriptor from 3 up (results.txt too) and reopen it
 *   exhaust     close every descriptor from 3 up, take every free one, compile,
 *               give them back and reopen results.txt
 *   thread      a thread keeps closing and dup2-ing descriptors 3..1100 while
 *               the main thread compiles 20 times (results.txt is moved out of
 *               the way first, at 1500)
 *   orphan      fork: the child waits until this process has exited (EOF on a
 *               pipe), then compiles (into OUTDIR/orphan.txt); this process goes on
 *   daemon      the same from a setsid'd grandchild (double fork), into daemon.txt
 *   noenv SELF  fork + execve SELF with an empty environment, which compiles once
 *               (into noenv.txt): not captured, and capture says so
 *   signals     a SIGALRM timer every 0.5 ms whose handler dup2s results.txt over
 *               every close-on-exec descriptor but its own (async-signal-safe calls
 *               only), while this single thread compiles 1000 times
 *   nofile      lower the soft descriptor limit to the lowest free number + 4, then
 *               compile 4 times, opening (and keeping) file K.txt after each: as the
 *               first step, the capture files are made under that limit
 *   hang        later orphan/daemon children never compile: they wait forever
 * Exit 0 when every compile of this process succeeded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*CreateFn)(void**);
typedef int (*AddFn)(void*, const char*, size_t, const char*);
typedef int (*CompileFn)(void*, int, const char**);
typedef int (*SizeFn)(void*, size_t*);
typedef int (*GetFn)(void*, char*);

static CreateFn create, destroy;
static AddFn add;
static CompileFn compile_fn;
static SizeFn result_size;
static GetFn result;
static char* module_text;
static size_t module_size;
static const char* outdir;
static int results_fd = -1;
static int compiles;
static int failures;
static char pending[128];
static const char* compile_option = "-fake-mode=echo";

static void* need(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "hostile_client: %s missing\n", name);
    exit(3);
  }
  return p;
}

static int open_out(const char* name, int flags) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", outdir, name);
  int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
  if (fd < 0) {
    fprintf(stderr, "hostile_client: %s: %s\n", path, strerror(errno));
    exit(3);
  }
  return fd;
}

static void say(int fd, const char* text) {
  size_t n = strlen(text);
  if (write(fd, text, n) != (ssize_t)n) {
    fprintf(stderr, "hostile_client: write: %s\n", strerror(errno));
    exit(3);
  }
}

/* One compile; its line goes to `fd`. */
static void compile_once(int fd) {
  void* prog = NULL;
  const char* opts[] = {compile_option};
  size_t size = 0;
  int rc = create(&prog);
  if (rc == 0) rc = add(prog, module_text, module_size, "hostile.ll");
  if (rc == 0) rc = compile_fn(prog, 1, opts);
  if (rc == 0) rc = result_size(prog, &size);
  char* ptx = rc == 0 ? malloc(size + 1) : NULL;
  if (ptx && result(prog, ptx) != 0) rc = -1;
  unsigned long sum = 0;
  for (size_t i = 0; ptx && i < size; ++i)
    sum = sum * 31 + (unsigned char)ptx[i];
  free(ptx);
  destroy(&prog);
  char line[128];
  snprintf(line, sizeof line, "compile %d rc %d size %zu sum %lu\n", ++compiles, rc, size, sum);
  if (fd < 0) { /* no descriptor free: kept for later */
    snprintf(pending, sizeof pending, "%s", line);
    return;
  }
  say(fd, line);
  if (rc != 0) ++failures;
}

static long max_fd(void) {
  struct rlimit rl;
  return getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
}

static void close_from_3(void) {
  long top = max_fd();
  for (long fd = 3; fd < top; ++fd)
    close((int)fd);
}

/* The write ends of the pipes the children wait on: a child reads its pipe until
 * EOF, which comes when this process has exited (each child closes the others' ends). */
static int gone_pipes[16];
static int n_gone_pipes;
static int children_hang;
static void wait_pipeline_gone(int read_end) {
  for (int k = 0; k < n_gone_pipes; ++k)
    close(gone_pipes[k]);
  char c;
  while (read(read_end, &c, 1) < 0 && errno == EINTR) {
  }
  close(read_end);
  while (children_hang)
    pause(); /* a child that outlives --wait-children */
}

static volatile int stop_thread;
static void* juggler(void* arg) {
  (void)arg;
  int other = open_out("juggle.txt", O_APPEND);
  while (!stop_thread)
    for (int fd = 3; fd < 1100 && !stop_thread; ++fd)
      if (fd != other && fd != results_fd) {
        if (fd % 2)
          dup2(other, fd);
        else
          close(fd);
      }
  return NULL;
}

static void dup2_over_cloexec(int sig) {
  (void)sig;
  for (int fd = 3; fd < 1024; ++fd) {
    int flags = fcntl(fd, F_GETFD);
    if (fd != results_fd && flags >= 0 && (flags & FD_CLOEXEC)) dup2(results_fd, fd);
  }
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: hostile_client LIB MODULE OUTDIR STEP...\n");
    return 2;
  }
  outdir = argv[3];
  FILE* in = fopen(argv[2], "rb");
  if (!in) {
    fprintf(stderr, "hostile_client: cannot read %s\n", argv[2]);
    return 2;
  }
  fseek(in, 0, SEEK_END);
  module_size = (size_t)ftell(in);
  rewind(in);
  module_text = malloc(module_size + 1);
  if (!module_text || fread(module_text, 1, module_size, in) != module_size) return 2;
  fclose(in);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "hostile_client: %s\n", dlerror());
    return 3;
  }
  create = (CreateFn)need(lib, "nvvmCreateProgram");
  destroy = (CreateFn)need(lib, "nvvmDestroyProgram");
  add = (AddFn)need(lib, "nvvmAddModuleToProgram");
  compile_fn = (CompileFn)need(lib, "nvvmCompileProgram");
  result_size = (SizeFn)need(lib, "nvvmGetCompiledResultSize");
  result = (GetFn)need(lib, "nvvmGetCompiledResult");
  results_fd = open_out("results.txt", O_APPEND);
  for (int i = 4; i < argc; ++i) {
    const char* s = argv[i];
    if (!strncmp(s, "option=", 7)) {
      compile_option = s + 7;
    } else if (!strcmp(s, "compile")) {
      compile_once(results_fd);
    } else if (!strcmp(s, "closerange")) {
      close_from_3();
      results_fd = open_out("results.txt", O_APPEND);
      say(open_out("other.txt", O_APPEND), "other\n");
    } else if (!strcmp(s, "dup2all")) {
      int other = open_out("other.txt", O_APPEND);
      for (int fd = 3; fd <= 1024; ++fd)
        if (fd != results_fd && fd != other) dup2(other, fd);
      say(other, "dup2all\n");
    } else if (!strcmp(s, "closeall")) {
      close_from_3();
      compile_once(open_out("closeall.txt", O_APPEND));
      results_fd = open_out("results.txt", O_APPEND);
    } else if (!strcmp(s, "exhaust")) {
      /* Every descriptor taken, then a compile: the preload can neither record it nor
       * write a note (its own descriptors were closed first). */
      close_from_3();
      int first = dup(2), last = first;
      while (last >= 0) {
        int d = dup(2);
        if (d < 0) break;
        last = d;
      }
      compile_once(-1);
      for (int fd = first; fd >= 0 && fd < max_fd(); ++fd)
        close(fd);
      results_fd = open_out("results.txt", O_APPEND);
      say(results_fd, pending);
    } else if (!strcmp(s, "thread")) {
      int moved = fcntl(results_fd, F_DUPFD, 1500);
      if (moved >= 0) {
        close(results_fd);
        results_fd = moved;
      }
      pthread_t t;
      pthread_create(&t, NULL, juggler, NULL);
      for (int k = 0; k < 20; ++k)
        compile_once(results_fd);
      stop_thread = 1;
      pthread_join(t, NULL);
    } else if (!strcmp(s, "signals")) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = dup2_over_cloexec;
      sa.sa_flags = SA_RESTART;
      sigaction(SIGALRM, &sa, NULL);
      struct itimerval every = {{0, 500}, {0, 500}}, off = {{0, 0}, {0, 0}};
      setitimer(ITIMER_REAL, &every, NULL);
      for (int k = 0; k < 1000; ++k)
        compile_once(results_fd);
      setitimer(ITIMER_REAL, &off, NULL);
    } else if (!strcmp(s, "nofile")) {
      int lowest_free = 0;
      while (fcntl(lowest_free, F_GETFD) >= 0)
        ++lowest_free;
      struct rlimit rl;
      getrlimit(RLIMIT_NOFILE, &rl);
      rl.rlim_cur = (rlim_t)lowest_free + 4;
      if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return 3;
      for (int k = 0; k < 4; ++k) {
        compile_once(results_fd);
        char name[32];
        snprintf(name, sizeof name, "%d.txt", k);
        say(open_out(name, O_APPEND), "kept open\n"); /* exits 3 when no number is free */
      }
    } else if (!strcmp(s, "hang")) {
      children_hang = 1;
    } else if (!strcmp(s, "orphan") || !strcmp(s, "daemon")) {
      int daemon = !strcmp(s, "daemon");
      int p[2];
      if (pipe2(p, O_CLOEXEC) != 0 || n_gone_pipes == 16) return 3;
      gone_pipes[n_gone_pipes++] = p[1];
      pid_t child = fork();
      if (child == 0) {
        if (daemon) {
          setsid();
          if (fork() != 0) _exit(0);
        }
        wait_pipeline_gone(p[0]);
        int fd = open_out(daemon ? "daemon.txt" : "orphan.txt", O_APPEND);
        compile_once(fd);
        _exit(failures ? 1 : 0);
      }
      close(p[0]);
      if (daemon) waitpid(child, NULL, 0); /* the intermediate child */
    } else if (!strcmp(s, "noenv") && i + 1 < argc) {
      const char* self = argv[++i];
      pid_t child = fork();
      if (child == 0) {
        char option[256];
        snprintf(option, sizeof option, "option=%s", compile_option);
        char* const args[] = {(char*)self, argv[1],      argv[2], (char*)outdir,
                              option,      "noenvchild", NULL};
        char* const env[] = {NULL};
        execve(self, args, env);
        _exit(127);
      }
      int st = 0;
      while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
      }
      if (st != 0) ++failures;
    } else if (!strcmp(s, "noenvchild")) {
      compile_once(open_out("noenv.txt", O_APPEND));
    } else {
      fprintf(stderr, "hostile_client: unknown step %s\n", s);
      return 2;
    }
  }
  say(results_fd, "done\n");
  return failures ? 1 : 0;
}
