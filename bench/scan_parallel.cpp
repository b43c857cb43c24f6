//===- bench/scan_parallel.cpp - parallel efficiency of kdet scan --------------===//
//
// Runs the same scan with --jobs 1 and --jobs N (fresh database each time)
// and prints the speed-up over one worker and the efficiency T1 / (N * TN).
// The compiler is the real libNVVM on the bundled LLVM-7 examples (4 inputs x
// 2 targets x 4 option sets = 32 jobs, each a fixed number of runs in one
// round; or every .ll file of SOURCE/examples/nvvm/llvm7, e.g. a kdet corpus), or any library
// given with --lib. --shape I,T,O takes the first I inputs, T targets
// and O option sets (fewer jobs than slots: the split of rounds on idle slots), --process the
// manifest's process setting (default: the manifest's, both), --history the [setting] history
// (same-process chains, which let same-process rounds split; default 0) and --first-round the
// runs of a job's first round (default: all of them).
//
// Beside each efficiency it prints where it goes, from the scan's own database: "slots busy", the
// runs' wall time (worker start, compile, transfer: runs.seconds) over N x the scan's wall, and
// "compile time", the sum of the compiles' own wall time (runs.compile_seconds) against --jobs 1.
// Efficiency is roughly busy / compile time: a low "busy" is the scheduler's (or kdet's fixed
// costs'), a "compile time" above 1.00 is the machine running N compiles at once more slowly.
// A second line splits the N slots' time, from the scan's `--trace`: compiling, getting a worker
// ready (its start, or a prestarted one's hello), the reply and its files; and idle before a
// slot's first run, between its runs (kdet between rounds) and after its last (the tail). A third
// gives the cores the scan kept busy: the CPU (user + system) of kdet and every process under it,
// over the wall. Near N at --jobs N, a slot's waits were other processes' CPU (a worker's start
// or exit), so the rest is CPU work, not idle cores.
// Usage: scan_parallel KDET_BINARY [--source DIR] [--jobs 1,2,...] [--runs R] [--lib PATH]
// [--repeat K] [--shape I,T,O] [--process same|both|fresh] [--history N] [--first-round F]
// [--keep-traces DIR] (the fastest repetition's trace of each --jobs entry, as DIR/trace-K-jN.json
// for the K-th entry, from 0; DIR is made if missing)
//
//===----------------------------------------------------------------------===//
#include "kdet/util/cores.hpp"
#include "kdet/util/cpu_time.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace kdet;

namespace {

// Sum of runs.seconds and runs.compile_seconds in a scan database.
std::pair<double, double> run_seconds(const std::string& db_path) {
  sqlite3* db = nullptr;
  std::pair<double, double> sums{0, 0};
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT total(seconds), total(compile_seconds) FROM runs", -1, &st,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      sums = {sqlite3_column_double(st, 0), sqlite3_column_double(st, 1)};
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return sums;
}

// Where N slots' time went in a scan, from its --trace file: fractions of N x the scan's time.
std::string slot_time(const std::string& trace_path, int n) {
  nlohmann::json doc = nlohmann::json::parse(read_file(trace_path));
  double total = 0, compile = 0, ready = 0, reply = 0, head = 0, between = 0, tail = 0;
  std::map<int, std::vector<std::pair<double, double>>> lanes; // tid -> (start, end), us
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "phase") total += e["dur"].get<double>();
    if (cat != "run" && cat != "probe") continue;
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    lanes[e["tid"].get<int>()].emplace_back(ts, ts + dur);
    if (cat == "probe") {
      ready += dur;
      continue;
    }
    const double c = e["args"]["compile_ms"].get<double>() * 1e3;
    const double r = e["args"]["setup_ms"].get<double>() * 1e3;
    compile += c;
    ready += r;
    reply += std::max(0.0, dur - c - r);
  }
  for (auto& [tid, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    head += spans.front().first;
    for (size_t i = 1; i < spans.size(); ++i)
      between += std::max(0.0, spans[i].first - spans[i - 1].second);
    tail += std::max(0.0, total - spans.back().second);
  }
  // Slots that ran nothing were idle from start to end.
  if (static_cast<int>(lanes.size()) < n)
    tail += total * static_cast<double>(n - static_cast<int>(lanes.size()));
  const double all = total * n;
  if (all <= 0) return "no runs traced";
  return fmt::format("slot time: compile {:.3f}, worker ready {:.3f}, reply {:.3f}; idle: before "
                     "the first run {:.3f}, between runs {:.3f}, after the last {:.3f}",
                     compile / all, ready / all, reply / all, head / all, between / all,
                     tail / all);
}

