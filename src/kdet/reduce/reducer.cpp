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

namespace {

// What the pass loop shares with the reduction.
struct Context {
  const ReduceOptions& o;
  Oracle& oracle;
  TextFormat format;
  ReduceResult& r;
  const std::function<bool()>& stop;
  const std::function<void()>& report;
  const std::function<void(const std::string&)>& on_best;
};

PassStats& stats_of(ReduceResult& r, const char* name) {
  for (auto& s : r.passes)
    if (s.name == name) return s;
  r.passes.push_back({});
  r.passes.back().name = name;
  return r.passes.back();
}

// Tests `cands` for `pass` at once (`what`: what each kept), then counts and logs each outcome
// in their order, and writes an accepted one that is the best so far. Whether each was accepted.
std::vector<char> test_candidates(Context& cx, PassStats& st, const std::vector<std::string>& cands,
                                  const std::vector<std::string>& what, size_t& best_size) {
  std::vector<TestResult> tested = cx.oracle.interesting_all(cands);
  std::vector<char> ok(cands.size(), 0);
  for (size_t i = 0; i < cands.size(); ++i) {
    const std::string& cand = cands[i];
    const TestResult& t = tested[i];
    ok[i] = t.interesting ? 1 : 0;
    ++st.tested;
    if (t.interesting) {
      ++st.accepted;
      // Written at once, so an interrupt keeps every accepted step.
      if (cand.size() < best_size) {
        best_size = cand.size();
        cx.on_best(cand);
      }
    } else if (t.why != Rejection::none) {
      ++st.rejected[rejection_slot(t.why)];
    }
    if (cx.o.log)
      cx.o.log(fmt::format("candidate {} bytes ({:.1f} % of the original), {}{}: {}", cand.size(),
                           100.0 * static_cast<double>(cand.size()) /
                               static_cast<double>(std::max<size_t>(1, cx.r.original_bytes)),
                           st.name, what[i], describe(t)));
  }
  cx.report();
  return ok;
}

// The table's passes for the format, round after round until a round removes nothing.
void run_passes(Context& cx) {
  ReduceResult& r = cx.r;
  bool changed = true;
  for (int round = 0; changed && round < 8 && !cx.stop(); ++round) {
    changed = false;
    for (const Pass& pass : pass_table()) {
      if (pass.format != cx.format || cx.stop()) continue;
      PassStats& st = stats_of(r, pass.name);
      Split split = pass.split(r.text);
      if (split.chunks == 0) continue;
      size_t best_size = r.text.size();
      // The candidates that gain nothing are not tested; the rest at once.
      auto test = [&](const std::vector<std::vector<size_t>>& keeps) {
        std::vector<char> ok(keeps.size(), 0);
        std::vector<std::string> cands, what;
        std::vector<size_t> at;
        for (size_t i = 0; i < keeps.size(); ++i) {
          std::string cand = cleanup(cx.format, render(split, keeps[i]));
          if (cand.size() >= r.text.size()) {
            ++st.not_smaller;
            continue;
          }
          cands.push_back(std::move(cand));
          what.push_back(fmt::format(" ({} of {} chunks kept)", keeps[i].size(), split.chunks));
          at.push_back(i);
        }
        if (cands.empty()) return ok;
        std::vector<char> tested = test_candidates(cx, st, cands, what, best_size);
        for (size_t j = 0; j < at.size(); ++j)
          ok[at[j]] = tested[j];
        return ok;
      };
      std::vector<size_t> keep = ddmin(split.chunks, test, cx.o.jobs, cx.stop);
      if (keep.size() == split.chunks) continue;
      std::string cand = cleanup(cx.format, render(split, keep));
      if (cand.size() >= r.text.size()) continue;
      st.removed += r.text.size() - cand.size();
      r.text = cand;
      changed = true;
      // The rate of the new best sizes the next tests.
      Measure m = cx.oracle.run(r.text, cx.o.measure_runs, false);
      if (!m.interrupted && m.runs > 0) {
        r.last = m;
        cx.oracle.set_reference(r.original.kind, rate_after(m, cx.oracle.rate()));
      }
      cx.report();
    }
  }
}

// Long names get short stand-ins when the renamed text still varies; else the table only
// shortens the diff.
void try_renames(Context& cx) {
  ReduceResult& r = cx.r;
  r.renames = long_names(cx.format, r.text);
  if (r.renames.empty()) return;
  std::string cand = apply_renames(cx.format, r.text, r.renames);
  PassStats& st = stats_of(r, "rename");
  size_t best_size = r.text.size();
  if (cand.size() >= r.text.size() || !test_candidates(cx, st, {cand}, {""}, best_size).front())
    return;
  st.removed += r.text.size() - cand.size();
  r.text = cand;
  r.renamed = true;
}

} // namespace

