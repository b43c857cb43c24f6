//===- bench/capture_scale.cpp - kdet capture at 10^4 compiles: time, memory, disk ===//
//
// A pipeline that makes N libNVVM compiles of D distinct modules fast (the fake libNVVM of
// tests/fakes, echo mode: microseconds a compile) captured four ways, in a
// rotating order so machine load hits each alike:
//   capture --bundle-layout folders     a folder per bundle (the layout before packs)
//   capture (packed)                    each distinct bundle file once, in a pack
//   capture --builds 2, folders / packed
// For each: wall time, peak RSS (kdet and what it waited for: wait4's ru_maxrss)
// and disk (the blocks of every file of --out DIR), then packed / folders side by side.
// The packed ones run at N/10 compiles (N/10 modules, or D if fewer) too: how memory, wall and
// disk grow from N/10 to N compiles, side by side, as a ratio and per compile added.
// The pipeline is this program re-executed as `capture_scale __pipeline LIB N D`.
//
//===----------------------------------------------------------------------===//
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <ftw.h>
#include <optional>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

using namespace kdet;

namespace {

using Create = int (*)(void**);
using Add = int (*)(void*, const char*, size_t, const char*);
using Compile = int (*)(void*, int, const char**);
using Size = int (*)(void*, size_t*);
using Get = int (*)(void*, char*);

// The pipeline: N compiles of D distinct one-line modules (compile i makes module i mod D)
// through the library at LIB.
int pipeline_main(int argc, char** argv) {
  if (argc < 5) return 2;
  void* h = ::dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!h) return 2;
  auto create = reinterpret_cast<Create>(::dlsym(h, "nvvmCreateProgram"));
  auto destroy = reinterpret_cast<Create>(::dlsym(h, "nvvmDestroyProgram"));
  auto add = reinterpret_cast<Add>(::dlsym(h, "nvvmAddModuleToProgram"));
  auto compile = reinterpret_cast<Compile>(::dlsym(h, "nvvmCompileProgram"));
  auto size_of = reinterpret_cast<Size>(::dlsym(h, "nvvmGetCompiledResultSize"));
  auto result = reinterpret_cast<Get>(::dlsym(h, "nvvmGetCompiledResult"));
  if (!create || !destroy || !add || !compile || !size_of || !result) return 2;
  long n = std::atol(argv[3]), distinct = std::max(1L, std::atol(argv[4]));
  const char* opts[] = {"-arch=compute_90a"};
  for (long i = 0; i < n; ++i) {
    std::string ir = fmt::format("define void @k{}() {{ ret void }}\n", i % distinct);
    void* prog = nullptr;
    size_t size = 0;
    if (create(&prog) != 0 || add(prog, ir.data(), ir.size(), "m.ll") != 0 ||
        compile(prog, 1, opts) != 0 || size_of(prog, &size) != 0)
      return 3;
    std::string ptx(size, '\0');
    if (result(prog, ptx.data()) != 0) return 3;
    destroy(&prog);
  }
  return 0;
}

struct Figures {
  double wall = 0, rss_mib = 0, disk_mib = 0;
};

uint64_t g_blocks = 0;
int add_blocks(const char*, const struct stat* st, int, struct FTW*) {
  g_blocks += static_cast<uint64_t>(st->st_blocks);
  return 0;
}

// The blocks every file and folder under `dir` takes, in MiB.
double disk_mib(const std::string& dir) {
  g_blocks = 0;
  ::nftw(dir.c_str(), add_blocks, 64, FTW_PHYS);
  return static_cast<double>(g_blocks) * 512 / (1 << 20);
}

