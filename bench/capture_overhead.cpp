//===- bench/capture_overhead.cpp - what kdet capture costs a pipeline ------===//
//
// A pipeline that compiles K distinct kernels (default 200, `kdet corpus`
// generator) through libNVVM in one process, timed three ways in a rotating
// order so machine load hits each alike:
//   plain    the pipeline alone;
//   preload  the pipeline with libkdet_capture.so preloaded and recording
//            (a fresh capture folder each time: every blob is new);
//   capture  `kdet capture -- pipeline`: also kdet's start, reading the
//            records, grouping bundles and the summary.
// The pipeline is this program re-executed as
// `capture_overhead __pipeline LIB DIR OPTION...`. Goal: preload and capture
// within 5 % of plain (docs/PERFORMANCE.md, "kdet capture").
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/backend.hpp"
#include "kdet/corpus/generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <dirent.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nvvm.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace kdet;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The pipeline: dlopen + dlsym (as DSLs and numba do), then every .ll of DIR in name order.
int pipeline_main(int argc, char** argv) {
  if (argc < 4) return 2;
  void* h = ::dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!h) return 2;
  auto create = reinterpret_cast<decltype(&nvvmCreateProgram)>(::dlsym(h, "nvvmCreateProgram"));
  auto add =
      reinterpret_cast<decltype(&nvvmAddModuleToProgram)>(::dlsym(h, "nvvmAddModuleToProgram"));
  auto compile = reinterpret_cast<decltype(&nvvmCompileProgram)>(::dlsym(h, "nvvmCompileProgram"));
  auto size_of = reinterpret_cast<decltype(&nvvmGetCompiledResultSize)>(
      ::dlsym(h, "nvvmGetCompiledResultSize"));
  auto result =
      reinterpret_cast<decltype(&nvvmGetCompiledResult)>(::dlsym(h, "nvvmGetCompiledResult"));
  auto destroy = reinterpret_cast<decltype(&nvvmDestroyProgram)>(::dlsym(h, "nvvmDestroyProgram"));
  if (!create || !add || !compile || !size_of || !result || !destroy) return 2;
  std::vector<std::string> files;
  if (DIR* d = ::opendir(argv[3])) {
    while (dirent* e = ::readdir(d))
      if (file_extension(e->d_name) == "ll")
        files.push_back(std::string(argv[3]) + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  std::vector<const char*> opts(argv + 4, argv + argc);
  for (const auto& f : files) {
    std::string ir = read_file(f);
    nvvmProgram prog = nullptr;
    size_t n = 0;
    bool ok = create(&prog) == NVVM_SUCCESS &&
              add(prog, ir.data(), ir.size(), "k.ll") == NVVM_SUCCESS &&
              compile(prog, static_cast<int>(opts.size()), opts.data()) == NVVM_SUCCESS &&
              size_of(prog, &n) == NVVM_SUCCESS;
    std::string ptx(n, '\0');
    ok = ok && result(prog, ptx.data()) == NVVM_SUCCESS;
    destroy(&prog);
    if (!ok) return 3;
  }
  return 0;
}

struct Timing {
  double wall = 0, cpu = 0; // cpu: user + system of the child and everything it waited for
};

double children_cpu() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

Timing timed(const std::vector<std::string>& argv, const std::vector<std::string>& env_changes) {
  double cpu0 = children_cpu();
  SpawnOptions o;
  o.argv = argv;
  o.env = with_env_changes(current_environment(), env_changes);
  auto r = run_captured(o, std::chrono::minutes(30));
  if (!r.status.ok() && !(r.status.kind == ExitStatus::Kind::exited && r.status.code == 1))
    throw Error::format("{} failed: {}\n{}", argv[0], r.status.describe(), r.err);
  return {r.seconds, children_cpu() - cpu0};
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "__pipeline") return pipeline_main(argc, argv);
  try {
    CLI::App app{
        "Times a 200-kernel libNVVM pipeline alone, preloaded with libkdet_capture.so, and "
        "under kdet capture"};
    std::string kdet_exe, lib;
    int kernels = 200, reps = 5;
    size_t size = 150;
    std::vector<std::string> options = {"-arch=compute_90a", "-opt=3"};
    app.add_option("--kdet", kdet_exe, "kdet executable (default: beside this build)");
    app.add_option("--lib", lib, "libnvvm.so (default: kdet's default)");
    app.add_option("--kernels,-k", kernels, "Kernels the pipeline compiles (default 200)");
    app.add_option("--size", size, "Instructions per kernel (default 150)");
    app.add_option("--reps", reps, "Repetitions of each configuration (default 5)");
    app.add_option("options", options, "libNVVM options (after --)");
    CLI11_PARSE(app, argc, argv);
    std::string self = self_exe();
    if (kdet_exe.empty()) kdet_exe = self.substr(0, self.rfind("/bench/")) + "/src/kdet";
    std::string preload = kdet_exe.substr(0, kdet_exe.rfind('/')) + "/libkdet_capture.so";
    if (lib.empty()) lib = backend::default_library_path(backend::Kind::nvvm);
    if (::access(lib.c_str(), R_OK) != 0) {
      fmt::print("SKIP: {} not found\n", lib);
      return 77;
    }
    TempDir tmp("bench");
    make_dirs(tmp.path() + "/k");
    for (int i = 0; i < kernels; ++i) {
      corpus::KernelSpec spec;
      spec.seed = static_cast<uint64_t>(i + 1);
      spec.instructions = size;
      write_file_atomic(fmt::format("{}/k/k{:04}.ll", tmp.path(), i),
                        corpus::generate_kernel(spec).text);
    }
    std::vector<std::string> pipeline = {self, "__pipeline", lib, tmp.path() + "/k"};
    pipeline.insert(pipeline.end(), options.begin(), options.end());
    std::vector<std::string> with_kdet = {kdet_exe, "capture", "--"};
    with_kdet.insert(with_kdet.end(), pipeline.begin(), pipeline.end());
    const char* names[] = {"plain", "preload", "capture"};
    std::vector<double> walls[3], cpus[3];
    for (int r = 0; r < reps; ++r)
      for (int k = 0; k < 3; ++k) {
        int c = (k + r) % 3;
        std::string cap = fmt::format("{}/cap-{}-{}", tmp.path(), r, c);
        make_dirs(cap + "/records");
        make_dirs(cap + "/blobs");
        Timing t = c == 0   ? timed(pipeline, {})
                   : c == 1 ? timed(pipeline, {"LD_PRELOAD=" + preload, "KDET_CAPTURE_DIR=" + cap})
                            : timed(with_kdet, {});
        walls[c].push_back(t.wall);
        cpus[c].push_back(t.cpu);
      }
    fmt::print("{} kernels of ~{} instructions, {} repetitions, options {}\n", kernels, size, reps,
               fmt::join(options, " "));
    fmt::print("| configuration | median wall (s) | min wall (s) | wall ratio | median CPU (s) | "
               "CPU ratio |\n|---|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < 3; ++c)
      fmt::print("| {} | {:.3f} | {:.3f} | {:.4f} | {:.3f} | {:.4f} |\n", names[c],
                 median(walls[c]), *std::min_element(walls[c].begin(), walls[c].end()),
                 median(walls[c]) / median(walls[0]), median(cpus[c]),
                 median(cpus[c]) / median(cpus[0]));
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "capture_overhead: {}\n", e.what());
    return 2;
  }
}
