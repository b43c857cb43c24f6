//===- bench/run_overhead.cpp - what `kdet run` costs over a bare libNVVM loop ===//
//
// Issue 2: `kdet run --process same` against a bare loop over the same C API,
// same input, same N, same options; goal: wall-time ratio <= 1.01. Also the
// cost of a fresh worker (start + dlopen + a cold compile) relative to one
// median compile.
//
// Both sides run as child processes timed from here, interleaved in a rotating
// order (bare, kdet --heap none, kdet --heap churn, kdet --process fresh, then
// the next repetition starts one place later), so a burst of load on the
// machine hits every configuration alike. The bare side is this program
// re-executed as `run_overhead __bare LIB INPUT N OPTION...`: dlopen, then N
// times create/add/compile/get result/destroy, nothing else. Its wall time
// includes its own process start and dlopen, as kdet's does.
//
// A last, untimed pass runs kdet with --json to say where kdet's extra time
// goes (process start and report, probe worker, run worker start, per-run
// pipe transfer and hashing, heap churn, compile time inside the worker).
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/backend.hpp"
#include "kdet/corpus/generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <nvvm.h>
#include <tuple>
#include <unistd.h>

using namespace kdet;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// The bare loop: what a hand-written repro does, nothing more. Prints one JSON
// line: dlopen seconds, each compile's seconds, PTX size, whether all PTX matched.
int bare_main(int argc, char** argv) {
  if (argc < 5) {
    fmt::print(stderr, "usage: run_overhead __bare LIB INPUT N [OPTION...]\n");
    return 2;
  }
  std::string lib = argv[2], input = read_file(argv[3]);
  int n = std::atoi(argv[4]);
  std::vector<const char*> opts(argv + 5, argv + argc);

  auto t0 = clock_type::now();
  void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fmt::print(stderr, "dlopen {}: {}\n", lib, ::dlerror());
    return 2;
  }
  auto create = reinterpret_cast<decltype(&nvvmCreateProgram)>(::dlsym(h, "nvvmCreateProgram"));
  auto add =
      reinterpret_cast<decltype(&nvvmAddModuleToProgram)>(::dlsym(h, "nvvmAddModuleToProgram"));
  auto compile = reinterpret_cast<decltype(&nvvmCompileProgram)>(::dlsym(h, "nvvmCompileProgram"));
  auto result_size = reinterpret_cast<decltype(&nvvmGetCompiledResultSize)>(
      ::dlsym(h, "nvvmGetCompiledResultSize"));
  auto result =
      reinterpret_cast<decltype(&nvvmGetCompiledResult)>(::dlsym(h, "nvvmGetCompiledResult"));
  auto destroy = reinterpret_cast<decltype(&nvvmDestroyProgram)>(::dlsym(h, "nvvmDestroyProgram"));
  if (!create || !add || !compile || !result_size || !result || !destroy) {
    fmt::print(stderr, "{}: missing libNVVM entry points\n", lib);
    return 2;
  }
  double dlopen_s = seconds_since(t0);

  nlohmann::json compiles = nlohmann::json::array();
  std::string first;
  bool identical = true;
  for (int i = 0; i < n; ++i) {
    auto t = clock_type::now();
    nvvmProgram prog = nullptr;
    size_t size = 0;
    std::string ptx;
    bool ok = create(&prog) == NVVM_SUCCESS &&
              add(prog, input.data(), input.size(), "input.ll") == NVVM_SUCCESS &&
              compile(prog, static_cast<int>(opts.size()), opts.data()) == NVVM_SUCCESS &&
              result_size(prog, &size) == NVVM_SUCCESS;
    if (ok) {
      ptx.resize(size);
      ok = result(prog, ptx.data()) == NVVM_SUCCESS;
    }
    destroy(&prog);
    compiles.push_back(seconds_since(t));
    if (!ok) {
      fmt::print(stderr, "compile {} failed\n", i + 1);
      return 3;
    }
    if (i == 0)
      first = std::move(ptx);
    else if (ptx != first)
      identical = false;
  }
  nlohmann::json j = {{"dlopen_seconds", dlopen_s},
                      {"compile_seconds", compiles},
                      {"ptx_bytes", first.size()},
                      {"identical", identical}};
  fmt::print("{}\n", j.dump());
  return 0;
}

struct Config {
  std::string name;
  std::vector<std::string> argv;
  std::vector<double> walls;
  std::vector<double> cpu_share, cpu_kdet, cpu_compile; // kdet configurations: from --json
};

