/* fake_cc.c: an exec-style fake compiler for kdet's exec backend tests.
 *
 * Usage: fake_cc MODE INPUT OUTPUT
 * Writes "// fake PTX\n" then each INPUT line as "N: line\n" to OUTPUT, and
 * injects, by MODE, one behaviour real compilers rarely show on demand:
 *   echo       just that (deterministic)
 *   heaporder  the lines ordered by a 16-bucket table keyed on the heap
 *              addresses of per-line nodes (as libfakenvvm's heaporder)
 *   fail       exit 1 with "fake_cc: compilation failed (requested)" on stderr
 *   crash      raise(SIGSEGV)     abort  abort()     hang  pause() forever
 *   garbage    1..4096 random bytes to OUTPUT and 1..4096 to stdout, exit 0
 *   time       adds "// time: <time(NULL)>" after the header
 *   path       adds "// input: <INPUT as given>"
 *   env        adds "// FAKE_CC_ENV: <value or (unset)>"
 *   pid        adds "// pid: <getpid()>"
 *   cwd        adds "// cwd: <getcwd()>"
 *   host       adds "// host: <nproc> cpus, <nodename>.<domainname>, TZ <tm_hour of
 *              a fixed instant in local time>, HOME <$HOME>" (what reprotest varies)
 *   planted-flaky  as planted, but crashes (SIGSEGV) at random, 1 run in $FAKE_CC_FLAKY_IN
 *              (default 3), before reading anything: run N's fate is a hash of
 *              $FAKE_CC_FLAKY_SEED and N, N counted in the file $FAKE_CC_FLAKY_COUNTER (locked),
 *              so a fixed seed gives the same sequence of crashes on every machine
 *   oldptxas   a ptxas too old for its input: an input whose `.version X.Y` is above 8.5
 *              fails as ptxas 12.x does (exit 255; on stderr "ptxas INPUT, line N; fatal   :
 *              Unsupported .version X.Y; current version is '8.5'" and "ptxas fatal   : Ptx
 *              assembly aborted due to errors"); any other input is echoed
 * Exit status: 0 success, 1 fail mode, 255 oldptxas on a newer PTX, 2 usage or I/O error.
 * Apart from the injected behaviour everything here is deterministic.
 */
#define _GNU_SOURCE /* sched_getaffinity, utsname's domainname */

#include "fake_core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char k_usage[] =
    "usage: fake_cc MODE INPUT OUTPUT\n"
    "MODE: echo heaporder fail crash abort hang garbage time path env pid cwd pair host\n"
    "      planted planted-rare planted-kind planted-flaky oldptxas\n";

static void die(const char* what, const char* detail) {
  fprintf(stderr, "fake_cc: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(2);
}

static void buffer_append_str(Buffer* b, const char* s) {
  buffer_append(b, s, strlen(s));
}

/* Reads a whole file; exits with status 2 when it cannot. */
static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    die(path, strerror(errno));
  }
  Buffer b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    buffer_append(&b, chunk, n);
  }
  if (ferror(f)) {
    die(path, "read error");
  }
  fclose(f);
  if (b.failed) {
    die("out of memory", NULL);
  }
  *size = b.size;
  return b.data;
}

