/* libfakenvvm.c: a drop-in libNVVM (every function of nvvm.h) for kdet's tests.
 *
 * It injects, on demand, what the real libNVVM rarely shows: output that
 * follows heap addresses, failure, crash, abort, hang, garbage output, noise
 * on stdout/stderr and crashes at a known rate. The behaviour is picked by the
 * compile option -fake-mode=MODE (default echo; other options are ignored):
 *   echo        "// fake PTX\n" then each input line as "N: line\n"
 *   heaporder   the echo lines, ordered by a 16-bucket table keyed on the
 *               heap addresses of per-line nodes (pointer-keyed hash map)
 *   fail        NVVM_ERROR_COMPILATION, log "fake: compilation failed (requested)\n"
 *   crash       raise(SIGSEGV)          abort   abort()
 *   hang        pause() forever
 *   garbage     NVVM_SUCCESS, 1..4096 random bytes from /dev/urandom
 *   print       binary junk on fd 1 and fd 2, then echo
 *   loadaddr    echo plus "// at: ADDR", the address of this library's data:
 *               stable in one process, new in every process unless ASLR is off
 *   heapaddr    echo plus "// heap: ADDR", the address of a block this compile
 *               allocates: one per run's heap state, the same for every kdet
 *               build when ASLR is off (kdet aligns its workers' heap start)
 *   date        echo plus "// day: N", the UTC day number of time(NULL)
 *   slow        echo after 20 ms (a compile that outlasts a worker start)
 *   crash-rate  with -fake-rate=N (or -fake-mode=crash-rate=N): the Nth, 2Nth,
 *               ... crash-rate compile in this process crashes, others echo
 *   cwd-rate    with -fake-rate=N: echo, plus "// rare" where the hash of the
 *               working folder's name is 0 mod N (about 1 run in N under cwd=vary)
 * Apart from the injected behaviour everything here is deterministic: no time,
 * pid, rand or uninitialised memory reaches an output or a log.
 */
#define _POSIX_C_SOURCE 200809L
#include "fake_core.h"

#include <nvvm.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { k_magic = 0x46414b45 }; /* "FAKE": tells live handles from junk */

typedef enum {
  MODE_ECHO,
  MODE_HEAPORDER,
  MODE_FAIL,
  MODE_CRASH,
  MODE_ABORT,
  MODE_HANG,
  MODE_GARBAGE,
  MODE_PRINT,
  MODE_CRASH_RATE,
  MODE_PAIRORDER,
  MODE_LOADADDR,
  MODE_HEAPADDR,
  MODE_DATE,
  MODE_SLOW,
  MODE_CWD_RATE
} FakeMode;

struct _nvvmProgram {
  unsigned magic;
  char* input; /* all modules, concatenated in the order they were added */
  size_t input_size;
  int module_count;
  char* result; /* compiled output; NULL until a compile succeeds */
  size_t result_size;
  char* log; /* NUL-terminated, never NULL */
};

/* Counts crash-rate compiles in this process (any program, any thread). */
static atomic_ulong g_crash_rate_calls;

static int is_program(nvvmProgram prog) {
  return prog != NULL && prog->magic == k_magic;
}

static void set_log(nvvmProgram prog, const char* text) {
  char* copy = malloc(strlen(text) + 1);
  if (copy) {
    strcpy(copy, text);
    free(prog->log);
    prog->log = copy;
  }
}

static void set_result(nvvmProgram prog, char* data, size_t size) {
  free(prog->result);
  prog->result = data;
  prog->result_size = size;
}

/* pairorder: a tie between two equal candidates broken by pointer order, as
 * `a < b` on two objects allocated one after the other. A fresh heap hands
 * them out in ascending order; only reuse of freed blocks can flip it, so the
 * output changes rarely: the subtle kind of heap dependence. */
static int pair_flipped(void) {
  char* a = malloc(1024);
  char* b = malloc(1024);
  int flipped = a && b && (uintptr_t)b < (uintptr_t)a;
  free(b);
  free(a);
  return flipped;
}

/* compile_text's output with `extra` (a "// ..." line, or NULL) after the first line. */
static nvvmResult compile_text_with(nvvmProgram prog, int heaporder, const char* extra);

static nvvmResult compile_text(nvvmProgram prog, int heaporder) {
  return compile_text_with(prog, heaporder, NULL);
}