int run(int argc, char** argv);

} // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "scan_parallel: {}\n", e.what());
    return 2;
  }
}

namespace {

int run(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    fmt::print(
        stderr,
        "usage: {} KDET_BINARY [--source DIR] [--jobs 1,2,...] [--runs R] [--lib PATH] [--repeat "
        "K]\n"
        "       [--shape I,T,O] [--process same|both|fresh] [--history N] [--first-round F]\n"
        "       [--keep-traces DIR]\n",
        argv[0]);
    return argc < 2 ? 2 : 0;
  }
  std::string kdet = absolute_path(argv[1]);
  if (::access(kdet.c_str(), X_OK) != 0 || std::filesystem::is_directory(kdet)) {
    fmt::print(stderr, "scan_parallel: {} is not a kdet binary\n", argv[1]);
    return 2;
  }
  // This file is <source>/bench/scan_parallel.cpp.
  std::string source = std::string(__FILE__).substr(0, std::string(__FILE__).rfind("/bench/"));
  std::string lib = "/usr/local/cuda/nvvm/lib64/libnvvm.so";
  if (::access(lib.c_str(), R_OK) != 0) lib = "/usr/local/cuda/lib64/libnvvm.so";
  std::vector<int> jobs = {1, static_cast<int>(std::max(2u, usable_cores()))};
  int runs = 6, repeat = 1, first_round = 0, history = 0;
  int shape[3] = {0, 2, 4}; // inputs (0: every .ll file), targets, option sets
  std::string process, keep_traces;
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
    else if (k == "--first-round")
      first_round = std::atoi(v.c_str());
    else if (k == "--process")
      process = v;
    else if (k == "--history")
      history = std::atoi(v.c_str());
    else if (k == "--keep-traces")
      keep_traces = v;
    else if (k == "--shape") {
      auto p = split(v, ',');
      for (size_t d = 0; d < 3 && d < p.size(); ++d)
        shape[d] = std::clamp(std::atoi(p[d].c_str()), 1, d == 1 ? 2 : d == 2 ? 4 : 1 << 20);
    } else if (k == "--jobs") {
      jobs.clear();
      for (const auto& p : split(v, ','))
        jobs.push_back(std::atoi(p.c_str()));
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  if (!keep_traces.empty()) std::filesystem::create_directories(keep_traces);
  std::string dir = make_temp_dir("kdet-scan-parallel");
  std::string manifest = dir + "/m.toml";
  // __FILE__ is relative to the build folder under ccache's base_dir: then the examples are
  // looked for beside the build folder of KDET_BINARY (BUILD/src/kdet).
  if (!std::filesystem::exists(source + "/examples/nvvm/llvm7"))
    source = std::filesystem::path(kdet).parent_path().parent_path().parent_path().string();
  // The .ll files of SOURCE/examples/nvvm/llvm7 in name order: the 4 bundled examples, or a
  // `kdet corpus` written there.
  std::vector<std::string> examples;
  for (const auto& e : std::filesystem::directory_iterator(source + "/examples/nvvm/llvm7"))
    if (e.path().extension() == ".ll") examples.push_back(e.path().string());
  std::sort(examples.begin(), examples.end());
  if (shape[0] == 0 || shape[0] > static_cast<int>(examples.size()))
    shape[0] = static_cast<int>(examples.size());
  const char* targets[] = {"80", "90a"};
  std::string text = "name = \"parallel\"\ninputs = [";
  for (int i = 0; i < shape[0]; ++i)
    text += fmt::format("{}\"{}\"", i ? ", " : "", examples[static_cast<size_t>(i)]);
  text += "]\ntargets = [";
  for (int i = 0; i < shape[1]; ++i)
    text += fmt::format("{}\"{}\"", i ? ", " : "", targets[i]);
  text += "]\n[option_sets]\n";
  for (int i = 0; i < shape[2]; ++i)
    text += fmt::format("O{} = [\"-opt={}\"]\n", i, i);
  text += fmt::format("[[compiler]]\nname = \"nvvm\"\nbackend = \"nvvm\"\nlib = \"{}\"\n", lib);
  text += "[setting]\nseed = 1\n";
  if (!process.empty()) text += fmt::format("process = \"{}\"\n", process);
  if (history > 0) text += fmt::format("history = {}\n", history);
  text += fmt::format("[budget]\nmax_runs = {}\nfirst_round = {}\n", runs,
                      first_round > 0 ? first_round : runs);
  write_file_atomic(manifest, text);
  const int n_jobs = shape[0] * shape[1] * shape[2];
  fmt::print("scan_parallel: {} jobs x {} runs (process {}, history {}), compiler {}, {} cores\n",
             n_jobs, runs, process.empty() ? "both" : process, history, lib, usable_cores());
  double t1 = 0, compile1 = 0;
  for (size_t at = 0; at < jobs.size(); ++at) {
    const int n = jobs[at];
    double best = 1e30;
    std::pair<double, double> sums; // of the fastest repetition
    std::string where;
    double cpu = 0; // of the fastest repetition: kdet's and its children's user + system seconds
    for (int k = 0; k < repeat; ++k) {
      // Named by place in --jobs too: --jobs 16,1,16 measures 16 twice, each on a new database.
      std::string db = fmt::format("{}/{}-j{}-{}.db", dir, at, n, k);
      std::string trace = fmt::format("{}/{}-j{}-{}.json", dir, at, n, k);
      SpawnOptions o;
      o.argv = {kdet,      "scan", manifest, "--db", db, "--jobs", std::to_string(n),
                "--trace", trace,  "-q"};
      auto t0 = std::chrono::steady_clock::now();
      const uint64_t cpu0 = children_cpu_ns(); // kdet reaps its workers, this process kdet
      CapturedRun r = run_captured(o, std::chrono::milliseconds(0));
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double cpu_s = static_cast<double>(children_cpu_ns() - cpu0) * 1e-9;
      if (r.status.kind != ExitStatus::Kind::exited || r.status.code > 1) {
        fmt::print(stderr, "kdet scan --jobs {} failed: {}\n{}\n", n, r.status.describe(), r.err);
        return 1;
      }
      if (s < best) {
        best = s;
        cpu = cpu_s;
        sums = run_seconds(db);
        where = slot_time(trace, n);
        if (!keep_traces.empty())
          std::filesystem::copy_file(trace, fmt::format("{}/trace-{}-j{}.json", keep_traces, at, n),
                                     std::filesystem::copy_options::overwrite_existing);
      }
    }
    if (at == 0) {
      t1 = best * jobs.front();
      compile1 = sums.second;
    }
    fmt::print("jobs {:>3}: {:.2f} s  speed-up {:.2f}  efficiency {:.2f}  (slots busy {:.2f}, "
               "compile time {:.2f})\n",
               n, best, t1 / best, t1 / best / static_cast<double>(n),
               sums.first / (best * static_cast<double>(n)),
               compile1 > 0 ? sums.second / compile1 : 0.0);
    fmt::print("          {}\n", where);
    // CPU over the wall: how many cores the scan kept busy, counting worker starts and exits,
    // which the slots' time above shows only as waits.
    fmt::print("          cores busy: {:.1f} (CPU {:.2f} s over the wall)\n", cpu / best, cpu);
  }
  remove_tree(dir);
  return 0;
}

} // namespace