static void write_file(const char* path, const char* data, size_t size) {
  FILE* f = fopen(path, "wb");
  if (!f) {
    die(path, strerror(errno));
  }
  if ((size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    die(path, "write error");
  }
}

/* Fills a fresh buffer with 1..4096 bytes from /dev/urandom, at least one
 * NUL and (when longer than one byte) one 0xFF, never valid UTF-8. */
static unsigned char* random_bytes(size_t* size) {
  unsigned char header[2];
  FILE* f = fopen("/dev/urandom", "rb");
  if (!f || fread(header, 1, sizeof header, f) != sizeof header) {
    die("/dev/urandom", "cannot read");
  }
  size_t n = 1 + (((size_t)header[0] << 8 | header[1]) % 4096);
  unsigned char* data = malloc(n);
  if (!data || fread(data, 1, n, f) != n) {
    die("/dev/urandom", "cannot read");
  }
  fclose(f);
  data[header[0] % n] = 0x00;
  if (n > 1) {
    size_t at = (header[1] + 1u) % n;
    if (at == header[0] % n) {
      at = (at + 1) % n;
    }
    data[at] = 0xFF;
  }
  *size = n;
  return data;
}

static int run_garbage(const char* output) {
  size_t n;
  unsigned char* data = random_bytes(&n);
  write_file(output, (const char*)data, n);
  free(data);
  data = random_bytes(&n);
  fwrite(data, 1, n, stdout);
  fflush(stdout);
  free(data);
  return 0;
}

/* Returns the extra "// ..." line a leak mode embeds, or NULL for none. */
static const char* leak_line(const char* mode, const char* input, char* scratch, size_t cap) {
  if (strcmp(mode, "time") == 0) {
    snprintf(scratch, cap, "// time: %lld\n", (long long)time(NULL));
  } else if (strcmp(mode, "path") == 0) {
    snprintf(scratch, cap, "// input: %s\n", input);
  } else if (strcmp(mode, "env") == 0) {
    const char* v = getenv("FAKE_CC_ENV");
    snprintf(scratch, cap, "// FAKE_CC_ENV: %s\n", v ? v : "(unset)");
  } else if (strcmp(mode, "pid") == 0) {
    snprintf(scratch, cap, "// pid: %ld\n", (long)getpid());
  } else if (strcmp(mode, "cwd") == 0) {
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir)) {
      die("getcwd", strerror(errno));
    }
    snprintf(scratch, cap, "// cwd: %s\n", dir);
  } else if (strcmp(mode, "host") == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    struct utsname u;
    if (uname(&u) != 0) {
      die("uname", strerror(errno));
    }
    time_t instant = 1000000000; /* a fixed instant: only the timezone moves its local hour */
    struct tm local;
    tzset();
    localtime_r(&instant, &local);
    const char* home = getenv("HOME");
    snprintf(scratch, cap, "// host: %d cpus, %s.%s, local hour %d, HOME %s\n", cpus, u.nodename,
             u.domainname, local.tm_hour, home ? home : "(unset)");
  } else if (strcmp(mode, "pair") == 0) {
    /* Leaks the working directory only when it and TMPDIR lie in one folder:
     * varying either alone changes nothing, varying both does. */
    char dir[PATH_MAX];
    const char* tmp = getenv("TMPDIR");
    if (!getcwd(dir, sizeof dir)) {
      die("getcwd", strerror(errno));
    }
    const char* a = strrchr(dir, '/');
    const char* b = tmp ? strrchr(tmp, '/') : NULL;
    if (!a || !b || a - dir != b - tmp || strncmp(dir, tmp, (size_t)(a - dir)) != 0) {
      return NULL;
    }
    snprintf(scratch, cap, "// cwd: %s\n", dir);
  } else {
    return NULL;
  }
  return scratch;
}

/* Whether `needle` occurs in the first `size` bytes of `text`. */
static int contains(const char* text, size_t size, const char* needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= size; ++i) {
    if (memcmp(text + i, needle, n) == 0) {
      return 1;
    }
  }
  return 0;
}

/* One byte of /dev/urandom. */
static unsigned random_byte(void) {
  unsigned char c = 0;
  FILE* f = fopen("/dev/urandom", "rb");
  if (!f || fread(&c, 1, 1, f) != 1) {
    die("/dev/urandom", "cannot read");
  }
  fclose(f);
  return c;
}

/* How many in 256 planted-kind runs crash: $FAKE_CC_KIND_CRASH (0..256), else 128 (half). */
static unsigned kind_crashes_in_256(void) {
  const char* v = getenv("FAKE_CC_KIND_CRASH");
  if (!v || !*v) {
    return 128;
  }
  char* end = NULL;
  long n = strtol(v, &end, 10);
  if (*end || n < 0 || n > 256) {
    die("FAKE_CC_KIND_CRASH", "not a whole number from 0 to 256");
  }
  return (unsigned)n;
}

/* A whole number from the variable `name`, else `fallback`; exits 2 on junk. */
static unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* v = getenv(name);
  if (!v || !*v) {
    return fallback;
  }
  char* end = NULL;
  unsigned long long n = strtoull(v, &end, 10);
  if (*end) {
    die(name, "not a whole number");
  }
  return n;
}

/* planted-flaky: whether this run crashes. The run's number N comes from the counter file
 * (read and bumped under a lock, so concurrent runs take distinct numbers); its fate is a
 * splitmix64 hash of the seed and N. */
static int flaky_run_crashes(void) {
  const char* path = getenv("FAKE_CC_FLAKY_COUNTER");
  if (!path || !*path) {
    die("planted-flaky", "FAKE_CC_FLAKY_COUNTER names no file");
  }
  unsigned long long in = env_number("FAKE_CC_FLAKY_IN", 3);
  unsigned long long seed = env_number("FAKE_CC_FLAKY_SEED", 1);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    die(path, strerror(errno));
  }
  char buf[32] = {0};
  ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
  unsigned long long n = got > 0 ? strtoull(buf, NULL, 10) : 0;
  int len = snprintf(buf, sizeof buf, "%llu\n", n + 1);
  if (pwrite(fd, buf, (size_t)len, 0) != len) {
    die(path, "cannot write");
  }
  close(fd); /* the lock goes with it */
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + n + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return in > 0 && z % in == 0;
}