static nvvmResult compile_text_with(nvvmProgram prog, int heaporder, const char* extra) {
  Buffer out = {0};
  if (heaporder) {
    /* Build the table before the output buffer so that only the nodes'
     * addresses, not this buffer's, decide the order. */
    Buffer lines = {0};
    heaporder_lines(prog->input, prog->input_size, &lines);
    buffer_append(&out, "// fake PTX\n", 12);
    buffer_append(&out, lines.data ? lines.data : "", lines.size);
    out.failed |= lines.failed;
    free(lines.data);
  } else {
    buffer_append(&out, "// fake PTX\n", 12);
    if (extra) {
      buffer_append(&out, extra, strlen(extra));
    }
    for_each_line(prog->input, prog->input_size, echo_line, &out);
  }
  buffer_append(&out, "", 1); /* trailing NUL, counted in the size like real PTX */
  if (out.failed) {
    free(out.data);
    set_log(prog, "fake: out of memory\n");
    return NVVM_ERROR_OUT_OF_MEMORY;
  }
  set_result(prog, out.data, out.size);
  set_log(prog, "");
  return NVVM_SUCCESS;
}

static nvvmResult compile_garbage(nvvmProgram prog) {
  unsigned char header[2];
  FILE* f = fopen("/dev/urandom", "rb");
  if (!f || fread(header, 1, sizeof header, f) != sizeof header) {
    if (f) {
      fclose(f);
    }
    set_log(prog, "fake: cannot read /dev/urandom\n");
    return NVVM_ERROR_COMPILATION;
  }
  size_t size = 1 + (((size_t)header[0] << 8 | header[1]) % 4096);
  unsigned char* data = malloc(size);
  size_t got = data ? fread(data, 1, size, f) : 0;
  fclose(f);
  if (got != size) {
    free(data);
    set_log(prog, "fake: cannot read /dev/urandom\n");
    return NVVM_ERROR_COMPILATION;
  }
  /* Guarantee a NUL and a byte that is never valid UTF-8. */
  data[(header[0] + 0u) % size] = 0x00;
  if (size > 1) {
    size_t at = (header[1] + 1u) % size;
    if (at == header[0] % size) {
      at = (at + 1) % size;
    }
    data[at] = 0xFF;
  }
  set_result(prog, (char*)data, size);
  set_log(prog, "");
  return NVVM_SUCCESS;
}

static void write_all(int fd, const char* bytes, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, bytes, n);
    if (w <= 0) {
      return;
    }
    bytes += w;
    n -= (size_t)w;
  }
}

static void print_junk(void) {
  static const char out_junk[] = "fake nvvm: noise on stdout \x00\x01\x7f\x80\xfe\xff\n";
  static const char err_junk[] = "fake nvvm: noise on stderr \xc3\x28\x00\xff\n";
  write_all(1, out_junk, sizeof out_junk - 1);
  write_all(2, err_junk, sizeof err_junk - 1);
}

/* Parses -fake-mode=/-fake-rate=; returns 0 or an error (log already set). */
static nvvmResult parse_options(nvvmProgram prog, int n, const char** options, FakeMode* mode,
                                unsigned long* rate) {
  static const struct {
    const char* name;
    FakeMode mode;
  } k_modes[] = {
      {"echo", MODE_ECHO},           {"heaporder", MODE_HEAPORDER}, {"fail", MODE_FAIL},
      {"crash", MODE_CRASH},         {"abort", MODE_ABORT},         {"hang", MODE_HANG},
      {"garbage", MODE_GARBAGE},     {"print", MODE_PRINT},         {"crash-rate", MODE_CRASH_RATE},
      {"pairorder", MODE_PAIRORDER}, {"loadaddr", MODE_LOADADDR},   {"heapaddr", MODE_HEAPADDR},
      {"date", MODE_DATE},           {"slow", MODE_SLOW},           {"cwd-rate", MODE_CWD_RATE}};
  *mode = MODE_ECHO;
  *rate = 0;
  if (n < 0 || (n > 0 && options == NULL)) {
    set_log(prog, "fake: invalid option list\n");
    return NVVM_ERROR_INVALID_OPTION;
  }
  for (int i = 0; i < n; ++i) {
    const char* opt = options[i];
    if (opt == NULL) {
      set_log(prog, "fake: NULL option\n");
      return NVVM_ERROR_INVALID_OPTION;
    }
    const char* rate_text = NULL;
    if (strncmp(opt, "-fake-mode=", 11) == 0) {
      const char* name = opt + 11;
      int found = 0;
      if (strncmp(name, "crash-rate=", 11) == 0) {
        *mode = MODE_CRASH_RATE;
        rate_text = name + 11;
        found = 1;
      }
      for (size_t m = 0; !found && m < sizeof k_modes / sizeof k_modes[0]; ++m) {
        if (strcmp(name, k_modes[m].name) == 0) {
          *mode = k_modes[m].mode;
          found = 1;
        }
      }
      if (!found) {
        set_log(prog, "fake: unknown -fake-mode (valid: echo, heaporder, fail, crash, abort, "
                      "hang, garbage, print, crash-rate, pairorder, loadaddr, heapaddr, date, "
                      "slow, cwd-rate)\n");
        return NVVM_ERROR_INVALID_OPTION;
      }
    } else if (strncmp(opt, "-fake-rate=", 11) == 0) {
      rate_text = opt + 11;
    }
    if (rate_text) {
      char* end = NULL;
      unsigned long v = strtoul(rate_text, &end, 10);
      if (*rate_text == '\0' || *end != '\0' || v == 0) {
        set_log(prog, "fake: -fake-rate must be a whole number >= 1\n");
        return NVVM_ERROR_INVALID_OPTION;
      }
      *rate = v;
    }
  }
  if ((*mode == MODE_CRASH_RATE || *mode == MODE_CWD_RATE) && *rate == 0) {
    set_log(prog, *mode == MODE_CRASH_RATE
                      ? "fake: -fake-mode=crash-rate needs -fake-rate=N (N >= 1)\n"
                      : "fake: -fake-mode=cwd-rate needs -fake-rate=N (N >= 1)\n");
    return NVVM_ERROR_INVALID_OPTION;
  }
  return NVVM_SUCCESS;
}