std::string describe_passes(const std::vector<PassStats>& passes) {
  std::string out;
  static const Rejection k_reasons[] = {Rejection::invalid, Rejection::failed,
                                        Rejection::stopped_varying, Rejection::changed_kind,
                                        Rejection::interrupted};
  for (const auto& p : passes) {
    std::string line = fmt::format("{}: {} tested, {} accepted", p.name, p.tested, p.accepted);
    for (Rejection why : k_reasons)
      if (uint64_t n = p.rejected[rejection_slot(why)])
        line += fmt::format(", {} {}", n, to_string(why));
    if (p.not_smaller) line += fmt::format(", {} no smaller (not tested)", p.not_smaller);
    if (p.removed) line += fmt::format(", {} bytes removed", p.removed);
    out += line + "\n";
  }
  return out;
}

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
  // Those runs stop at two failures before any success, so that a broken input costs two; a
  // compiler that fails a third of its runs at random fails both one time in nine. As explain
  // does, more runs, all of them, before the input is called broken, and then the rate measured
  // with every failure counted (a hang is not run again: each costs the time limit).
  if (r.original.ok_variants == 0 && r.original.runs < o.initial_runs &&
      r.original.kind.find("timed-out") == std::string::npos) {
    Measure again = oracle.measure_all(input, k_confirm_failure_runs);
    if (again.interrupted) throw Interrupted();
    if (again.ok_variants == 0) {
      again.runs += r.original.runs;
      again.failed_runs += r.original.failed_runs;
      r.original = again;
    } else {
      r.original = oracle.measure_all(input, o.initial_runs);
      if (r.original.interrupted) throw Interrupted();
    }
  }
  if (r.original.ok_variants == 0)
    throw Error::format("{}: does not compile under this setting ({} of {} runs failed); "
                        "reduce needs an input that compiles",
                        o.plan.input_path, r.original.failed_runs, r.original.runs);
  bool varies = o.any_variance ? r.original.differing > 0 : r.original.ok_variants >= 2;
  if (!varies && r.original.failed_runs > 0 && !o.any_variance)
    throw Error::format(
        "{}: its successful compiles do not vary here: {}, one output, and {} failed ({}); "
        "reduce keeps outputs that differ, and a failure beside one output is the compiler's "
        "own, not that (--any-variance reduces an input whose outcomes differ in any way)",
        o.plan.input_path, plural(r.original.runs, "run"), r.original.failed_runs, r.original.kind);
  if (!varies)
    throw Error::format("{}: does not vary here: {}, bound {:.2g} %", o.plan.input_path,
                        plural(r.original.runs, "run"),
                        100 * stats::upper_bound(0, r.original.runs));
  oracle.set_reference(r.original.kind, r.original.rate());
  r.last = r.original;

  auto timed_out = [&] { return o.timeout_total > 0 && elapsed() > o.timeout_total; };
  auto stop = [&] { return engine::interrupted() || timed_out(); };
  Progress p{input.size(), input.size(), r.original.rate(), 0, 0, ""};
  std::mutex progress_mutex; // cvise's progress comes from its reporter thread
  auto report = [&] {
    std::lock_guard lock(progress_mutex);
    p.bytes = r.text.size();
    p.rate = r.last.rate();
    p.tests = oracle.tests();
    p.elapsed = elapsed();
    if (progress) progress(p);
  };
  report();

  bool llvm_reduce = o.cvise.tool == CviseOptions::Tool::llvm_reduce;
  bool external = !o.cvise.program.empty() &&
                  (llvm_reduce ? format == TextFormat::nvvm_ir : format == TextFormat::cxx);
  if (external) {
    r.engine = llvm_reduce ? "llvm-reduce" : "cvise";
    std::string state = o.work_dir + "/state";
    make_dirs(state);
    write_oracle_state(state, {r.original.kind, r.original.rate()});
    remember_accepted(state, input); // measured varying above: llvm-reduce's first check
    double left = o.timeout_total > 0 ? std::max(0.001, o.timeout_total - elapsed()) : 0;
    p.pass = r.engine;
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
    if (!c.failure.empty())
      r.warning = std::string(r.engine) + " failed (the best so far is kept): " + c.failure;
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
    PassStats& st = stats_of(r, r.engine); // its own passes are its business: tests only
    st.tested = c.tests;
    st.accepted = c.accepted;
    st.rejected = c.rejected;
    st.removed = r.original_bytes - r.text.size();
    r.seconds = elapsed();
    r.interrupted = engine::interrupted();
    r.timed_out = !r.interrupted && (c.stopped || timed_out());
    return r;
  }
  // Without cvise, C++ gets the line pass.
  if (format == TextFormat::cxx) format = TextFormat::text;
  std::function<bool()> stop_fn = stop;
  std::function<void()> report_fn = report;
  Context cx{o, oracle, format, r, stop_fn, report_fn, on_best};
  run_passes(cx);
  if (o.rename && !stop()) try_renames(cx);
  r.tests = oracle.tests();
  r.compiles = oracle.compiles();
  r.seconds = elapsed();
  r.interrupted = engine::interrupted();
  r.timed_out = !r.interrupted && timed_out();
  return r;
}

} // namespace kdet::reduce
