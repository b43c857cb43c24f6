//===- capture/preload/slots.hpp - one set of wrappers per library copy ----===//
//
// A wrapper must know which library's function to call, and the pipeline
// calls it with the library's own arguments only. So every wrapper exists
// once per slot (a template on the slot number): slot 0 is the library linked
// at build time (found through RTLD_NEXT), slots 1.. are libraries reached by
// dlsym, one per load base. Included by interpose.cpp only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace kdet_capture {

// X(name, return-call-expression-of-slot-S, parameters...)
// nvJitLink twice: the plain names (what dlsym clients ask for) and the
// versioned ones its header's inline functions call (__nvJitLinkCreate_13_0),
// which a client linked at build time binds to; V (0 or 1) says which, so each
// forwards to the real function of its own name.
#define KDET_CAPTURE_FUNCS(X)                                                                      \
  X(nvvmCreateProgram, nvvm_create(S, p), void** p)                                                \
  X(nvvmDestroyProgram, nvvm_destroy(S, p), void** p)                                              \
  X(nvvmAddModuleToProgram, nvvm_add(S, p, b, n, m, false), void* p, const char* b, size_t n,      \
    const char* m)                                                                                 \
  X(nvvmLazyAddModuleToProgram, nvvm_add(S, p, b, n, m, true), void* p, const char* b, size_t n,   \
    const char* m)                                                                                 \
  X(nvvmVerifyProgram, nvvm_verify(S, p, n, o), void* p, int n, const char** o)                    \
  X(nvvmCompileProgram, nvvm_compile(S, p, n, o), void* p, int n, const char** o)                  \
  X(nvvmGetCompiledResultSize, nvvm_result_size(S, p, z), void* p, size_t* z)                      \
  X(nvvmGetCompiledResult, nvvm_result(S, p, b), void* p, char* b)                                 \
  X(nvvmGetProgramLogSize, nvvm_log_size(S, p, z), void* p, size_t* z)                             \
  X(nvvmGetProgramLog, nvvm_log(S, p, b), void* p, char* b)                                        \
  X(nvrtcCreateProgram, nvrtc_create(S, p, s, m, n, h, i), void** p, const char* s, const char* m, \
    int n, const char* const* h, const char* const* i)                                             \
  X(nvrtcDestroyProgram, nvrtc_destroy(S, p), void** p)                                            \
  X(nvrtcCompileProgram, nvrtc_compile(S, p, n, o), void* p, int n, const char* const* o)          \
  X(nvrtcAddNameExpression, nvrtc_add_name(S, p, e), void* p, const char* e)                       \
  X(nvrtcGetPTXSize, nvrtc_output_size(S, 0, p, z), void* p, size_t* z)                            \
  X(nvrtcGetPTX, nvrtc_output(S, 0, p, b), void* p, char* b)                                       \
  X(nvrtcGetCUBINSize, nvrtc_output_size(S, 1, p, z), void* p, size_t* z)                          \
  X(nvrtcGetCUBIN, nvrtc_output(S, 1, p, b), void* p, char* b)                                     \
  X(nvrtcGetLTOIRSize, nvrtc_output_size(S, 2, p, z), void* p, size_t* z)                          \
  X(nvrtcGetLTOIR, nvrtc_output(S, 2, p, b), void* p, char* b)                                     \
  X(nvJitLinkCreate, jl_create(S, 0, p, n, o), void** p, unsigned n, const char** o)               \
  X(nvJitLinkDestroy, jl_destroy(S, 0, p), void** p)                                               \
  X(nvJitLinkAddData, jl_add_data(S, 0, p, t, d, n, m), void* p, int t, const void* d, size_t n,   \
    const char* m)                                                                                 \
  X(nvJitLinkAddFile, jl_add_file(S, 0, p, t, m), void* p, int t, const char* m)                   \
  X(nvJitLinkComplete, jl_complete(S, 0, p), void* p)                                              \
  X(nvJitLinkGetLinkedCubinSize, jl_output_size(S, 0, 0, p, z), void* p, size_t* z)                \
  X(nvJitLinkGetLinkedCubin, jl_output(S, 0, 0, p, b), void* p, void* b)                           \
  X(nvJitLinkGetLinkedPtxSize, jl_output_size(S, 0, 1, p, z), void* p, size_t* z)                  \
  X(nvJitLinkGetLinkedPtx, jl_output(S, 0, 1, p, b), void* p, void* b)                             \
  X(nvJitLinkGetErrorLogSize, jl_log_size(S, 0, 0, p, z), void* p, size_t* z)                      \
  X(nvJitLinkGetErrorLog, jl_log(S, 0, 0, p, b), void* p, char* b)                                 \
  X(nvJitLinkGetInfoLogSize, jl_log_size(S, 0, 1, p, z), void* p, size_t* z)                       \
  X(nvJitLinkGetInfoLog, jl_log(S, 0, 1, p, b), void* p, char* b)                                  \
  X(__nvJitLinkCreate_13_0, jl_create(S, 1, p, n, o), void** p, unsigned n, const char** o)        \
  X(__nvJitLinkDestroy_13_0, jl_destroy(S, 1, p), void** p)                                        \
  X(__nvJitLinkAddData_13_0, jl_add_data(S, 1, p, t, d, n, m), void* p, int t, const void* d,      \
    size_t n, const char* m)                                                                       \
  X(__nvJitLinkAddFile_13_0, jl_add_file(S, 1, p, t, m), void* p, int t, const char* m)            \
  X(__nvJitLinkComplete_13_0, jl_complete(S, 1, p), void* p)                                       \
  X(__nvJitLinkGetLinkedCubinSize_13_0, jl_output_size(S, 1, 0, p, z), void* p, size_t* z)         \
  X(__nvJitLinkGetLinkedCubin_13_0, jl_output(S, 1, 0, p, b), void* p, void* b)                    \
  X(__nvJitLinkGetLinkedPtxSize_13_0, jl_output_size(S, 1, 1, p, z), void* p, size_t* z)           \
  X(__nvJitLinkGetLinkedPtx_13_0, jl_output(S, 1, 1, p, b), void* p, void* b)                      \
  X(__nvJitLinkGetErrorLogSize_13_0, jl_log_size(S, 1, 0, p, z), void* p, size_t* z)               \
  X(__nvJitLinkGetErrorLog_13_0, jl_log(S, 1, 0, p, b), void* p, char* b)                          \
  X(__nvJitLinkGetInfoLogSize_13_0, jl_log_size(S, 1, 1, p, z), void* p, size_t* z)                \
  X(__nvJitLinkGetInfoLog_13_0, jl_log(S, 1, 1, p, b), void* p, char* b)