const char* nvvmGetErrorString(nvvmResult result) {
  switch (result) {
  case NVVM_SUCCESS:
    return "NVVM_SUCCESS";
  case NVVM_ERROR_OUT_OF_MEMORY:
    return "NVVM_ERROR_OUT_OF_MEMORY";
  case NVVM_ERROR_PROGRAM_CREATION_FAILURE:
    return "NVVM_ERROR_PROGRAM_CREATION_FAILURE";
  case NVVM_ERROR_IR_VERSION_MISMATCH:
    return "NVVM_ERROR_IR_VERSION_MISMATCH";
  case NVVM_ERROR_INVALID_INPUT:
    return "NVVM_ERROR_INVALID_INPUT";
  case NVVM_ERROR_INVALID_PROGRAM:
    return "NVVM_ERROR_INVALID_PROGRAM";
  case NVVM_ERROR_INVALID_IR:
    return "NVVM_ERROR_INVALID_IR";
  case NVVM_ERROR_INVALID_OPTION:
    return "NVVM_ERROR_INVALID_OPTION";
  case NVVM_ERROR_NO_MODULE_IN_PROGRAM:
    return "NVVM_ERROR_NO_MODULE_IN_PROGRAM";
  case NVVM_ERROR_COMPILATION:
    return "NVVM_ERROR_COMPILATION";
  case NVVM_ERROR_CANCELLED:
    return "NVVM_ERROR_CANCELLED";
  }
  return "NVVM_ERROR_UNKNOWN";
}

nvvmResult nvvmVersion(int* major, int* minor) {
  if (!major || !minor) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  *major = 99;
  *minor = 1;
  return NVVM_SUCCESS;
}

nvvmResult nvvmIRVersion(int* majorIR, int* minorIR, int* majorDbg, int* minorDbg) {
  if (!majorIR || !minorIR || !majorDbg || !minorDbg) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  *majorIR = 2;
  *minorIR = 0;
  *majorDbg = 3;
  *minorDbg = 1;
  return NVVM_SUCCESS;
}

nvvmResult nvvmCreateProgram(nvvmProgram* prog) {
  if (!prog) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  struct _nvvmProgram* p = calloc(1, sizeof *p);
  char* log = calloc(1, 1);
  if (!p || !log) {
    free(p);
    free(log);
    return NVVM_ERROR_OUT_OF_MEMORY;
  }
  p->magic = k_magic;
  p->log = log;
  *prog = p;
  return NVVM_SUCCESS;
}

