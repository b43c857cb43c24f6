//===- capture/preload/programs.cpp - what each wrapped call records --------===//
//
// Each call is forwarded to the real library first (or, for a compile, right
// after its record's header is on disk, so a compile that kills the process
// still leaves its inputs), and its result is returned untouched. Per program
// handle, the inputs seen so far are kept as ready-made record lines.
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <new>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet_capture {

void* real_fn(int slot, int f); // interpose.cpp
bool nested_call();             // interpose.cpp: the library calling itself; record nothing

namespace {

// Function indices (slots.hpp's order) used here.
enum {
  k_nvvm_create = 0,
  k_nvvm_destroy,
  k_nvvm_add,
  k_nvvm_lazy_add,
  k_nvvm_verify,
  k_nvvm_compile,
  k_nvvm_result_size,
  k_nvvm_result,
  k_nvvm_log_size,
  k_nvvm_log,
  k_nvrtc_create,
  k_nvrtc_destroy,
  k_nvrtc_compile,
  k_nvrtc_add_name,
  k_nvrtc_ptx_size, // then ptx, cubin size, cubin, ltoir size, ltoir
  k_jl_base = k_nvrtc_ptx_size + 6,
};
// nvJitLink's functions, in slots.hpp's order; the versioned names follow the plain ones.
enum {
  k_jl_create = 0,
  k_jl_destroy,
  k_jl_add_data,
  k_jl_add_file,
  k_jl_complete,
  k_jl_cubin_size, // then cubin, ptx size, ptx
  k_jl_err_size = k_jl_cubin_size + 4,
  k_jl_err,
  k_jl_info_size,
  k_jl_info,
  k_jl_count,
};
constexpr int jl_fn(int v, int op) {
  return k_jl_base + v * k_jl_count + op;
}
// Returned when the real function cannot be found: an error code in both APIs
// (NVVM_ERROR_INVALID_OPTION, NVRTC_ERROR_BUILTIN_OPERATION_FAILURE), never success.
constexpr int k_missing = 7;
constexpr const char* k_nvrtc_outputs[] = {"ptx", "cubin", "ltoir"};

struct Prog {
  void* key = nullptr;
  Prog* next = nullptr;
  Buf inputs;          // record lines for the inputs added so far
  size_t size[4] = {}; // sizes the pipeline asked for: nvvm result, or ptx/cubin/ltoir
  bool have_size[4] = {};
  bool recorded[4] = {}; // output already recorded for this compile
  bool log_recorded = false;
  bool info_recorded = false; // nvJitLink's info log
  Buf opts;                   // nvJitLink: the options given at creation, as record lines
  unsigned long long rec = 0; // the current compile's record id (0: none)
};

constexpr size_t k_buckets = 1024;
Prog* g_progs[k_buckets];
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

void on_fork_child() {
  pthread_mutex_init(&g_lock, nullptr);
}
__attribute__((constructor)) void init() {
  pthread_atfork(nullptr, nullptr, on_fork_child);
}

size_t bucket(void* key) {
  auto k = reinterpret_cast<uintptr_t>(key);
  return (k >> 4 ^ k >> 14) % k_buckets;
}

Prog* add_prog(void* key) {
  if (!key || nested_call() || !capture_dir()) return nullptr;
  void* mem = std::calloc(1, sizeof(Prog));
  if (!mem) return nullptr;
  Prog* p = new (mem) Prog;
  p->key = key;
  pthread_mutex_lock(&g_lock);
  Prog** b = &g_progs[bucket(key)];
  p->next = *b;
  *b = p;
  pthread_mutex_unlock(&g_lock);
  return p;
}

Prog* find_prog(void* key) {
  if (nested_call()) return nullptr;
  pthread_mutex_lock(&g_lock);
  Prog* p = g_progs[bucket(key)];
  while (p && p->key != key)
    p = p->next;
  pthread_mutex_unlock(&g_lock);
  return p;
}

void drop_prog(void* key) {
  if (nested_call()) return;
  pthread_mutex_lock(&g_lock);
  Prog** b = &g_progs[bucket(key)];
  while (*b && (*b)->key != key)
    b = &(*b)->next;
  Prog* p = *b;
  if (p) *b = p->next;
  pthread_mutex_unlock(&g_lock);
  if (p) {
    p->inputs.release();
    p->opts.release();
    std::free(p);
  }
}

// Writes a new record for a compile of `prog` about to start.
void begin_record(Prog* p, const char* kind, int slot, int fn, int n, const char* const* opts) {
  p->rec = 0;
  for (int i = 0; i < 4; ++i)
    p->recorded[i] = p->have_size[i] = false;
  p->log_recorded = p->info_recorded = false;
  Buf b;
  add_record_header(b, kind);
  char path[PATH_MAX], hash[33];
  unsigned long long size = 0;
  if (void* f = real_fn(slot, fn); f && library_identity(f, path, sizeof path, hash, &size)) {
    b.add("lib ");
    b.add_text(path);
    b.add("\nlib_hash ");
    b.add(hash);
    b.add("\nlib_size ");
    b.add_u64(size);
    b.add("\n");
  }
  if (p->inputs.size) b.add(p->inputs.data, p->inputs.size);
  if (p->opts.size) b.add(p->opts.data, p->opts.size);
  for (int i = 0; i < n && opts; ++i) {
    b.add("option ");
    b.add_text(opts[i]);
    b.add("\n");
  }
  b.add("begin\n");
  if (!create_record(b, &p->rec)) p->rec = 0;
  write_maps_at_first_compile();
  b.release();
}

void end_record(Prog* p, int rc) {
  if (!p->rec) return;
  Buf b;
  b.add("result ");
  b.add_u64(static_cast<unsigned long long>(static_cast<unsigned>(rc)));
  b.add("\n");
  if (!b.failed) append_record(p->rec, b.data, b.size);
  b.release();
}

// An output line ("output KIND HASH SIZE"), or a log line ("KIND HASH SIZE") when `is_log`.
void record_output(Prog* p, const char* kind, const char* data, size_t size, bool is_log) {
  char hash[33];
  store_blob(data, size, hash);
  Buf b;
  if (is_log) {
    b.add(kind);
    b.add(" ");
  } else {
    b.add("output ");
    b.add(kind);
    b.add(" ");
  }
  b.add(hash);
  b.add(" ");
  b.add_u64(size);
  b.add("\n");
  if (!b.failed) append_record(p->rec, b.data, b.size);
  b.release();
}

// "TAG HASH SIZE [FLAG] NAME": FLAG is the lazy flag (nvvm) or the input type (nvJitLink); none
// when < 0.
void add_input_line(Prog* p, const char* tag, const char* data, size_t size, const char* name,
                    int lazy) {
  char hash[33];
  store_blob(data, size, hash);
  p->inputs.add(tag);
  p->inputs.add(" ");
  p->inputs.add(hash);
  p->inputs.add(" ");
  p->inputs.add_u64(size);
  p->inputs.add(" ");
  if (lazy >= 0) {
    p->inputs.add_u64(static_cast<unsigned long long>(lazy));
    p->inputs.add(" ");
  }
  p->inputs.add_text(name);
  p->inputs.add("\n");
}

template <typename F> F real(int slot, int f) {
  return reinterpret_cast<F>(real_fn(slot, f));
}

using CreateFn = int (*)(void**);
using SizeFn = int (*)(void*, size_t*);
using BufFn = int (*)(void*, char*);

} // namespace

// ---- libNVVM -----------------------------------------------------------------

int nvvm_create(int slot, void** prog) {
  auto f = real<CreateFn>(slot, k_nvvm_create);
  if (!f) return k_missing;
  int rc = f(prog);
  if (rc == 0 && prog) add_prog(*prog);
  return rc;
}

int nvvm_destroy(int slot, void** prog) {
  auto f = real<CreateFn>(slot, k_nvvm_destroy);
  if (!f) return k_missing;
  void* key = prog ? *prog : nullptr;
  int rc = f(prog);
  if (rc == 0 && key) drop_prog(key);
  return rc;
}

int nvvm_add(int slot, void* prog, const char* buf, size_t size, const char* name, bool lazy) {
  using Fn = int (*)(void*, const char*, size_t, const char*);
  auto f = real<Fn>(slot, lazy ? k_nvvm_lazy_add : k_nvvm_add);
  if (!f) return k_missing;
  int rc = f(prog, buf, size, name);
  if (rc == 0 && buf)
    if (Prog* p = find_prog(prog)) add_input_line(p, "module", buf, size, name, lazy ? 1 : 0);
  return rc;
}

int nvvm_verify(int slot, void* prog, int n, const char** opts) {
  using Fn = int (*)(void*, int, const char**);
  auto f = real<Fn>(slot, k_nvvm_verify);
  return f ? f(prog, n, opts) : k_missing;
}

int nvvm_compile(int slot, void* prog, int n, const char** opts) {
  using Fn = int (*)(void*, int, const char**);
  auto f = real<Fn>(slot, k_nvvm_compile);
  if (!f) return k_missing;
  Prog* p = find_prog(prog);
  if (p) begin_record(p, "nvvm", slot, k_nvvm_compile, n, opts);
  int rc = f(prog, n, opts);
  if (p) end_record(p, rc);
  return rc;
}

int nvvm_result_size(int slot, void* prog, size_t* size) {
  auto f = real<SizeFn>(slot, k_nvvm_result_size);
  if (!f) return k_missing;
  int rc = f(prog, size);
  if (rc == 0 && size)
    if (Prog* p = find_prog(prog)) {
      p->size[0] = *size;
      p->have_size[0] = true;
    }
  return rc;
}

int nvvm_result(int slot, void* prog, char* buf) {
  auto f = real<BufFn>(slot, k_nvvm_result);
  if (!f) return k_missing;
  int rc = f(prog, buf);
  Prog* p = rc == 0 && buf ? find_prog(prog) : nullptr;
  if (p && p->rec && !p->recorded[0]) {
    size_t size = p->size[0];
    auto sf = real<SizeFn>(slot, k_nvvm_result_size);
    if (p->have_size[0] || (sf && sf(prog, &size) == 0)) {
      record_output(p, "nvvm", buf, size, false);
      p->recorded[0] = true;
    }
  }
  return rc;
}

int nvvm_log_size(int slot, void* prog, size_t* size) {
  auto f = real<SizeFn>(slot, k_nvvm_log_size);
  return f ? f(prog, size) : k_missing;
}

int nvvm_log(int slot, void* prog, char* buf) {
  auto f = real<BufFn>(slot, k_nvvm_log);
  if (!f) return k_missing;
  int rc = f(prog, buf);
  Prog* p = rc == 0 && buf ? find_prog(prog) : nullptr;
  if (p && p->rec && !p->log_recorded) {
    size_t size = 0;
    auto sf = real<SizeFn>(slot, k_nvvm_log_size);
    if (sf && sf(prog, &size) == 0) {
      record_output(p, "log", buf, size, true);
      p->log_recorded = true;
    }
  }
  return rc;
}

// ---- NVRTC -------------------------------------------------------------------

int nvrtc_create(int slot, void** prog, const char* src, const char* name, int n,
                 const char* const* headers, const char* const* names) {
  using Fn = int (*)(void**, const char*, const char*, int, const char* const*, const char* const*);
  auto f = real<Fn>(slot, k_nvrtc_create);
  if (!f) return k_missing;
  int rc = f(prog, src, name, n, headers, names);
  Prog* p = rc == 0 && prog && src ? add_prog(*prog) : nullptr;
  if (p) {
    add_input_line(p, "source", src, std::strlen(src), name, -1);
    for (int i = 0; i < n && headers; ++i)
      if (headers[i])
        add_input_line(p, "header", headers[i], std::strlen(headers[i]), names ? names[i] : nullptr,
                       -1);
  }
  return rc;
}

int nvrtc_destroy(int slot, void** prog) {
  auto f = real<CreateFn>(slot, k_nvrtc_destroy);
  if (!f) return k_missing;
  void* key = prog ? *prog : nullptr;
  int rc = f(prog);
  if (rc == 0 && key) drop_prog(key);
  return rc;
}

int nvrtc_compile(int slot, void* prog, int n, const char* const* opts) {
  using Fn = int (*)(void*, int, const char* const*);
  auto f = real<Fn>(slot, k_nvrtc_compile);
  if (!f) return k_missing;
  Prog* p = find_prog(prog);
  if (p) begin_record(p, "nvrtc", slot, k_nvrtc_compile, n, opts);
  int rc = f(prog, n, opts);
  if (p) end_record(p, rc);
  return rc;
}

int nvrtc_add_name(int slot, void* prog, const char* expr) {
  using Fn = int (*)(void*, const char*);
  auto f = real<Fn>(slot, k_nvrtc_add_name);
  if (!f) return k_missing;
  int rc = f(prog, expr);
  if (rc == 0)
    if (Prog* p = find_prog(prog)) {
      p->inputs.add("name_expr ");
      p->inputs.add_text(expr);
      p->inputs.add("\n");
    }
  return rc;
}

int nvrtc_output_size(int slot, int which, void* prog, size_t* size) {
  auto f = real<SizeFn>(slot, k_nvrtc_ptx_size + 2 * which);
  if (!f) return k_missing;
  int rc = f(prog, size);
  if (rc == 0 && size)
    if (Prog* p = find_prog(prog)) {
      p->size[which] = *size;
      p->have_size[which] = true;
    }
  return rc;
}

int nvrtc_output(int slot, int which, void* prog, char* buf) {
  auto f = real<BufFn>(slot, k_nvrtc_ptx_size + 2 * which + 1);
  if (!f) return k_missing;
  int rc = f(prog, buf);
  Prog* p = rc == 0 && buf ? find_prog(prog) : nullptr;
  if (p && p->rec && !p->recorded[which]) {
    size_t size = p->size[which];
    auto sf = real<SizeFn>(slot, k_nvrtc_ptx_size + 2 * which);
    if (p->have_size[which] || (sf && sf(prog, &size) == 0)) {
      record_output(p, k_nvrtc_outputs[which], buf, size, false);
      p->recorded[which] = true;
    }
  }
  return rc;
}

// ---- nvJitLink ---------------------------------------------------------------
// The options come with the handle; each input is recorded as it is added (a
// file's bytes are read and stored, as if given with AddData), and the record
// begins at nvJitLinkComplete, the link itself.

int jl_create(int slot, int v, void** h, unsigned n, const char** opts) {
  using Fn = int (*)(void**, unsigned, const char**);
  auto f = real<Fn>(slot, jl_fn(v, k_jl_create));
  if (!f) return k_missing;
  int rc = f(h, n, opts);
  if (rc == 0 && h)
    if (Prog* p = add_prog(*h))
      for (unsigned i = 0; i < n && opts; ++i) {
        p->opts.add("option ");
        p->opts.add_text(opts[i]);
        p->opts.add("\n");
      }
  return rc;
}

int jl_destroy(int slot, int v, void** h) {
  auto f = real<CreateFn>(slot, jl_fn(v, k_jl_destroy));
  if (!f) return k_missing;
  void* key = h ? *h : nullptr;
  int rc = f(h);
  if (rc == 0 && key) drop_prog(key);
  return rc;
}

int jl_add_data(int slot, int v, void* h, int type, const void* data, size_t size,
                const char* name) {
  using Fn = int (*)(void*, int, const void*, size_t, const char*);
  auto f = real<Fn>(slot, jl_fn(v, k_jl_add_data));
  if (!f) return k_missing;
  int rc = f(h, type, data, size, name);
  if (rc == 0 && data)
    if (Prog* p = find_prog(h))
      add_input_line(p, "jit_input", static_cast<const char*>(data), size, name, type);
  return rc;
}

int jl_add_file(int slot, int v, void* h, int type, const char* path) {
  using Fn = int (*)(void*, int, const char*);
  auto f = real<Fn>(slot, jl_fn(v, k_jl_add_file));
  if (!f) return k_missing;
  int rc = f(h, type, path);
  Prog* p = rc == 0 && path ? find_prog(h) : nullptr;
  if (!p) return rc;
  // The file as the library read it, a moment ago; an empty or unreadable one
  // is recorded with no bytes (and a replay then lacks them).
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  void* map = MAP_FAILED;
  size_t size = 0;
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    size = static_cast<size_t>(st.st_size);
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    // The number may have become the pipeline's between open and mmap: no bytes then.
    if (map != MAP_FAILED && !write_checked(fd, st, "", 0)) {
      ::munmap(map, size);
      map = MAP_FAILED;
    }
  }
  if (fd >= 0) close_checked(fd, st);
  if (map != MAP_FAILED) {
    add_input_line(p, "jit_input", static_cast<const char*>(map), size, path, type);
    ::munmap(map, size);
  } else {
    add_input_line(p, "jit_input", "", 0, path, type);
  }
  return rc;
}

