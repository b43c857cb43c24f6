//===- reduce/reducer.cpp - `kdet reduce`: the smallest input that still varies ===//
#include "kdet/reduce/reducer.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/reduce/ddmin.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <chrono>
#include <fmt/format.h>
#include <mutex>

namespace kdet::reduce {

ReduceResult reduce(const ReduceOptions& o, const std::function<void(const std::string&)>& on_best,
                    const std::function<void(const Progress&)>& progress) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::string input = read_file(o.plan.input_path);
  TextFormat format = format_of(o.plan.input_path);
  engine::RunPlan base = o.plan;
  base.jobs = 1;
  std::string ext = file_extension(o.plan.input_path);
  Oracle oracle(base, o.work_dir, ext.empty() ? ext : "." + ext, o.any_variance);

  ReduceResult r;
  r.text = input;
  r.original_bytes = input.size();
  r.original = oracle.run(input, o.initial_runs, false);
  if (r.original.interrupted) throw Interrupted();
  if (r.original.ok_variants == 0)
    throw Error::format("{}: does not compile under this setting ({} of {} runs failed); "
                        "reduce needs an input that compiles",
                        o.plan.input_path, r.original.failed_runs, r.original.runs);
  bool varies = o.any_variance ? r.original.differing > 0 : r.original.ok_variants >= 2;
  if (!varies)
    throw Error::format("{}: does not vary here: {}, bound {:.2g} %", o.plan.input_path,
                        plural(r.original.runs, "run"),
                        100 * stats::upper_bound(0, r.original.runs));
  oracle.set_reference(r.original.kind, r.original.rate());
  r.last = r.original;

  std::mutex best_mutex;
  auto timed_out = [&] { return o.timeout_total > 0 && elapsed() > o.timeout_total; };
  auto stop = [&] { return engine::interrupted() || timed_out(); };
  Progress p{input.size(), input.size(), r.original.rate(), 0, 0, ""};
  std::mutex progress_mutex; // -j tests report from several threads
  auto report = [&] {
    std::lock_guard lock(progress_mutex);
    p.bytes = r.text.size();
    p.rate = r.last.rate();
    p.tests = oracle.tests();
    p.elapsed = elapsed();
    if (progress) progress(p);
  };
  report();

  if (format == TextFormat::cxx && !o.cvise.program.empty()) {
    r.engine = "cvise";
    std::string state = o.work_dir + "/state";
    make_dirs(state);
    write_oracle_state(state, {r.original.kind, r.original.rate()});
    double left = o.timeout_total > 0 ? std::max(0.001, o.timeout_total - elapsed()) : 0;
    p.pass = "cvise";
    CviseOutcome c =
        run_cvise(o.cvise, input, o.plan.input_path.substr(o.plan.input_path.rfind('/') + 1),
                  o.work_dir, o.jobs, left, [&](size_t bytes, uint64_t tests, double rate) {
                    std::lock_guard lock(progress_mutex);
                    p.bytes = bytes;
                    p.rate = rate;
                    p.tests = tests;
                    p.elapsed = elapsed();
                    if (progress) progress(p);
                  });
    if (!c.failure.empty()) r.warning = "cvise failed (the best so far is kept): " + c.failure;
    if (!c.best.empty() && c.best.size() < r.text.size()) {
      r.text = c.best;
      on_best(r.text);
      if (!stop()) {
        Measure m = oracle.run(r.text, o.measure_runs, false);
        if (!m.interrupted && m.runs > 0) r.last = m;
      }
    }
    r.tests = c.tests;
    r.compiles = c.compiles + oracle.compiles();
    r.seconds = elapsed();
    r.interrupted = engine::interrupted();
    r.timed_out = !r.interrupted && (c.stopped || timed_out());
    return r;
  }
  // Without cvise, C++ gets the line pass.
  if (format == TextFormat::cxx) format = TextFormat::text;

  bool changed = true;
  for (int round = 0; changed && round < 8 && !stop(); ++round) {
    changed = false;
    for (const Pass& pass : pass_table()) {
      if (pass.format != format || stop()) continue;
      p.pass = pass.name;
      Split split = pass.split(r.text);
      if (split.chunks == 0) continue;
      size_t best_size = r.text.size();
      auto test = [&](const std::vector<size_t>& keep) {
        std::string cand = cleanup(format, render(split, keep));
        if (cand.size() >= r.text.size()) return false; // nothing gained, nothing to test
        bool ok = oracle.interesting(cand);
        if (ok) {
          // Written at once, so an interrupt keeps every accepted step.
          std::lock_guard lock(best_mutex);
          if (cand.size() < best_size) {
            best_size = cand.size();
            on_best(cand);
          }
        }
        report();
        return ok;
      };
      std::vector<size_t> keep = ddmin(split.chunks, test, o.jobs, stop);
      if (keep.size() == split.chunks) continue;
      std::string cand = cleanup(format, render(split, keep));
      if (cand.size() >= r.text.size()) continue;
      {
        std::lock_guard lock(best_mutex);
        r.text = cand;
      }
      changed = true;
      // The rate of the new best sizes the next tests.
      Measure m = oracle.run(r.text, o.measure_runs, false);
      if (!m.interrupted && m.runs > 0) {
        r.last = m;
        oracle.set_reference(r.original.kind,
                             std::max(m.rate(), 1.0 / static_cast<double>(m.runs)));
      }
      report();
    }
  }
  r.tests = oracle.tests();
  r.compiles = oracle.compiles();
  r.seconds = elapsed();
  r.interrupted = engine::interrupted();
  r.timed_out = !r.interrupted && timed_out();
  return r;
}

} // namespace kdet::reduce
