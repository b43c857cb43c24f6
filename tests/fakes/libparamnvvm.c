/* libparamnvvm.c: a libNVVM look-alike whose PTX varies only under a condition.
 *
 * Every function of nvvm.h forwards to the real libNVVM (dlopen'd), so it
 * parses, verifies, refuses and compiles exactly as the real one does. Its one
 * difference: when the PTX of a successful compile has an entry (.entry) that
 * loads two or more of its own parameters in a row, about one compile in N
 * (-fake-rate=N, default 3) gets "// kdet-lookalike: rare" appended, chosen
 * by a hash of the address of a block the compile allocates and a count of
 * this process's compiles (so it follows the heap and ASLR, as a real
 * heap-dependent compiler does). Without such an entry the PTX is the real one.
 *
 * "In a row" on real PTX: ld.param instructions whose address names the
 * entry's own parameters ([ENTRY_param_K] or [ENTRY_param_K+OFF]), with no
 * other instruction and no label between them; blank lines, comments and
 * directives such as .loc (debug line info) in between do not break a row.
 * A load of a call's return value ([retval0]) is no parameter load.
 *
 * Its one option, removed before the real library sees the rest:
 *   -fake-rate=N       one compile in about N varies (N >= 1; default 3)
 * The real libNVVM: $FAKE_NVVM_REAL, else /usr/local/cuda/nvvm/lib64/libnvvm.so,
 * else /usr/local/cuda/lib64/libnvvm.so. One that cannot be loaded gives
 * NVVM_ERROR_INVALID_INPUT from every call (and a log naming it from a compile).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <nvvm.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { k_magic = 0x504e564d }; /* "PNVM" */

struct _nvvmProgram {
  unsigned magic;
  nvvmProgram real;
  char* result; /* the output as this library gives it; NULL until a compile succeeds */
  size_t result_size;
  char* log; /* our own log (a refused option, no library); NULL: the real one's */
};

typedef nvvmResult (*create_fn)(nvvmProgram*);
typedef nvvmResult (*destroy_fn)(nvvmProgram*);
typedef nvvmResult (*add_fn)(nvvmProgram, const char*, size_t, const char*);
typedef nvvmResult (*compile_fn)(nvvmProgram, int, const char**);
typedef nvvmResult (*size_fn)(nvvmProgram, size_t*);
typedef nvvmResult (*get_fn)(nvvmProgram, char*);
typedef nvvmResult (*version_fn)(int*, int*);
typedef nvvmResult (*irversion_fn)(int*, int*, int*, int*);
typedef const char* (*error_fn)(nvvmResult);

static struct {
  void* handle;
  char path[4096];
  create_fn create;
  destroy_fn destroy;
  add_fn add, lazy_add;
  compile_fn compile, verify;
  size_fn result_size, log_size;
  get_fn result, log;
  version_fn version;
  irversion_fn ir_version;
  error_fn error_string;
} g_real;

static atomic_ulong g_compiles;

static const char* default_real(void) {
  const char* env = getenv("FAKE_NVVM_REAL");
  if (env && *env) return env;
  static const char* const k_paths[] = {"/usr/local/cuda/nvvm/lib64/libnvvm.so",
                                        "/usr/local/cuda/lib64/libnvvm.so"};
  for (size_t i = 0; i < sizeof k_paths / sizeof k_paths[0]; ++i)
    if (access(k_paths[i], R_OK) == 0) return k_paths[i];
  return k_paths[0];
}

/* Loads the real library (once per process). */
static int load_real(void) {
  if (g_real.handle) return 1;
  const char* path = default_real();
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  snprintf(g_real.path, sizeof g_real.path, "%s", path);
  if (!h) return 0;
#define KDET_SYM(field, type, name)                                                                \
  do {                                                                                             \
    void* sym = dlsym(h, name);                                                                    \
    memcpy(&g_real.field, &sym, sizeof sym);                                                       \
    if (!sym) return 0;                                                                            \
  } while (0)
  KDET_SYM(create, create_fn, "nvvmCreateProgram");
  KDET_SYM(destroy, destroy_fn, "nvvmDestroyProgram");
  KDET_SYM(add, add_fn, "nvvmAddModuleToProgram");
  KDET_SYM(lazy_add, add_fn, "nvvmLazyAddModuleToProgram");
  KDET_SYM(compile, compile_fn, "nvvmCompileProgram");
  KDET_SYM(verify, compile_fn, "nvvmVerifyProgram");
  KDET_SYM(result_size, size_fn, "nvvmGetCompiledResultSize");
  KDET_SYM(result, get_fn, "nvvmGetCompiledResult");
  KDET_SYM(log_size, size_fn, "nvvmGetProgramLogSize");
  KDET_SYM(log, get_fn, "nvvmGetProgramLog");
  KDET_SYM(version, version_fn, "nvvmVersion");
  KDET_SYM(ir_version, irversion_fn, "nvvmIRVersion");
  KDET_SYM(error_string, error_fn, "nvvmGetErrorString");
#undef KDET_SYM
  g_real.handle = h;
  return 1;
}

