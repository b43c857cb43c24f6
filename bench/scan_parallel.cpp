//===- bench/scan_parallel.cpp - parallel efficiency of kdet scan --------------===//
//
// Runs the same scan with --jobs 1 and --jobs N (fresh database each time)
// and prints the speed-up over one worker and the efficiency T1 / (N * TN).
// The compiler is the real libNVVM on the bundled LLVM-7 examples (4 inputs x
// 2 targets x 4 option sets = 32 jobs, each a fixed number of runs in one
// round), or any library given with --lib.
// Usage: scan_parallel KDET_BINARY [--source DIR] [--jobs 1,2,...] [--runs R] [--lib PATH]
// [--repeat K]
//
//===----------------------------------------------------------------------===//
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <thread>

using namespace kdet;

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(
        stderr,
        "usage: {} KDET_BINARY [--source DIR] [--jobs 1,2] [--runs R] [--lib PATH] [--repeat K]\n",
        argv[0]);
    return 2;
  }
  std::string kdet = absolute_path(argv[1]);
  // This file is <source>/bench/scan_parallel.cpp.
  std::string source = std::string(__FILE__).substr(0, std::string(__FILE__).rfind("/bench/"));
  std::string lib = "/usr/local/cuda/nvvm/lib64/libnvvm.so";
  if (::access(lib.c_str(), R_OK) != 0) lib = "/usr/local/cuda/lib64/libnvvm.so";
  std::vector<int> jobs = {1, static_cast<int>(std::max(2u, std::thread::hardware_concurrency()))};
  int runs = 6, repeat = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--source")
      source = v;
    else if (k == "--lib")
      lib = absolute_path(v);
    else if (k == "--runs")
      runs = std::atoi(v.c_str());
    else if (k == "--repeat")
      repeat = std::atoi(v.c_str());
    else if (k == "--jobs") {
      jobs.clear();
      for (const auto& p : split(v, ','))
        jobs.push_back(std::atoi(p.c_str()));
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  std::string dir = make_temp_dir("kdet-scan-parallel");
  std::string manifest = dir + "/m.toml";
  write_file_atomic(manifest, fmt::format(R"(name = "parallel"
inputs = ["{}/examples/nvvm/llvm7/*.ll"]
targets = ["80", "90a"]
[option_sets]
O0 = ["-opt=0"]
O1 = ["-opt=1"]
O2 = ["-opt=2"]
O3 = ["-opt=3"]
[[compiler]]
name = "nvvm"
backend = "nvvm"
lib = "{}"
[setting]
seed = 1
[budget]
max_runs = {}
first_round = {}
)",
                                          source, lib, runs, runs));
  fmt::print("scan_parallel: 32 jobs x {} runs, compiler {}, {} cores\n", runs, lib,
             std::thread::hardware_concurrency());
  double t1 = 0;
  for (int n : jobs) {
    double best = 1e30;
    for (int k = 0; k < repeat; ++k) {
      std::string db = fmt::format("{}/j{}-{}.db", dir, n, k);
      SpawnOptions o;
      o.argv = {kdet, "scan", manifest, "--db", db, "--jobs", std::to_string(n), "-q"};
      auto t0 = std::chrono::steady_clock::now();
      CapturedRun r = run_captured(o, std::chrono::milliseconds(0));
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.status.kind != ExitStatus::Kind::exited || r.status.code > 1) {
        fmt::print(stderr, "kdet scan --jobs {} failed: {}\n{}\n", n, r.status.describe(), r.err);
        return 1;
      }
      best = std::min(best, s);
    }
    if (n == jobs.front()) t1 = best * jobs.front();
    fmt::print("jobs {:>3}: {:.2f} s  speed-up {:.2f}  efficiency {:.2f}\n", n, best, t1 / best,
               t1 / best / static_cast<double>(n));
  }
  remove_tree(dir);
  return 0;
}
