//===- scan/scheduler.cpp - adaptive rounds of each job on a thread pool -------===//
#include "kdet/scan/scheduler.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace kdet::scan {

using Clock = std::chrono::steady_clock;

store::JobRow initial_row(const Manifest& m, const Job& job) {
  store::JobRow r;
  r.id = job.id;
  r.input = job.input->name;
  r.input_hash = job.input_hash;
  r.compiler = m.compilers[job.compiler].name;
  r.target = job.target;
  r.option_set = option_set_name(m, job);
  r.options = job.options;
  r.seed = job.seed;
  r.budget = job_budget(m);
  r.expected_vary = job.expect != nullptr;
  r.expect_reason = job.expect ? job.expect->reason : "";
  return r;
}

namespace {

// Where round k of an uninterrupted scan starts and how many runs it has.
struct RoundSpan {
  uint64_t start = 0;
  uint64_t size = 0; // 0: the budget is spent
};

// The round of the uninterrupted schedule that holds run `runs` (the next one to do). The
// schedule depends only on the manifest and the budget, never on where a scan was stopped.
RoundSpan round_holding(const Manifest& m, uint64_t budget, uint64_t runs) {
  RoundSpan r;
  for (uint64_t k = 0;; ++k) {
    r.size = std::min(m.max_round, m.first_round << std::min<uint64_t>(k, 20));
    r.size = std::min(r.size, budget - std::min(budget, r.start));
    if (r.size == 0 || runs < r.start + r.size) return r;
    r.start += r.size;
  }
}

// Folds one round's output into the job's cumulative row; returns what to store.
store::RoundWrite fold_round(store::JobRow& row, const engine::RunOutput& out, uint64_t offset) {
  store::RoundWrite w;
  w.compiler_version = out.identity.version;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    store::RunRow x;
    x.index = offset + r.index;
    x.variant = r.variant;
    x.status = backend::to_string(r.status);
    x.code = r.code;
    x.signal = r.signal;
    x.seed = r.seed;
    x.seconds = r.seconds;
    x.compile_seconds = r.compile_seconds;
    x.worker_pid = r.worker_pid;
    x.nth_in_worker = r.nth_in_worker;
    x.detail = r.detail;
    if (r.status == backend::Status::ok) ++row.ok_runs;
    w.runs.push_back(std::move(x));
  }
  for (const auto& v : out.variants) {
    auto it = std::find_if(row.variants.begin(), row.variants.end(),
                           [&](const store::VariantRow& x) { return x.id == v.id; });
    if (it != row.variants.end()) {
      it->count += v.count;
      continue;
    }
    store::VariantRow nv;
    nv.id = v.id;
    nv.count = v.count;
    nv.first_run = offset + v.first_run;
    nv.status = backend::to_string(v.status);
    nv.detail = v.detail;
    for (const auto& a : v.artifacts) {
      nv.artifacts.push_back({a.name, a.hash, a.size});
      w.blobs.emplace_back(a.hash, backend::artifact_bytes(a));
    }
    row.variants.push_back(std::move(nv));
  }
  std::sort(row.variants.begin(), row.variants.end(),
            [](const store::VariantRow& a, const store::VariantRow& b) {
              return a.count != b.count ? a.count > b.count : a.first_run < b.first_run;
            });
  row.runs += out.completed;
  row.rounds += 1;
  row.seconds += out.wall_seconds;
  row.done = !out.interrupted && (row.variants.size() >= 2 || row.runs >= row.budget);
  w.job = row;
  return w;
}

} // namespace

ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options) {
  ScheduleStats stats;
  auto t0 = Clock::now();
  std::vector<const Job*> todo;
  size_t total = jobs.size(), already = 0;
  std::atomic<size_t> varying{0};
  for (const auto& j : jobs) {
    const store::JobRow& r = state.at(j.id);
    if (r.done) {
      ++already;
      if (r.varies()) ++varying;
    } else
      todo.push_back(&j);
  }
  std::atomic<size_t> next{0}, finished{0};
  std::mutex mu; // guards state, stats.errors, broken, identities, progress calls
  std::map<size_t, backend::Identity>
      identities;          // by compiler index: loaded once, later rounds skip the probe
  std::set<size_t> broken; // compilers that failed to load
  auto last_report = Clock::now() - std::chrono::seconds(1);

  auto report_progress = [&](bool force, bool last) {
    if (!options.progress) return;
    auto now = Clock::now();
    if (!force && now - last_report < std::chrono::milliseconds(200)) return;
    last_report = now;
    size_t done_now = finished.load();
    double el = std::chrono::duration<double>(now - t0).count();
    ScanProgress p;
    p.done = already + done_now;
    p.total = total;
    p.varying = varying.load();
    p.runs = stats.runs; // under mu, as every change of it
    p.last = last;
    if (done_now == todo.size())
      p.seconds_left = 0;
    else if (done_now)
      p.seconds_left =
          el / static_cast<double>(done_now) * static_cast<double>(todo.size() - done_now);
    options.progress(p);
  };

  std::atomic<bool> aborted{false}; // the store failed: stop taking jobs
  auto work = [&] {
    for (;;) {
      if (engine::interrupted() || aborted.load()) return;
      size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      const Job& job = *todo[i];
      store::JobRow row;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (broken.count(job.compiler)) continue;
        row = state.at(job.id);
      }
      while (!row.done && !engine::interrupted() && !aborted.load()) {
        // A round cut short by SIGINT/SIGTERM is finished from where it stopped, with the
        // run indices (and so the seeds) an uninterrupted scan would have given.
        RoundSpan span = round_holding(m, row.budget, row.runs);
        uint64_t offset = span.start;
        if (span.size == 0) {
          row.done = true;
          store::RoundWrite w;
          w.job = row;
          writer.push(std::move(w));
          break;
        }
        engine::RunPlan plan;
        plan.backend = job.backend;
        plan.setting = m.setting;
        plan.setting.seed = mix_seed(job.seed, offset);
        plan.input_path = job.input->path;
        plan.options = job.options;
        if (job.bundle) plan.parts = job.bundle->parts;
        plan.runs = span.size;
        plan.first_index = row.runs - span.start;
        plan.jobs = 1;
        plan.timeout = std::chrono::milliseconds(static_cast<long long>(m.timeout_seconds * 1000));
        plan.stop_at_outcomes = 2;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (auto it = identities.find(job.compiler); it != identities.end())
            plan.identity = it->second;
        }
        engine::RunOutput out;
        try {
          out = options.execute ? options.execute(plan) : engine::execute(plan);
          std::lock_guard<std::mutex> lock(mu);
          identities.emplace(job.compiler, out.identity);
        } catch (const Error& e) {
          std::lock_guard<std::mutex> lock(mu);
          if (broken.insert(job.compiler).second)
            stats.errors.push_back(
                fmt::format("compiler '{}': {}", m.compilers[job.compiler].name, e.what()));
          break;
        }
        if (out.completed == 0) break; // interrupted before any run finished
        store::RoundWrite w = fold_round(row, out, offset);
        writer.push(std::move(w));
        std::lock_guard<std::mutex> lock(mu);
        stats.rounds += 1;
        stats.runs += out.completed;
      }
      std::lock_guard<std::mutex> lock(mu);
      state[job.id] = row;
      if (row.done) {
        ++finished;
        ++stats.jobs_finished;
        if (row.varies()) ++varying;
      }
      report_progress(false, false);
    }
  };
  // A failing store (disk full, database locked by another writer) ends the scan with its message.
  auto worker = [&] {
    try {
      work();
    } catch (const std::exception& e) {
      aborted.store(true);
      std::lock_guard<std::mutex> lock(mu);
      stats.errors.push_back(e.what());
    }
  };
  int n = std::max(
      1, std::min<int>(options.threads, static_cast<int>(std::max<size_t>(1, todo.size()))));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();
  try {
    writer.flush();
  } catch (const std::exception& e) {
    stats.errors.push_back(e.what());
  }
  if (!todo.empty()) report_progress(true, true);
  stats.interrupted = engine::interrupted();
  stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return stats;
}

} // namespace kdet::scan