// Runs `argv` (output to /dev/null), waits with wait4 for its peak RSS; exit 0 or 1 expected.
Figures measure(const std::vector<std::string>& argv, const std::string& out) {
  std::vector<char*> a;
  for (const auto& s : argv)
    a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (::posix_spawn(&pid, a[0], &fa, nullptr, a.data(), environ) != 0)
    throw Error::format("cannot start {}", argv[0]);
  ::posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  rusage u{};
  ::wait4(pid, &status, 0, &u);
  Figures f;
  f.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
    throw Error::format("{} failed (status {:#x})", fmt::join(argv, " "), status);
  f.rss_mib = static_cast<double>(u.ru_maxrss) / 1024;
  f.disk_mib = disk_mib(out);
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "__pipeline") return pipeline_main(argc, argv);
  try {
    CLI::App app{"kdet capture of N fast compiles, bundles in folders against packed: wall "
                 "time, peak RSS and disk, alone and under --builds 2, and how they grow from "
                 "N/10 to N compiles"};
    std::string kdet_exe, lib;
    long compiles = 5000, distinct = 0;
    int reps = 1;
    std::string layout = "both";
    app.add_option("--kdet", kdet_exe, "kdet executable (default: beside this build)");
    app.add_option("--lib", lib, "libNVVM to compile with (default: the build's fake)");
    app.add_option("--compiles,-n", compiles, "Compiles the pipeline makes (default 5000)");
    app.add_option("--reps", reps, "Repetitions of each configuration (default 1)");
    app.add_option("--distinct,-d", distinct,
                   "Distinct modules among the compiles (default: every compile distinct)");
    app.add_option("--layout", layout, "both (default), pack or folders: the layouts measured")
        ->check(CLI::IsMember({"both", "pack", "folders"}));
    CLI11_PARSE(app, argc, argv);
    std::string self = self_exe();
    std::string build = self.substr(0, self.rfind("/bench/"));
    if (kdet_exe.empty()) kdet_exe = build + "/src/kdet";
    if (lib.empty()) lib = build + "/tests/fakes/libfakenvvm.so";
    if (::access(lib.c_str(), R_OK) != 0) {
      fmt::print("SKIP: {} not found (ninja kdet_test_fakes)\n", lib);
      return 77;
    }
    if (distinct <= 0) distinct = compiles;
    long small = std::max(1L, compiles / 10), small_distinct = std::min(small, distinct);
    TempDir tmp("bench");
    struct Config {
      const char* name;
      bool builds, folders, small;
    };
    std::vector<Config> configs;
    for (bool builds : {false, true}) {
      if (layout != "pack")
        configs.push_back({builds ? "capture --builds 2" : "capture", builds, true, false});
      if (layout != "folders") {
        configs.push_back({builds ? "capture --builds 2" : "capture", builds, false, false});
        configs.push_back({builds ? "capture --builds 2" : "capture", builds, false, true});
      }
    }
    size_t nc = configs.size();
    std::vector<std::vector<Figures>> got(nc);
    for (int r = 0; r < reps; ++r)
      for (size_t k = 0; k < nc; ++k) {
        size_t c = (k + static_cast<size_t>(r)) % nc;
        std::string out = fmt::format("{}/out-{}-{}", tmp.path(), r, c);
        std::vector<std::string> cmd = {kdet_exe, "capture", "--out", out};
        if (configs[c].builds) cmd.insert(cmd.end(), {"--builds", "2"});
        if (configs[c].folders) cmd.insert(cmd.end(), {"--bundle-layout", "folders"});
        cmd.insert(cmd.end(), {"--", self, "__pipeline", lib});
        cmd.push_back(std::to_string(configs[c].small ? small : compiles));
        cmd.push_back(std::to_string(configs[c].small ? small_distinct : distinct));
        got[c].push_back(measure(cmd, out));
        remove_tree(out);
      }
    auto med = [&](size_t c, double Figures::*m) {
      std::vector<double> v;
      for (const auto& f : got[c])
        v.push_back(f.*m);
      return median(v);
    };
    auto find = [&](bool builds, bool folders, bool sm) -> std::optional<size_t> {
      for (size_t c = 0; c < nc; ++c)
        if (configs[c].builds == builds && configs[c].folders == folders && configs[c].small == sm)
          return c;
      return std::nullopt;
    };
    fmt::print("{} compiles of {} distinct modules ({} of {} at N/10), {} repetition(s), "
               "medians\n",
               compiles, distinct, small, small_distinct, reps);
    fmt::print("| command | layout | compiles | wall (s) | peak RSS (MiB) | disk (MiB) |\n"
               "|---|---|---:|---:|---:|---:|\n");
    for (size_t c = 0; c < nc; ++c)
      fmt::print("| {} | {} | {} | {:.2f} | {:.0f} | {:.1f} |\n", configs[c].name,
                 configs[c].folders ? "folders" : "pack", configs[c].small ? small : compiles,
                 med(c, &Figures::wall), med(c, &Figures::rss_mib), med(c, &Figures::disk_mib));
    if (layout == "both") {
      fmt::print("\n| command | wall pack/folders | RSS pack/folders | disk pack/folders |\n"
                 "|---|---:|---:|---:|\n");
      for (bool builds : {false, true}) {
        size_t f = *find(builds, true, false), p = *find(builds, false, false);
        fmt::print("| {} | {:.3f} | {:.3f} | {:.3f} |\n", configs[p].name,
                   med(p, &Figures::wall) / med(f, &Figures::wall),
                   med(p, &Figures::rss_mib) / med(f, &Figures::rss_mib),
                   med(p, &Figures::disk_mib) / med(f, &Figures::disk_mib));
      }
    }
    if (layout != "folders") {
      // Growth from N/10 to N compiles, packed: 1.0 is "does not grow"; 10 is "grows with every
      // compile". Per compile: the difference over the compiles added.
      double added = static_cast<double>(compiles - small);
      fmt::print("\n| command (pack) | wall N/(N/10) | RSS N/(N/10) | disk N/(N/10) | "
                 "wall a compile added (us) | RSS a compile added (bytes) | disk a compile added "
                 "(bytes) |\n"
                 "|---|---:|---:|---:|---:|---:|---:|\n");
      for (bool builds : {false, true}) {
        size_t big = *find(builds, false, false), sm = *find(builds, false, true);
        // The difference over the compiles added, in `unit`s (2^20 bytes a MiB, 10^6 us a s).
        auto per = [&](double Figures::*m, double unit) {
          return added > 0 ? (med(big, m) - med(sm, m)) * unit / added : 0.0;
        };
        fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.0f} | {:.0f} | {:.0f} |\n",
                   configs[big].name, med(big, &Figures::wall) / med(sm, &Figures::wall),
                   med(big, &Figures::rss_mib) / med(sm, &Figures::rss_mib),
                   med(big, &Figures::disk_mib) / med(sm, &Figures::disk_mib),
                   per(&Figures::wall, 1e6), per(&Figures::rss_mib, 1 << 20),
                   per(&Figures::disk_mib, 1 << 20));
      }
    }
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "capture_scale: {}\n", e.what());
    return 2;
  }
}
