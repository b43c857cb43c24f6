//===- tests/capture/nvvm_client.cpp - a libNVVM pipeline for capture tests -===//
//
// Loads a libNVVM (real or fake) by path with dlopen + dlsym, as numba and
// DSLs do, and compiles one program REPEAT times in each of THREADS threads:
// the modules named (in order; `+FILE` adds FILE lazily), then the options
// after `--`. Usage: nvvm_client LIB THREADS REPEAT MODULE... [-- OPTION...]
// Exit 0 when every compile succeeded; 1 when one failed (its log on stderr).
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Create = int (*)(void**);
using Add = int (*)(void*, const char*, size_t, const char*);
using Compile = int (*)(void*, int, const char**);
using Size = int (*)(void*, size_t*);
using Get = int (*)(void*, char*);

template <typename F> F need(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    std::fprintf(stderr, "nvvm_client: %s missing\n", name);
    std::exit(3);
  }
  return reinterpret_cast<F>(p);
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: nvvm_client LIB THREADS REPEAT MODULE... [-- OPTION...]\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "nvvm_client: %s\n", dlerror());
    return 3;
  }
  auto create = need<Create>(lib, "nvvmCreateProgram");
  auto destroy = need<Create>(lib, "nvvmDestroyProgram");
  auto add = need<Add>(lib, "nvvmAddModuleToProgram");
  auto lazy_add = need<Add>(lib, "nvvmLazyAddModuleToProgram");
  auto verify = need<Compile>(lib, "nvvmVerifyProgram");
  auto compile = need<Compile>(lib, "nvvmCompileProgram");
  auto result_size = need<Size>(lib, "nvvmGetCompiledResultSize");
  auto result = need<Get>(lib, "nvvmGetCompiledResult");
  auto log_size = need<Size>(lib, "nvvmGetProgramLogSize");
  auto log = need<Get>(lib, "nvvmGetProgramLog");

  struct Module {
    std::string text, name;
    bool lazy;
  };
  std::vector<Module> modules;
  std::vector<const char*> options;
  int i = 4;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    bool lazy = argv[i][0] == '+';
    const char* path = argv[i] + (lazy ? 1 : 0);
    std::ifstream in(path);
    if (!in) {
      std::fprintf(stderr, "nvvm_client: cannot read %s\n", path);
      return 2;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    modules.push_back({ss.str(), path, lazy});
  }
  for (++i; i < argc; ++i)
    options.push_back(argv[i]);

  std::atomic<int> failures{0};
  std::mutex err;
  auto work = [&] {
    for (int r = 0; r < std::atoi(argv[3]); ++r) {
      void* prog = nullptr;
      bool ok = create(&prog) == 0;
      for (const auto& m : modules)
        ok = ok &&
             (m.lazy ? lazy_add : add)(prog, m.text.data(), m.text.size(), m.name.c_str()) == 0;
      ok = ok && verify(prog, static_cast<int>(options.size()), options.data()) == 0;
      ok = ok && compile(prog, static_cast<int>(options.size()), options.data()) == 0;
      size_t n = 0;
      if (ok && result_size(prog, &n) == 0) {
        std::string out(n, '\0');
        ok = result(prog, out.data()) == 0;
      }
      if (!ok && prog && log_size(prog, &n) == 0) {
        std::string text(n, '\0');
        log(prog, text.data());
        std::lock_guard<std::mutex> lock(err);
        std::fprintf(stderr, "nvvm_client: compile failed: %s\n", text.c_str());
      }
      if (!ok) ++failures;
      destroy(&prog);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::atoi(argv[2]); ++t)
    pool.emplace_back(work);
  for (auto& t : pool)
    t.join();
  return failures ? 1 : 0;
}