// Mean and its 95 % interval (Student's t; the repetitions are few).
std::tuple<double, double, double> mean_interval(const std::vector<double>& v) {
  static const double t975[] = {12.706, 4.303, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
                                2.101,  2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
                                2.056,  2.052, 2.048, 2.045, 2.042, 2.042};
  const size_t n = v.size();
  double mean = 0;
  for (double x : v)
    mean += x;
  mean /= static_cast<double>(n ? n : 1);
  if (n < 2) return {mean, mean, mean};
  double ss = 0;
  for (double x : v)
    ss += (x - mean) * (x - mean);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  const double t = n - 1 <= 30 ? t975[n - 2] : 1.96;
  return {mean, mean - t * se, mean + t * se};
}

CapturedRun run_child(const std::vector<std::string>& argv) {
  SpawnOptions o;
  o.argv = argv;
  CapturedRun r = run_captured(o, std::chrono::minutes(30));
  // kdet exits 1 when it finds nondeterminism: still a valid timing.
  if (!(r.status.ok() || (r.status.kind == ExitStatus::Kind::exited && r.status.code == 1)))
    throw Error::format("{} {}:\n{}", shell_join(argv), r.status.describe(), r.err);
  return r;
}

// Where kdet's time goes, from its own --json record of one run.
struct Breakdown {
  double process_wall = 0; // as timed from here
  double execute_wall = 0; // engine::execute, as kdet timed it
  double probe = 0;        // probe worker: start + dlopen + identity
  double first_extra = 0;  // first run: driver time beyond compile + churn (run worker start)
  double per_run_extra =
      0; // median of later runs: driver time beyond compile + churn (pipe, framing)
  double compile_sum = 0;
  double churn_sum = 0;
  double compile_median = 0;
  size_t runs = 0;
};

Breakdown breakdown(std::vector<std::string> argv, const std::string& json_path) {
  // Every kdet configuration writes --json (kdet's own CPU record): point it at this run's file.
  auto opt = std::find(argv.begin(), argv.end(), "--json");
  if (opt == argv.end() || opt + 1 == argv.end())
    throw Error("breakdown: no --json in the command");
  *(opt + 1) = json_path;
  Breakdown b;
  b.process_wall = run_child(argv).seconds;
  auto j = nlohmann::json::parse(read_file(json_path));
  b.execute_wall = j["timing"]["wall_seconds"].get<double>();
  b.probe = j["timing"]["worker_start_seconds"].get<double>();
  std::vector<double> extra, compiles;
  for (const auto& r : j["records"]) {
    double s = r["seconds"].get<double>(), c = r["compile_seconds"].get<double>(),
           ch = r["churn_seconds"].get<double>();
    b.compile_sum += c;
    b.churn_sum += ch;
    compiles.push_back(c);
    if (b.runs++ == 0)
      b.first_extra = s - c - ch;
    else
      extra.push_back(s - c - ch);
  }
  b.per_run_extra = median(extra);
  b.compile_median = median(compiles);
  return b;
}