enum Func {
#define KDET_ENUM(name, call, ...) f_##name,
  KDET_CAPTURE_FUNCS(KDET_ENUM)
#undef KDET_ENUM
      k_nfuncs
};

constexpr const char* k_func_names[] = {
#define KDET_NAME(name, call, ...) #name,
    KDET_CAPTURE_FUNCS(KDET_NAME)
#undef KDET_NAME
};

constexpr int k_nslots = 8;

// Marks a wrapper call on this thread. A call made while another is active is
// the library calling itself through an exported name (the fake libNVVM's lazy
// add calls its plain add): it is forwarded unrecorded, and slot 0 (where such
// a call lands, being our export) is read as the slot of the outer call, since
// RTLD_NEXT cannot see a library dlopen'ed with RTLD_LOCAL.
// Declarations only: the definitions (interpose.cpp) are constant-initialized.
extern thread_local int t_depth; // NOLINT(bugprone-dynamic-static-initializers)
extern thread_local int t_slot;  // NOLINT(bugprone-dynamic-static-initializers)
struct Scope {
  int slot;
  explicit Scope(int s) : slot(t_depth > 0 && s == 0 ? t_slot : s) {
    if (t_depth++ == 0) t_slot = slot;
  }
  ~Scope() { --t_depth; }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

template <int SLOT> struct Wrappers {
#define KDET_WRAP(name, call, ...)                                                                 \
  static int name(__VA_ARGS__) {                                                                   \
    Scope scope(SLOT);                                                                             \
    const int S = scope.slot;                                                                      \
    return call;                                                                                   \
  }
  KDET_CAPTURE_FUNCS(KDET_WRAP)
#undef KDET_WRAP
  // A switch, not a static table: no initialization guard, no C++ runtime.
  static void* get(int f) {
    switch (f) {
#define KDET_PTR(name, call, ...)                                                                  \
  case f_##name:                                                                                   \
    return reinterpret_cast<void*>(&Wrappers<SLOT>::name);
      KDET_CAPTURE_FUNCS(KDET_PTR)
#undef KDET_PTR
    default:
      return nullptr;
    }
  }
};

inline void* slot_wrapper(int s, int f) {
  switch (s) {
  case 1:
    return Wrappers<1>::get(f);
  case 2:
    return Wrappers<2>::get(f);
  case 3:
    return Wrappers<3>::get(f);
  case 4:
    return Wrappers<4>::get(f);
  case 5:
    return Wrappers<5>::get(f);
  case 6:
    return Wrappers<6>::get(f);
  case 7:
    return Wrappers<7>::get(f);
  default:
    return Wrappers<0>::get(f);
  }
}

} // namespace kdet_capture

// The library's own exports (slot 0), for programs linked at build time.
extern "C" {
#define KDET_EXPORT_FN(name, call, ...)                                                            \
  __attribute__((visibility("default"))) int name(__VA_ARGS__);
KDET_CAPTURE_FUNCS(KDET_EXPORT_FN)
#undef KDET_EXPORT_FN
}

namespace kdet_capture {
// The slot for a call that reached our export from `caller`: the library the
// caller's own scope resolves the name to (a module dlopen'ed RTLD_LOCAL with
// its compiler as a dependency: RTLD_NEXT cannot see that one), else 0.
int export_slot(int f, const void* caller);

inline void* exported_wrapper(int f) {
  switch (f) {
#define KDET_PTR(name, call, ...)                                                                  \
  case f_##name:                                                                                   \
    return reinterpret_cast<void*>(&::name);
    KDET_CAPTURE_FUNCS(KDET_PTR)
#undef KDET_PTR
  default:
    return nullptr;
  }
}
} // namespace kdet_capture

// Definitions of the exports: slot 0.
#define KDET_DEFINE_EXPORT(name, call, ...)                                                        \
  extern "C" __attribute__((visibility("default"))) int name(__VA_ARGS__) {                        \
    using namespace kdet_capture;                                                                  \
    Scope scope(t_depth > 0 ? 0 : export_slot(f_##name, __builtin_return_address(0)));             \
    const int S = scope.slot;                                                                      \
    return call;                                                                                   \
  }
KDET_CAPTURE_FUNCS(KDET_DEFINE_EXPORT)
#undef KDET_DEFINE_EXPORT
