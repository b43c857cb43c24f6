//===- capture/preload/interpose.cpp - libkdet_capture.so's entry points ----===//
//
// Two ways in, one set of wrappers:
//  - Linked at build time: this library exports nvvm*/nvrtc*/nvJitLink* itself, so with
//    LD_PRELOAD the pipeline's calls land here (slot 0) and go on to the real
//    function found with dlsym(RTLD_NEXT).
//  - dlopen + dlsym (ctypes, cython, C++ loaders): dlsym is wrapped; for a name
//    of ours it looks the real function up, gives its library a slot (by load
//    base: two copies of libNVVM in one process stay apart) and returns that
//    slot's wrapper. Every other lookup is a tail call into the real dlsym, so
//    glibc still sees the caller's return address (RTLD_NEXT keeps working for
//    other preloads such as allocators).
// dlopen is not wrapped: glibc resolves RUNPATH and $ORIGIN from the caller's
// address, which a wrapper would replace with its own.
//
// Each wrapper forwards first and records after; recording never changes what
// the pipeline gets back.
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <atomic>
#include <climits>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>

#define KDET_EXPORT extern "C" __attribute__((visibility("default")))

namespace kdet_capture {
// In programs.cpp: the recording side of each call (slot = which library).
int nvvm_create(int slot, void** prog);
int nvvm_destroy(int slot, void** prog);
int nvvm_add(int slot, void* prog, const char* buf, size_t size, const char* name, bool lazy);
int nvvm_verify(int slot, void* prog, int n, const char** opts);
int nvvm_compile(int slot, void* prog, int n, const char** opts);
int nvvm_result_size(int slot, void* prog, size_t* size);
int nvvm_result(int slot, void* prog, char* buf);
int nvvm_log_size(int slot, void* prog, size_t* size);
int nvvm_log(int slot, void* prog, char* buf);
int nvrtc_create(int slot, void** prog, const char* src, const char* name, int n,
                 const char* const* headers, const char* const* names);
int nvrtc_destroy(int slot, void** prog);
int nvrtc_compile(int slot, void* prog, int n, const char* const* opts);
int nvrtc_add_name(int slot, void* prog, const char* expr);
int nvrtc_output_size(int slot, int which, void* prog, size_t* size);
int nvrtc_output(int slot, int which, void* prog, char* buf);
// nvJitLink: `v` is 0 for the plain names, 1 for the versioned ones (slots.hpp).
int jl_create(int slot, int v, void** h, unsigned n, const char** opts);
int jl_destroy(int slot, int v, void** h);
int jl_add_data(int slot, int v, void* h, int type, const void* data, size_t size,
                const char* name);
int jl_add_file(int slot, int v, void* h, int type, const char* path);
int jl_complete(int slot, int v, void* h);
int jl_output_size(int slot, int v, int which, void* h, size_t* size);
int jl_output(int slot, int v, int which, void* h, void* buf);
int jl_log_size(int slot, int v, int which, void* h, size_t* size);
int jl_log(int slot, int v, int which, void* h, char* buf);
} // namespace kdet_capture

#include "slots.hpp"