std::string ms(double s) {
  return fmt::format("{:.1f}", s * 1000);
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "__bare") return bare_main(argc, argv);
  try {
    CLI::App app{
        "Times `kdet run` against a bare loop over the libNVVM C API (same input, N, options)"};
    std::string kdet_exe, lib, input;
    size_t size = 1500;
    int runs = 20, reps = 5;
    std::vector<std::string> options;
    app.add_option("--kdet", kdet_exe, "kdet binary (default: ../src/kdet next to this program)");
    app.add_option("--lib", lib, "libnvvm.so (default: kdet's default)");
    app.add_option("--input", input,
                   "NVVM IR input (default: a generated llvm7 kernel of --size instructions)");
    app.add_option("--size", size, "Instructions of the generated input (default 1500)");
    app.add_option("--runs,-n", runs, "Compiles per measurement (default 20)");
    app.add_option("--reps", reps, "Interleaved repetitions (default 5)");
    app.add_option("options", options,
                   "libNVVM options after -- (default -arch=compute_90a -opt=3)");
    app.positionals_at_end();
    CLI11_PARSE(app, argc, argv);
    if (options.empty()) options = {"-arch=compute_90a", "-opt=3"};
    std::string self = self_exe();
    if (kdet_exe.empty())
      kdet_exe =
          (std::filesystem::path(self).parent_path().parent_path() / "src" / "kdet").string();
    if (lib.empty()) lib = backend::default_library_path(backend::Kind::nvvm);
    if (!std::filesystem::exists(lib)) {
      fmt::print(stderr, "run_overhead: SKIP: {} not found\n", lib);
      return 77;
    }
    std::string tmp = make_temp_dir("kdet-bench");
    if (input.empty()) {
      corpus::KernelSpec spec;
      spec.name = "bench";
      spec.seed = 1;
      spec.instructions = size;
      input = tmp + "/bench.ll";
      write_file_atomic(input, corpus::generate_kernel(spec).text);
    }
    input = absolute_path(input);

    auto kdet_run = [&](const std::string& process, const std::string& heap, bool prestart = true) {
      std::vector<std::string> a = {kdet_exe,
                                    "run",
                                    input,
                                    "--lib",
                                    lib,
                                    "--process",
                                    process,
                                    "--heap",
                                    heap,
                                    "--unnamed",
                                    "natural",
                                    "-n",
                                    std::to_string(runs),
                                    "--quiet",
                                    "--json",
                                    tmp + "/timed-" + process + "-" + heap +
                                        (prestart ? "" : "-np") + ".json"};
      if (!prestart) a.push_back("--no-prestart");
      a.push_back("--");
      a.insert(a.end(), options.begin(), options.end());
      return a;
    };
    std::vector<std::string> bare = {self, "__bare", lib, input, std::to_string(runs)};
    bare.insert(bare.end(), options.begin(), options.end());
    std::vector<Config> configs = {
        {"bare loop (dlopen + N compiles)", bare, {}, {}, {}, {}},
        {"kdet run --process same --heap none", kdet_run("same", "none"), {}, {}, {}, {}},
        {"kdet run --process same --heap churn", kdet_run("same", "churn"), {}, {}, {}, {}},
        {"kdet run --process fresh --heap none", kdet_run("fresh", "none"), {}, {}, {}, {}},
        {"kdet run --process fresh --heap none --no-prestart",
         kdet_run("fresh", "none", false),
         {},
         {},
         {},
         {}}};

    std::vector<double> bare_compiles, bare_first, bare_dlopen;
    size_t ptx_bytes = 0;
    const bool tty = ::isatty(2);
    run_child(configs[1].argv); // warm the page cache for kdet and libNVVM alike; not timed
    for (int r = 0; r < reps; ++r) {
      for (size_t k = 0; k < configs.size(); ++k) {
        Config& c = configs[(k + static_cast<size_t>(r)) % configs.size()];
        CapturedRun out = run_child(c.argv);
        c.walls.push_back(out.seconds);
        if (&c != &configs[0]) {
          // kdet's own CPU, measured by kdet itself (the command's CPU less the compiles').
          auto j = nlohmann::json::parse(
              read_file(*(std::find(c.argv.begin(), c.argv.end(), "--json") + 1)));
          c.cpu_share.push_back(j["cpu"]["kdet_share_of_compile"].get<double>());
          c.cpu_kdet.push_back(j["cpu"]["kdet_seconds"].get<double>());
          c.cpu_compile.push_back(j["cpu"]["compile_seconds"].get<double>());
        }
        if (&c == &configs[0]) {
          auto j = nlohmann::json::parse(out.out);
          auto cs = j["compile_seconds"].get<std::vector<double>>();
          bare_first.push_back(cs.front());
          bare_compiles.insert(bare_compiles.end(), cs.begin() + 1, cs.end());
          bare_dlopen.push_back(j["dlopen_seconds"].get<double>());
          ptx_bytes = j["ptx_bytes"].get<size_t>();
        }
        if (tty) fmt::print(stderr, "\r\033[Krep {}/{}: {}", r + 1, reps, c.name);
      }
    }
    if (tty) fmt::print(stderr, "\r\033[K");

    double compile_med = median(bare_compiles);
    double bare_med = median(configs[0].walls);
    fmt::print("input: {} ({}, PTX {}), options: {}, N = {}, {} interleaved repetitions\n", input,
               human_bytes(read_file(input).size()), human_bytes(ptx_bytes), shell_join(options),
               runs, reps);
    fmt::print("bare loop: median compile {} ms (runs 2..N), first compile {} ms, dlopen {} ms\n\n",
               ms(compile_med), ms(median(bare_first)), ms(median(bare_dlopen)));
    fmt::print(
        "| configuration | median wall (ms) | min (ms) | max (ms) | ratio to bare (medians) |\n");
    fmt::print("|---|---:|---:|---:|---:|\n");
    for (const auto& c : configs) {
      fmt::print("| {} | {} | {} | {} | {:.4f} |\n", c.name, ms(median(c.walls)),
                 ms(*std::min_element(c.walls.begin(), c.walls.end())),
                 ms(*std::max_element(c.walls.begin(), c.walls.end())), median(c.walls) / bare_med);
    }
    // Paired ratios (each repetition's kdet wall over the same repetition's bare wall).
    fmt::print("\npaired ratio per repetition (kdet --heap none / bare): ");
    std::vector<double> paired;
    for (int r = 0; r < reps; ++r)
      paired.push_back(configs[1].walls[static_cast<size_t>(r)] /
                       configs[0].walls[static_cast<size_t>(r)]);
    for (double p : paired)
      fmt::print("{:.4f} ", p);
    fmt::print("(median {:.4f})\n", median(paired));
    auto [mean, low, high] = mean_interval(paired);
    fmt::print("paired ratio: mean {:.4f}, 95 % interval of the mean {:.4f} to {:.4f} ({})\n", mean,
               low, high, low <= 1.0 && high >= 1.0 ? "contains 1.00" : "excludes 1.00");

    // kdet's own CPU time (user + system of kdet and its workers outside the compile calls),
    // from each timed run's own record: a direct measure, immune to the machine's load.
    fmt::print(
        "\n| kdet's own CPU | median (ms) | max (ms) | median compile CPU (ms) | median share of "
        "compile CPU | max share |\n|---|---:|---:|---:|---:|---:|\n");
    for (size_t k = 1; k < configs.size(); ++k) {
      const Config& c = configs[k];
      fmt::print("| {} | {} | {} | {} | {:.2f} % | {:.2f} % |\n", c.name, ms(median(c.cpu_kdet)),
                 ms(*std::max_element(c.cpu_kdet.begin(), c.cpu_kdet.end())),
                 ms(median(c.cpu_compile)), 100 * median(c.cpu_share),
                 100 * *std::max_element(c.cpu_share.begin(), c.cpu_share.end()));
    }

    fmt::print("\nfresh / same at -j 1 (medians): {:.4f} with prestart, {:.4f} without\n",
               median(configs[3].walls) / median(configs[1].walls),
               median(configs[4].walls) / median(configs[1].walls));
    double fresh_extra = (median(configs[3].walls) - median(configs[1].walls)) / runs;
    fmt::print(
        "\nfresh worker per run, minus a same-process run: {} ms = {:.2f} x one median compile "
        "({} ms)\n",
        ms(fresh_extra), fresh_extra / compile_med, ms(compile_med));

    // Where the time goes (one more run of each kdet configuration, with --json; not part of the
    // ratio).
    fmt::print("\n| where kdet's time goes (ms) | heap none | heap churn | fresh "
               "|\n|---|---:|---:|---:|\n");
    std::vector<Breakdown> bd;
    for (size_t k = 1; k < 4; ++k)
      bd.push_back(breakdown(configs[k].argv, fmt::format("{}/r{}.json", tmp, k)));
    auto row = [&](const char* label, auto get) {
      fmt::print("| {} | {} | {} | {} |\n", label, ms(get(bd[0])), ms(get(bd[1])), ms(get(bd[2])));
    };
    row("process wall (with --json)", [](const Breakdown& b) { return b.process_wall; });
    row("kdet start, input hash, report, exit (wall - execute)",
        [](const Breakdown& b) { return b.process_wall - b.execute_wall; });
    row("probe worker (start + dlopen + identity)", [](const Breakdown& b) { return b.probe; });
    row("run 1: driver time beyond compile+churn (worker start)",
        [](const Breakdown& b) { return b.first_extra; });
    row("runs 2..N: median driver time beyond compile+churn",
        [](const Breakdown& b) { return b.per_run_extra; });
    row("heap churn, all runs", [](const Breakdown& b) { return b.churn_sum; });
    row("compile time inside the worker, all runs",
        [](const Breakdown& b) { return b.compile_sum; });
    row("median compile inside the worker", [](const Breakdown& b) { return b.compile_median; });
    fmt::print("| bare loop: all compiles (median rep) | {} | | |\n",
               ms(compile_med * (runs - 1) + median(bare_first)));
    // kdet hashes the compiler library for its identity on every invocation
    // (remembered across processes by util/hash_memo while the file is unchanged; this times
    // the first hash, which every kdet run paid before).
    std::vector<double> hash_times;
    for (int i = 0; i < 3; ++i) {
      auto t = clock_type::now();
      hash_file(lib);
      hash_times.push_back(seconds_since(t));
    }
    fmt::print("\nhash of the compiler library ({}, {}), when not remembered: {} ms\n", lib,
               human_bytes(std::filesystem::file_size(lib)), ms(median(hash_times)));
    remove_tree(tmp);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "run_overhead: error: {}\n", e.what());
    return e.exit_code();
  }
}
