//===- bench/scan_store.cpp - scan store ingest and report speed ---------------===//
//
// Two numbers for docs/PERFORMANCE.md, from synthetic rows (no compiling):
//   ingest: run records per second through ScanWriter (the scan's real write
//           path: one writer thread, batched transactions, prepared statements)
//   report: time to load a 6,491-job database (161 varying jobs with PTX
//           variants) and render its HTML, JSON, JUnit and text reports.
// Usage: scan_store [JOBS=6491] [RUNS_PER_JOB=32] [VARYING=161] [DIR=/tmp]
//
//===----------------------------------------------------------------------===//
#include "kdet/report/scan_report.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>

using namespace kdet;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A PTX-looking kernel of ~200 lines; `variant` swaps two instructions and renumbers one register.
std::string fake_ptx(size_t job, int variant) {
  std::string s =
      fmt::format("//\n.version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k{}(\n"
                  "  .param .u64 p0\n)\n{{\n  .reg .b32 %r<200>;\n",
                  job);
  for (int i = 0; i < 200; ++i) {
    int a = i, b = i + 1;
    if (variant && i == 50) std::swap(a, b);
    s += fmt::format("  add.s32 %r{}, %r{}, {};\n", variant && i == 120 ? 199 : a, b,
                     i * 7 + static_cast<int>(job % 13));
  }
  return s + "  ret;\n}\n";
}

} // namespace

int main(int argc, char** argv) {
  size_t n_jobs = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 6491;
  size_t runs_per_job = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 32;
  size_t n_varying = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 161;
  std::string dir =
      make_temp_dir(argc > 4 ? std::string(argv[4]) + "/kdet-scan-bench" : "kdet-scan-bench");
  std::string path = dir + "/bench.db";
  const char* targets[] = {"80", "86", "89", "90a", "100a", "120a", "121a"};
  const char* opts[] = {"O0", "O1", "O2", "O3"};

  std::vector<store::JobRow> planned;
  for (size_t i = 0; i < n_jobs; ++i) {
    store::JobRow j;
    j.id = hash_bytes(fmt::format("job{}", i));
    j.input = fmt::format("kernels/k{:05}.mlir", i / 28);
    j.input_hash = hash_bytes(j.input); // 28 jobs an input: the store's differences are per input
    j.compiler = "nvvm-13.3";
    j.target = targets[i % 7];
    j.option_set = opts[(i / 7) % 4];
    j.options = {fmt::format("-arch=compute_{}", j.target), "-opt=3"};
    j.budget = runs_per_job;
    planned.push_back(std::move(j));
  }
  uint64_t records = 0;
  double ingest_s = 0;
  {
    store::ScanDb db(path);
    db.set_meta({{"manifest_hash", "bench"}, {"name", "bench: 6491-job census"}});
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& j : planned)
      if (inputs.empty() || inputs.back().first != j.input)
        inputs.emplace_back(j.input, j.input_hash);
    db.plan({{"nvvm-13.3", "nvvm", "/usr/local/cuda/nvvm/lib64/libnvvm.so", "H", "libNVVM 2.0"}},
            planned, inputs);
    auto t0 = Clock::now();
    store::ScanWriter writer(db);
    size_t stride = n_varying ? n_jobs / n_varying : n_jobs + 1;
    for (size_t i = 0; i < n_jobs; ++i) {
      store::JobRow j = planned[i];
      bool varies = n_varying && i % stride == 0 && i / stride < n_varying;
      size_t runs = varies ? 3 : runs_per_job;
      store::RoundWrite w;
      std::vector<std::string> ptx = {fake_ptx(i, 0)};
      if (varies) ptx.push_back(fake_ptx(i, 1));
      for (size_t v = 0; v < ptx.size(); ++v) {
        std::string h = hash_bytes(ptx[v]);
        j.variants.push_back({hash_bytes(h),
                              !varies ? runs
                              : v     ? 1u
                                      : runs - 1,
                              v ? runs - 1 : 0,
                              "ok",
                              "",
                              {{"ptx", h, ptx[v].size()}},
                              ""});
        w.blobs.emplace_back(h, ptx[v]);
      }
      for (size_t r = 0; r < runs; ++r)
        w.runs.push_back({r, j.variants[r + 1 == runs && varies ? 1 : 0].id, "ok", 0, 0,
                          mix_seed(1, r), 0.05, 0.04, 1000 + static_cast<int>(i % 64),
                          static_cast<int>(r + 1), ""});
      j.runs = runs;
      j.ok_runs = runs;
      j.rounds = 1;
      j.done = true;
      w.job = std::move(j);
      records += runs;
      writer.push(std::move(w));
    }
    writer.flush();
    ingest_s = since(t0);
  }
  fmt::print("ingest: {} run records ({} jobs) in {:.3f} s = {:.0f} records/s\n", records, n_jobs,
             ingest_s, static_cast<double>(records) / ingest_s);

  store::ScanDb db(path);
  auto t1 = Clock::now();
  store::ScanResult r = db.load();
  double load_s = since(t1);
  auto t2 = Clock::now();
  std::string html = report::scan_to_html(r, [&db](const std::string& h) { return db.blob(h); });
  double html_s = since(t2);
  auto t3 = Clock::now();
  std::string json = report::scan_to_json(r).dump(2);
  double json_s = since(t3);
  auto t4 = Clock::now();
  std::string junit = report::scan_to_junit(r);
  std::string text = report::scan_to_text(r, {});
  double other_s = since(t4);
  write_file_atomic(dir + "/report.html", html);
  auto c = scan::count(r);
  fmt::print("report: {} jobs, {} varying: load {:.3f} s, HTML {:.3f} s ({:.1f} MiB), JSON {:.3f} "
             "s, JUnit+text {:.3f} s; "
             "load+HTML {:.3f} s\n",
             c.jobs, c.varying, load_s, html_s, static_cast<double>(html.size()) / (1 << 20),
             json_s, other_s, load_s + html_s);
  fmt::print("{}", text.substr(0, text.find('\n') + 1));
  if (std::getenv("KDET_BENCH_KEEP"))
    fmt::print("kept {}\n", dir);
  else
    remove_tree(dir);
  return 0;
}