namespace kdet_capture {

thread_local int t_depth = 0;
thread_local int t_slot = 0;

bool nested_call() {
  return t_depth > 1;
}

namespace {

using DlsymFn = void* (*)(void*, const char*);

std::atomic<DlsymFn> g_real_dlsym{nullptr};

DlsymFn real_dlsym() {
  DlsymFn f = g_real_dlsym.load(std::memory_order_acquire);
  if (f) return f;
  // glibc 2.34 moved dlsym into libc under a new version; older ones have 2.2.5.
  f = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
  if (!f) f = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
  g_real_dlsym.store(f, std::memory_order_release);
  return f;
}

struct Slot {
  std::atomic<void*> base{nullptr}; // load base of the library (dli_fbase)
  void* handle = nullptr;           // to look up the functions not fetched yet
  std::atomic<void*> fn[k_nfuncs];
};
Slot g_slots[k_nslots];
pthread_mutex_t g_slot_lock = PTHREAD_MUTEX_INITIALIZER;

// Slot for the library loaded at `base` (a new one if needed); -1 when all are taken.
int slot_for(void* base, void* handle) {
  pthread_mutex_lock(&g_slot_lock);
  int found = -1;
  for (int s = 1; s < k_nslots && found < 0; ++s) {
    void* b = g_slots[s].base.load(std::memory_order_acquire);
    if (b == base) found = s;
    if (!b) {
      g_slots[s].handle = handle;
      g_slots[s].base.store(base, std::memory_order_release);
      found = s;
    }
  }
  pthread_mutex_unlock(&g_slot_lock);
  return found;
}

} // namespace

void* dlsym_real(void* handle, const char* name) {
  DlsymFn d = real_dlsym();
  return d ? d(handle, name) : nullptr;
}

void* real_fn(int slot, int f) {
  Slot& s = g_slots[slot];
  void* p = s.fn[f].load(std::memory_order_acquire);
  if (p) return p;
  DlsymFn d = real_dlsym();
  if (!d) return nullptr;
  p = d(slot == 0 ? RTLD_NEXT : s.handle, k_func_names[f]);
  if (p) s.fn[f].store(p, std::memory_order_release);
  return p;
}

// One of our names? Cheap prefix test first: dlsym is called a lot.
int func_index(const char* name) {
  if (!name ||
      (std::strncmp(name, "nvvm", 4) != 0 && std::strncmp(name, "nvrtc", 5) != 0 &&
       std::strncmp(name, "nvJitLink", 9) != 0 && std::strncmp(name, "__nvJitLink", 11) != 0))
    return -1;
  for (int f = 0; f < k_nfuncs; ++f)
    if (std::strcmp(name, k_func_names[f]) == 0) return f;
  return -1;
}

void* wrap_lookup(void* handle, const char* name, int f) {
  DlsymFn d = real_dlsym();
  if (!d) return nullptr;
  void* real = d(handle, name);
  if (!real) return nullptr;
  if (real == exported_wrapper(f)) {
    // The global scope found this library's own export (linked-at-build-time
    // path): hand it out only if a real library stands behind it.
    return d(RTLD_NEXT, name) ? real : nullptr;
  }
  Dl_info info{};
  if (!dladdr(real, &info) || !info.dli_fbase) return real;
  // A lookup through the global scope would find our own exports again: the
  // slot keeps a handle of the library itself (a reference that is never dropped).
  void* own = handle;
  if (handle == RTLD_DEFAULT && info.dli_fname)
    own = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!own) return real;
  int s = slot_for(info.dli_fbase, own);
  if (s < 0) return real; // too many copies: forwarded unrecorded
  g_slots[s].fn[f].store(real, std::memory_order_release);
  return slot_wrapper(s, f);
}

namespace {
// Caller module (load base) -> slot, for export_slot; -1 marks a free entry.
constexpr int k_callers = 64;
struct CallerSlot {
  const void* base;
  int slot;
};
CallerSlot g_callers[k_callers];
int g_ncallers = 0;
} // namespace

int export_slot(int f, const void* caller) {
  Dl_info ci{};
  if (!dladdr(caller, &ci) || !ci.dli_fbase) return 0;
  pthread_mutex_lock(&g_slot_lock);
  for (int i = 0; i < g_ncallers; ++i)
    if (g_callers[i].base == ci.dli_fbase) {
      int s = g_callers[i].slot;
      pthread_mutex_unlock(&g_slot_lock);
      return s;
    }
  pthread_mutex_unlock(&g_slot_lock);
  int s = 0;
  DlsymFn d = real_dlsym();
  // The main program (its own name is not dlopen-able) and modules in the global
  // scope are served by slot 0 (RTLD_NEXT); others by their own scope.
  void* h = ci.dli_fname && *ci.dli_fname ? dlopen(ci.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
  void* real = h && d ? d(h, k_func_names[f]) : nullptr;
  Dl_info ri{};
  if (real && real != exported_wrapper(f) && dladdr(real, &ri) && ri.dli_fbase && ri.dli_fname &&
      !(d(RTLD_NEXT, k_func_names[f]) == real)) {
    void* own = dlopen(ri.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    int got = own ? slot_for(ri.dli_fbase, own) : -1;
    if (got > 0) {
      g_slots[got].fn[f].store(real, std::memory_order_release);
      s = got;
    }
  }
  // The reference taken by dlopen(RTLD_NOLOAD) on the caller is kept: the
  // caller is running, so it is loaded; dropping it here could race its dlclose.
  pthread_mutex_lock(&g_slot_lock);
  if (g_ncallers < k_callers) g_callers[g_ncallers++] = {ci.dli_fbase, s};
  pthread_mutex_unlock(&g_slot_lock);
  return s;
}

} // namespace kdet_capture

using namespace kdet_capture;

namespace kdet_capture {
// driver.cpp: the driver's load entry points (-1: not one), and dlsym's answer for one.
int driver_index(const char* name);
void* driver_lookup(void* handle, const char* name, int f, void* (*real_dlsym)(void*, const char*));
} // namespace kdet_capture

KDET_EXPORT void* dlsym(void* handle, const char* name) {
  int f = handle == RTLD_NEXT ? -1 : func_index(name);
  if (f >= 0) return wrap_lookup(handle, name, f);
  int g = handle == RTLD_NEXT ? -1 : driver_index(name);
  if (g >= 0 && real_dlsym()) return driver_lookup(handle, name, g, real_dlsym());
  DlsymFn d = real_dlsym();
  if (!d) return nullptr;
  return d(handle, name); // a tail call: glibc sees the caller's return address
}