nvvmResult nvvmDestroyProgram(nvvmProgram* prog) {
  if (!prog || !is_program(*prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  struct _nvvmProgram* p = *prog;
  p->magic = 0;
  free(p->input);
  free(p->result);
  free(p->log);
  free(p);
  *prog = NULL;
  return NVVM_SUCCESS;
}

nvvmResult nvvmAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size,
                                  const char* name) {
  (void)name; /* names never reach the output: kdet may vary them */
  if (!is_program(prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (!buffer) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  char* grown = realloc(prog->input, prog->input_size + size + 1);
  if (!grown) {
    return NVVM_ERROR_OUT_OF_MEMORY;
  }
  memcpy(grown + prog->input_size, buffer, size);
  prog->input = grown;
  prog->input_size += size;
  prog->input[prog->input_size] = '\0';
  prog->module_count++;
  return NVVM_SUCCESS;
}

nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram prog, const char* buffer, size_t size,
                                      const char* name) {
  return nvvmAddModuleToProgram(prog, buffer, size, name);
}

nvvmResult nvvmCompileProgram(nvvmProgram prog, int numOptions, const char** options) {
  if (!is_program(prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  FakeMode mode;
  unsigned long rate;
  nvvmResult rc = parse_options(prog, numOptions, options, &mode, &rate);
  if (rc != NVVM_SUCCESS) {
    return rc;
  }
  if (prog->module_count == 0) {
    set_log(prog, "fake: no module in program\n");
    return NVVM_ERROR_NO_MODULE_IN_PROGRAM;
  }
  set_result(prog, NULL, 0);
  switch (mode) {
  case MODE_ECHO:
    return compile_text(prog, 0);
  case MODE_HEAPORDER:
    return compile_text(prog, 1);
  case MODE_PAIRORDER: {
    nvvmResult r = compile_text(prog, 0);
    if (r == NVVM_SUCCESS && pair_flipped() && prog->result_size > 1) {
      /* Mark the flip in the output: the "other candidate" was chosen. */
      prog->result[prog->result_size - 2] = '!';
    }
    return r;
  }
  case MODE_LOADADDR: {
    /* Where this library was loaded: one value per process, a new one in every
     * process unless ASLR is off (like a compiler that hashes a pointer into
     * its own static data). */
    char line[64];
    snprintf(line, sizeof line, "// at: %#lx\n", (unsigned long)(uintptr_t)&g_crash_rate_calls);
    return compile_text_with(prog, 0, line);
  }
  case MODE_HEAPADDR: {
    /* A small block from the main heap (brk), as a compiler's per-node
     * allocations are: what an address-following compiler keys on. */
    void* block = malloc(64);
    char line[64];
    snprintf(line, sizeof line, "// heap: %#lx\n", (unsigned long)(uintptr_t)block);
    free(block);
    return compile_text_with(prog, 0, line);
  }
  case MODE_DATE: {
    /* The day (UTC): stable under the real clock within a day and under a fixed
     * fake time, different under a varied one. */
    char line[64];
    snprintf(line, sizeof line, "// day: %lld\n", (long long)(time(NULL) / 86400));
    return compile_text_with(prog, 0, line);
  }
  case MODE_CWD_RATE: {
    /* A seeded rate: the other output when the FNV-1a hash of the working folder's last
     * name is 0 mod N. kdet's cwd=vary names each run's folder from the run's seed, so about
     * 1 run in N differs, and which ones is a function of kdet's --seed. */
    char cwd[4096];
    const char* base = getcwd(cwd, sizeof cwd) ? strrchr(cwd, '/') : NULL;
    uint64_t h = 1469598103934665603ULL;
    for (const char* c = base ? base + 1 : ""; *c; ++c) {
      h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    }
    return compile_text_with(prog, 0, h % rate == 0 ? "// rare\n" : NULL);
  }
  case MODE_SLOW: {
    struct timespec t = {0, 20 * 1000 * 1000};
    nanosleep(&t, NULL);
    return compile_text(prog, 0);
  }
  case MODE_FAIL:
    set_log(prog, "fake: compilation failed (requested)\n");
    return NVVM_ERROR_COMPILATION;
  case MODE_CRASH:
    raise(SIGSEGV);
    break;
  case MODE_ABORT:
    abort();
  case MODE_HANG:
    for (;;) {
      pause();
    }
  case MODE_GARBAGE:
    return compile_garbage(prog);
  case MODE_PRINT:
    print_junk();
    return compile_text(prog, 0);
  case MODE_CRASH_RATE:
    if ((atomic_fetch_add(&g_crash_rate_calls, 1) + 1) % rate == 0) {
      raise(SIGSEGV);
    }
    return compile_text(prog, 0);
  }
  /* Reached only if a SIGSEGV handler returned. */
  set_log(prog, "fake: survived an injected crash\n");
  return NVVM_ERROR_COMPILATION;
}

nvvmResult nvvmVerifyProgram(nvvmProgram prog, int numOptions, const char** options) {
  (void)numOptions;
  (void)options;
  if (!is_program(prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (prog->module_count == 0) {
    set_log(prog, "fake: no module in program\n");
    return NVVM_ERROR_NO_MODULE_IN_PROGRAM;
  }
  set_log(prog, "");
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetCompiledResultSize(nvvmProgram prog, size_t* bufferSizeRet) {
  if (!is_program(prog) || !prog->result) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (!bufferSizeRet) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  *bufferSizeRet = prog->result_size;
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetCompiledResult(nvvmProgram prog, char* buffer) {
  if (!is_program(prog) || !prog->result) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (!buffer) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  memcpy(buffer, prog->result, prog->result_size);
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetProgramLogSize(nvvmProgram prog, size_t* bufferSizeRet) {
  if (!is_program(prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (!bufferSizeRet) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  *bufferSizeRet = strlen(prog->log) + 1;
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetProgramLog(nvvmProgram prog, char* buffer) {
  if (!is_program(prog)) {
    return NVVM_ERROR_INVALID_PROGRAM;
  }
  if (!buffer) {
    return NVVM_ERROR_INVALID_INPUT;
  }
  memcpy(buffer, prog->log, strlen(prog->log) + 1);
  return NVVM_SUCCESS;
}
