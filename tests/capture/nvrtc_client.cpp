//===- tests/capture/nvrtc_client.cpp - an NVRTC pipeline for capture tests -===//
//
// Loads NVRTC the way bindings do (dlopen by soname, dlsym of each entry
// point) and compiles from several threads at once: every file named on the
// command line plus one program that takes its constant from a header, each
// to PTX and cubin. Usage: nvrtc_client SONAME THREADS ARCH FILE...
// Exit 0 when every compile succeeded.
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Create = int (*)(void**, const char*, const char*, int, const char* const*,
                       const char* const*);
using Compile = int (*)(void*, int, const char* const*);
using Size = int (*)(void*, size_t*);
using Get = int (*)(void*, char*);
using Destroy = int (*)(void**);

struct Api {
  Create create;
  Compile compile;
  Size ptx_size, cubin_size;
  Get ptx, cubin;
  Destroy destroy;
};

bool compile_one(const Api& api, const std::string& src, const std::string& name,
                 const std::vector<const char*>& headers, const std::vector<const char*>& names,
                 const std::string& arch) {
  void* prog = nullptr;
  if (api.create(&prog, src.c_str(), name.c_str(), static_cast<int>(headers.size()), headers.data(),
                 names.data()) != 0)
    return false;
  std::string opt = "-arch=" + arch;
  const char* opts[] = {opt.c_str()};
  bool ok = api.compile(prog, 1, opts) == 0;
  size_t n = 0;
  if (ok && api.ptx_size(prog, &n) == 0) {
    std::string buf(n, '\0');
    ok = api.ptx(prog, buf.data()) == 0;
  }
  if (ok && api.cubin_size(prog, &n) == 0 && n > 0) {
    std::string buf(n, '\0');
    ok = api.cubin(prog, buf.data()) == 0;
  }
  api.destroy(&prog);
  return ok;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: nvrtc_client SONAME THREADS ARCH FILE...\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "nvrtc_client: %s\n", dlerror());
    return 3;
  }
  Api api{reinterpret_cast<Create>(dlsym(lib, "nvrtcCreateProgram")),
          reinterpret_cast<Compile>(dlsym(lib, "nvrtcCompileProgram")),
          reinterpret_cast<Size>(dlsym(lib, "nvrtcGetPTXSize")),
          reinterpret_cast<Size>(dlsym(lib, "nvrtcGetCUBINSize")),
          reinterpret_cast<Get>(dlsym(lib, "nvrtcGetPTX")),
          reinterpret_cast<Get>(dlsym(lib, "nvrtcGetCUBIN")),
          reinterpret_cast<Destroy>(dlsym(lib, "nvrtcDestroyProgram"))};
  if (!api.create || !api.compile || !api.ptx_size || !api.cubin_size || !api.ptx || !api.cubin ||
      !api.destroy) {
    std::fprintf(stderr, "nvrtc_client: missing entry points\n");
    return 3;
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 4; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream ss;
    ss << in.rdbuf();
    files.emplace_back(ss.str(), argv[i]);
  }
  const std::string with_header = "#include \"k.h\"\n"
                                  "extern \"C\" __global__ void k(int* p) { p[0] = K_VALUE; }\n";
  std::vector<const char*> headers = {"#define K_VALUE 42\n"}, names = {"k.h"};
  int threads = std::atoi(argv[2]);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (const auto& [src, name] : files)
        if (!compile_one(api, src, name, {}, {}, argv[3])) ++failures;
      if (!compile_one(api, with_header, "with_header.cu", headers, names, argv[3])) ++failures;
    });
  for (auto& t : pool)
    t.join();
  if (failures) std::fprintf(stderr, "nvrtc_client: %d compiles failed\n", failures.load());
  return failures ? 1 : 0;
}