/* oldptxas: when the first `.version X.Y` line of the PTX names a version above 8.5, prints
 * ptxas's two lines for it on stderr and returns 1 (the caller exits 255). */
static int old_ptxas_refuses(const char* input, const char* text, size_t size) {
  size_t line = 1;
  for (size_t i = 0; i < size; ++i) {
    if (i == 0 || text[i - 1] == '\n') {
      size_t j = i;
      while (j < size && (text[j] == ' ' || text[j] == '\t')) {
        ++j;
      }
      if (size - j > 9 && memcmp(text + j, ".version ", 9) == 0) {
        int major = 0, minor = 0;
        if (sscanf(text + j + 9, "%d.%d", &major, &minor) != 2) {
          return 0;
        }
        if (major < 8 || (major == 8 && minor <= 5)) {
          return 0;
        }
        fprintf(stderr,
                "ptxas %s, line %zu; fatal   : Unsupported .version %d.%d; current version is "
                "'8.5'\nptxas fatal   : Ptx assembly aborted due to errors\n",
                input, line, major, minor);
        return 1;
      }
    }
    if (text[i] == '\n') {
      ++line;
    }
  }
  return 0;
}

static int is_mode(const char* mode) {
  static const char* const k_modes[] = {
      "echo",         "heaporder",    "fail",          "crash", "abort",   "hang", "garbage",
      "time",         "path",         "env",           "pid",   "cwd",     "pair", "planted",
      "planted-rare", "planted-kind", "planted-flaky", "host",  "oldptxas"};
  for (size_t i = 0; i < sizeof k_modes / sizeof k_modes[0]; ++i) {
    if (strcmp(mode, k_modes[i]) == 0) {
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4 || !is_mode(argv[1])) {
    fputs(k_usage, stderr);
    return 2;
  }
  const char* mode = argv[1];
  const char* input = argv[2];
  const char* output = argv[3];
  if (strcmp(mode, "fail") == 0) {
    fputs("fake_cc: compilation failed (requested)\n", stderr);
    return 1;
  }
  if (strcmp(mode, "crash") == 0) {
    raise(SIGSEGV);
  }
  if (strcmp(mode, "abort") == 0) {
    abort();
  }
  if (strcmp(mode, "hang") == 0) {
    for (;;) {
      pause();
    }
  }
  if (strcmp(mode, "garbage") == 0) {
    return run_garbage(output);
  }
  if (strcmp(mode, "planted-flaky") == 0 && flaky_run_crashes()) {
    raise(SIGSEGV);
  }
  size_t size;
  char* text = read_file(input, &size);
  if (strcmp(mode, "oldptxas") == 0 && old_ptxas_refuses(input, text, size)) {
    return 255;
  }
  Buffer out = {0};
  if (strcmp(mode, "heaporder") == 0) {
    /* Order the lines before the output buffer exists so that only the
     * nodes' addresses decide the order. */
    Buffer lines = {0};
    heaporder_lines(text, size, &lines);
    buffer_append_str(&out, "// fake PTX\n");
    if (lines.size > 0) {
      buffer_append(&out, lines.data, lines.size);
    }
    out.failed |= lines.failed;
    free(lines.data);
  } else {
    char scratch[PATH_MAX + 64];
    const char* extra = leak_line(mode, input, scratch, sizeof scratch);
    int rare = strcmp(mode, "planted-rare") == 0;
    int kind = strcmp(mode, "planted-kind") == 0;
    int flaky = strcmp(mode, "planted-flaky") == 0;
    if (strcmp(mode, "planted") == 0 || rare || kind || flaky) {
      /* planted-kind: without a "kdet_keep" marker the variance changes kind: half the runs
       * crash (FAKE_CC_KIND_CRASH of 256 when set). */
      if (kind && contains(text, size, "kdet_planted") && !contains(text, size, "kdet_keep") &&
          random_byte() < kind_crashes_in_256()) {
        raise(SIGSEGV);
      }
      /* Varies (pid mode) only while the planted construct is in the input;
       * a "kdet_broken" marker is a compile error. */
      if (contains(text, size, "kdet_broken")) {
        fputs("fake_cc: kdet_broken in the input\n", stderr);
        return 1;
      }
      /* planted-rare: in a quarter of the runs (a byte of /dev/urandom below 64). */
      if (contains(text, size, "kdet_planted") && (!rare || random_byte() < 64)) {
        snprintf(scratch, sizeof scratch, "// pid: %ld\n", (long)getpid());
        extra = scratch;
      }
    }
    buffer_append_str(&out, "// fake PTX\n");
    if (extra) {
      buffer_append_str(&out, extra);
    }
    for_each_line(text, size, echo_line, &out);
  }
  if (out.failed) {
    die("out of memory", NULL);
  }
  write_file(output, out.data, out.size);
  free(out.data);
  free(text);
  return 0;
}