int jl_complete(int slot, int v, void* h) {
  using Fn = int (*)(void*);
  auto f = real<Fn>(slot, jl_fn(v, k_jl_complete));
  if (!f) return k_missing;
  Prog* p = find_prog(h);
  if (p) begin_record(p, "nvjitlink", slot, jl_fn(v, k_jl_complete), 0, nullptr);
  int rc = f(h);
  if (p) end_record(p, rc);
  return rc;
}

int jl_output_size(int slot, int v, int which, void* h, size_t* size) {
  auto f = real<SizeFn>(slot, jl_fn(v, k_jl_cubin_size + 2 * which));
  if (!f) return k_missing;
  int rc = f(h, size);
  if (rc == 0 && size)
    if (Prog* p = find_prog(h)) {
      p->size[which] = *size;
      p->have_size[which] = true;
    }
  return rc;
}

int jl_output(int slot, int v, int which, void* h, void* buf) {
  using Fn = int (*)(void*, void*);
  auto f = real<Fn>(slot, jl_fn(v, k_jl_cubin_size + 2 * which + 1));
  if (!f) return k_missing;
  int rc = f(h, buf);
  Prog* p = rc == 0 && buf ? find_prog(h) : nullptr;
  if (p && p->rec && !p->recorded[which]) {
    size_t size = p->size[which];
    auto sf = real<SizeFn>(slot, jl_fn(v, k_jl_cubin_size + 2 * which));
    if (p->have_size[which] || (sf && sf(h, &size) == 0)) {
      record_output(p, which == 0 ? "cubin" : "ptx", static_cast<const char*>(buf), size, false);
      p->recorded[which] = true;
    }
  }
  return rc;
}

int jl_log_size(int slot, int v, int which, void* h, size_t* size) {
  auto f = real<SizeFn>(slot, jl_fn(v, which == 0 ? k_jl_err_size : k_jl_info_size));
  return f ? f(h, size) : k_missing;
}

int jl_log(int slot, int v, int which, void* h, char* buf) {
  auto f = real<BufFn>(slot, jl_fn(v, which == 0 ? k_jl_err : k_jl_info));
  if (!f) return k_missing;
  int rc = f(h, buf);
  Prog* p = rc == 0 && buf ? find_prog(h) : nullptr;
  if (!p || !p->rec) return rc;
  bool& done = which == 0 ? p->log_recorded : p->info_recorded;
  size_t size = 0;
  auto sf = real<SizeFn>(slot, jl_fn(v, which == 0 ? k_jl_err_size : k_jl_info_size));
  if (!done && sf && sf(h, &size) == 0) {
    record_output(p, which == 0 ? "log" : "info_log", buf, size, true);
    done = true;
  }
  return rc;
}

} // namespace kdet_capture