static int is_program(nvvmProgram p) {
  return p != NULL && p->magic == k_magic;
}

static void set_log(nvvmProgram p, const char* text) {
  free(p->log);
  p->log = strdup(text);
}

/* The next line of [*at, end): its start, its length without the newline; advances *at. */
static const char* next_line(const char** at, const char* end, size_t* len) {
  const char* s = *at;
  const char* nl = memchr(s, '\n', (size_t)(end - s));
  const char* e = nl ? nl : end;
  *len = (size_t)(e - s);
  *at = nl ? nl + 1 : end;
  return s;
}

/* Whether an entry of the PTX loads two or more of its own parameters in a row. */
static int consecutive_param_loads(const char* ptx, size_t size) {
  const char* at = ptx;
  const char* end = ptx + size;
  char entry[2048] = "";
  size_t entry_len = 0;
  int in_entry = 0, row = 0;
  while (at < end) {
    size_t len;
    const char* line = next_line(&at, end, &len);
    while (len > 0 && (*line == ' ' || *line == '\t')) {
      ++line;
      --len;
    }
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
      --len;
    const char* e = len >= 6 ? strstr(line, ".entry ") : NULL;
    if (e && e < line + len) { /* ".visible .entry NAME(" */
      const char* n = e + 7;
      while (n < line + len && *n == ' ')
        ++n;
      size_t k = 0;
      while (n + k < line + len && n[k] != '(' && n[k] != ' ' && k + 1 < sizeof entry)
        ++k;
      memcpy(entry, n, k);
      entry[k] = '\0';
      entry_len = k;
      in_entry = 1;
      row = 0;
      continue;
    }
    if (!in_entry || len == 0) continue;
    if (line[0] == '}' && len == 1) { /* a body ends at a closing brace of its own */
      in_entry = 0;
      continue;
    }
    if (line[0] == '/' || line[0] == '.' || line[0] == '{' || line[0] == '}' || line[0] == ')')
      continue; /* comments, .loc/.reg/.param lines, braces of inner scopes */
    int is_load = 0;
    if (len > 8 && strncmp(line, "ld.param", 8) == 0) {
      const char* b = memchr(line, '[', len);
      is_load = b && entry_len > 0 && (size_t)(line + len - b) > entry_len + 7 &&
                strncmp(b + 1, entry, entry_len) == 0 &&
                strncmp(b + 1 + entry_len, "_param_", 7) == 0;
    }
    row = is_load ? row + 1 : 0;
    if (row >= 2) return 1;
  }
  return 0;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

nvvmResult nvvmVersion(int* major, int* minor) {
  if (!load_real()) return NVVM_ERROR_INVALID_INPUT;
  return g_real.version(major, minor);
}

nvvmResult nvvmIRVersion(int* a, int* b, int* c, int* d) {
  if (!load_real()) return NVVM_ERROR_INVALID_INPUT;
  return g_real.ir_version(a, b, c, d);
}

const char* nvvmGetErrorString(nvvmResult r) {
  if (!load_real()) return "libparamnvvm: the real libNVVM could not be loaded";
  return g_real.error_string(r);
}

nvvmResult nvvmCreateProgram(nvvmProgram* prog) {
  if (!prog) return NVVM_ERROR_INVALID_INPUT;
  nvvmProgram p = calloc(1, sizeof *p);
  if (!p) return NVVM_ERROR_OUT_OF_MEMORY;
  p->magic = k_magic;
  *prog = p;
  return NVVM_SUCCESS;
}

nvvmResult nvvmDestroyProgram(nvvmProgram* prog) {
  if (!prog || !is_program(*prog)) return NVVM_ERROR_INVALID_PROGRAM;
  nvvmProgram p = *prog;
  if (p->real) g_real.destroy(&p->real);
  free(p->result);
  free(p->log);
  p->magic = 0;
  free(p);
  *prog = NULL;
  return NVVM_SUCCESS;
}

/* The real program, created on first use. */
static nvvmResult real_program(nvvmProgram p) {
  if (p->real) return NVVM_SUCCESS;
  if (!load_real()) return NVVM_ERROR_INVALID_INPUT;
  return g_real.create(&p->real);
}

nvvmResult nvvmAddModuleToProgram(nvvmProgram p, const char* buf, size_t size, const char* name) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  nvvmResult r = real_program(p);
  return r == NVVM_SUCCESS ? g_real.add(p->real, buf, size, name) : r;
}

nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram p, const char* buf, size_t size,
                                      const char* name) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  nvvmResult r = real_program(p);
  return r == NVVM_SUCCESS ? g_real.lazy_add(p->real, buf, size, name) : r;
}

