//===- tests/capture/jitlink_client.cpp - an NVRTC + nvJitLink LTO pipeline -===//
//
// Loads NVRTC and nvJitLink by soname (dlopen + dlsym, as bindings do) and,
// from several threads at once, compiles three CUDA sources to LTO-IR with
// NVRTC (-dlto; one takes a constant from a header, one calls a function
// another defines) and links them with nvJitLink to a cubin: three inputs
// with AddData, plus a fourth given with AddFile (LTO-IR the main thread wrote
// to DIR/extra.ltoir before the threads start).
// Usage: jitlink_client NVRTC_SONAME JITLINK_SONAME THREADS ARCH DIR
// Exit 0 when every compile and link succeeded.
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using RtcCreate = int (*)(void**, const char*, const char*, int, const char* const*,
                          const char* const*);
using RtcCompile = int (*)(void*, int, const char* const*);
using Size = int (*)(void*, size_t*);
using Get = int (*)(void*, char*);
using Destroy = int (*)(void**);
using JlCreate = int (*)(void**, unsigned, const char**);
using JlAddData = int (*)(void*, int, const void*, size_t, const char*);
using JlAddFile = int (*)(void*, int, const char*);
using JlComplete = int (*)(void*);
using JlGet = int (*)(void*, void*);

constexpr int k_ltoir = 3; // NVJITLINK_INPUT_LTOIR

struct Api {
  RtcCreate create;
  RtcCompile compile;
  Size ltoir_size;
  Get ltoir;
  Destroy destroy;
  JlCreate jl_create;
  JlAddData jl_add_data;
  JlAddFile jl_add_file;
  JlComplete jl_complete;
  Size jl_cubin_size;
  JlGet jl_cubin;
  Size jl_err_size;
  Get jl_err;
  Destroy jl_destroy;
};

const char* k_a = "extern \"C\" __device__ int helper(int x);\n"
                  "extern \"C\" __global__ void ka(int* p) { p[threadIdx.x] = helper(p[1]); }\n";
const char* k_b = "#include \"k.h\"\n"
                  "extern \"C\" __device__ int helper(int x) { return x * K_VALUE + 1; }\n";
const char* k_c = "extern \"C\" __global__ void kc(float* p) { p[threadIdx.x] *= 2.0f; }\n";
const char* k_extra = "extern \"C\" __global__ void kx(double* p) { p[threadIdx.x] += 1.0; }\n";

bool to_ltoir(const Api& api, const char* src, const char* name, bool header,
              const std::string& arch, std::string& out) {
  const char* headers[] = {"#define K_VALUE 42\n"};
  const char* names[] = {"k.h"};
  void* prog = nullptr;
  if (api.create(&prog, src, name, header ? 1 : 0, header ? headers : nullptr,
                 header ? names : nullptr) != 0)
    return false;
  std::string a = "-arch=" + arch;
  const char* opts[] = {a.c_str(), "-dlto", "-rdc=true"};
  size_t n = 0;
  bool ok = api.compile(prog, 3, opts) == 0 && api.ltoir_size(prog, &n) == 0;
  if (ok) {
    out.assign(n, '\0');
    ok = api.ltoir(prog, out.data()) == 0;
  }
  api.destroy(&prog);
  return ok;
}

bool link(const Api& api, const std::vector<std::pair<std::string, std::string>>& inputs,
          const std::string& file, const std::string& arch) {
  std::string a = "-arch=" + arch;
  const char* opts[] = {a.c_str(), "-lto"};
  void* h = nullptr;
  if (api.jl_create(&h, 2, opts) != 0) return false;
  bool ok = true;
  for (const auto& [name, data] : inputs)
    ok = ok && api.jl_add_data(h, k_ltoir, data.data(), data.size(), name.c_str()) == 0;
  ok = ok && api.jl_add_file(h, k_ltoir, file.c_str()) == 0;
  ok = ok && api.jl_complete(h) == 0;
  size_t n = 0;
  if (ok && api.jl_cubin_size(h, &n) == 0) {
    std::string cubin(n, '\0');
    ok = api.jl_cubin(h, cubin.data()) == 0 && n > 0;
  } else if (api.jl_err_size(h, &n) == 0 && n > 1) {
    std::string log(n, '\0');
    if (api.jl_err(h, log.data()) == 0) std::fprintf(stderr, "jitlink_client: %s\n", log.c_str());
    ok = false;
  }
  api.jl_destroy(&h);
  return ok;
}

template <typename F> F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: jitlink_client NVRTC_SONAME JITLINK_SONAME THREADS ARCH DIR\n");
    return 2;
  }
  void* rtc = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void* jl = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!rtc || !jl) {
    std::fprintf(stderr, "jitlink_client: %s\n", dlerror());
    return 3;
  }
  Api api{sym<RtcCreate>(rtc, "nvrtcCreateProgram"), sym<RtcCompile>(rtc, "nvrtcCompileProgram"),
          sym<Size>(rtc, "nvrtcGetLTOIRSize"),       sym<Get>(rtc, "nvrtcGetLTOIR"),
          sym<Destroy>(rtc, "nvrtcDestroyProgram"),  sym<JlCreate>(jl, "nvJitLinkCreate"),
          sym<JlAddData>(jl, "nvJitLinkAddData"),    sym<JlAddFile>(jl, "nvJitLinkAddFile"),
          sym<JlComplete>(jl, "nvJitLinkComplete"),  sym<Size>(jl, "nvJitLinkGetLinkedCubinSize"),
          sym<JlGet>(jl, "nvJitLinkGetLinkedCubin"), sym<Size>(jl, "nvJitLinkGetErrorLogSize"),
          sym<Get>(jl, "nvJitLinkGetErrorLog"),      sym<Destroy>(jl, "nvJitLinkDestroy")};
  if (!api.create || !api.compile || !api.ltoir_size || !api.ltoir || !api.destroy ||
      !api.jl_create || !api.jl_add_data || !api.jl_add_file || !api.jl_complete ||
      !api.jl_cubin_size || !api.jl_cubin || !api.jl_err_size || !api.jl_err || !api.jl_destroy) {
    std::fprintf(stderr, "jitlink_client: missing entry points\n");
    return 3;
  }
  std::string arch = argv[4], file = std::string(argv[5]) + "/extra.ltoir", extra;
  if (!to_ltoir(api, k_extra, "extra.cu", false, arch, extra)) return 1;
  std::ofstream(file, std::ios::binary) << extra;
  int threads = std::atoi(argv[3]);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      std::string a, b, c;
      if (!to_ltoir(api, k_a, "a.cu", false, arch, a) ||
          !to_ltoir(api, k_b, "b.cu", true, arch, b) ||
          !to_ltoir(api, k_c, "c.cu", false, arch, c) ||
          !link(api, {{"a.ltoir", a}, {"b.ltoir", b}, {"c.ltoir", c}}, file, arch))
        ++failures;
    });
  for (auto& t : pool)
    t.join();
  if (failures) std::fprintf(stderr, "jitlink_client: %d pipelines failed\n", failures.load());
  return failures ? 1 : 0;
}