/* Splits off this library's options; the rest in `rest` (*n_rest of them). 0 on a bad one. */
static int own_options(nvvmProgram p, int n, const char** opts, const char** rest, int* n_rest,
                       unsigned long* rate) {
  *n_rest = 0;
  for (int i = 0; i < n; ++i) {
    const char* o = opts[i];
    if (o && strncmp(o, "-fake-rate=", 11) == 0) {
      char* end = NULL;
      *rate = strtoul(o + 11, &end, 10);
      if (*rate == 0 || !end || *end) {
        set_log(p, "libparamnvvm: -fake-rate=N needs a whole number N >= 1\n");
        return 0;
      }
    } else {
      rest[(*n_rest)++] = o;
    }
  }
  return 1;
}

static nvvmResult compile_or_verify(nvvmProgram p, int n, const char** opts, int compile) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  if (n < 0 || (n > 0 && !opts)) return NVVM_ERROR_INVALID_INPUT;
  free(p->log);
  p->log = NULL;
  free(p->result);
  p->result = NULL;
  const char** rest = calloc((size_t)n + 1, sizeof *rest);
  if (!rest) return NVVM_ERROR_OUT_OF_MEMORY;
  int n_rest = 0;
  unsigned long rate = 3;
  if (!own_options(p, n, opts, rest, &n_rest, &rate)) {
    free(rest);
    return NVVM_ERROR_INVALID_OPTION;
  }
  nvvmResult r = real_program(p);
  if (r != NVVM_SUCCESS) {
    char msg[4200];
    snprintf(msg, sizeof msg, "libparamnvvm: cannot load the real libNVVM %s\n", g_real.path);
    set_log(p, msg);
    free(rest);
    return r;
  }
  r = compile ? g_real.compile(p->real, n_rest, rest) : g_real.verify(p->real, n_rest, rest);
  free(rest);
  if (!compile || r != NVVM_SUCCESS) return r;
  size_t size = 0;
  if (g_real.result_size(p->real, &size) != NVVM_SUCCESS || size == 0) return r;
  static const char k_rare[] = "// kdet-lookalike: rare\n";
  char* out = malloc(size + sizeof k_rare);
  if (!out) return NVVM_ERROR_OUT_OF_MEMORY;
  g_real.result(p->real, out);
  size_t len = strnlen(out, size);
  /* The heap address of a block of this compile and the process's compile count. */
  void* probe = malloc(64);
  uint64_t h = splitmix64((uint64_t)(uintptr_t)probe ^ (atomic_fetch_add(&g_compiles, 1) << 48));
  int rare = consecutive_param_loads(out, len) && h % rate == 0;
  free(probe);
  if (rare) {
    memcpy(out + len, k_rare, sizeof k_rare); /* with its NUL */
    len += sizeof k_rare - 1;
  }
  free(p->result);
  p->result = out;
  p->result_size = len + 1;
  return NVVM_SUCCESS;
}

nvvmResult nvvmCompileProgram(nvvmProgram p, int n, const char** opts) {
  return compile_or_verify(p, n, opts, 1);
}

nvvmResult nvvmVerifyProgram(nvvmProgram p, int n, const char** opts) {
  return compile_or_verify(p, n, opts, 0);
}

nvvmResult nvvmGetCompiledResultSize(nvvmProgram p, size_t* size) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  if (!size) return NVVM_ERROR_INVALID_INPUT;
  if (!p->result)
    return p->real ? g_real.result_size(p->real, size) : NVVM_ERROR_NO_MODULE_IN_PROGRAM;
  *size = p->result_size;
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetCompiledResult(nvvmProgram p, char* buf) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  if (!buf) return NVVM_ERROR_INVALID_INPUT;
  if (!p->result) return p->real ? g_real.result(p->real, buf) : NVVM_ERROR_NO_MODULE_IN_PROGRAM;
  memcpy(buf, p->result, p->result_size);
  return NVVM_SUCCESS;
}

nvvmResult nvvmGetProgramLogSize(nvvmProgram p, size_t* size) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  if (!size) return NVVM_ERROR_INVALID_INPUT;
  if (p->log || !p->real) {
    *size = p->log ? strlen(p->log) + 1 : 1;
    return NVVM_SUCCESS;
  }
  return g_real.log_size(p->real, size);
}

nvvmResult nvvmGetProgramLog(nvvmProgram p, char* buf) {
  if (!is_program(p)) return NVVM_ERROR_INVALID_PROGRAM;
  if (!buf) return NVVM_ERROR_INVALID_INPUT;
  if (p->log || !p->real) {
    const char* text = p->log ? p->log : "";
    memcpy(buf, text, strlen(text) + 1);
    return NVVM_SUCCESS;
  }
  return g_real.log(p->real, buf);
}
