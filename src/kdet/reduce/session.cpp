//===- reduce/session.cpp - one `kdet reduce`, below the CLI -------------------===//
#include "kdet/reduce/session.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/reduce/cvise.hpp"
#include "kdet/reduce/oracle.hpp"
#include "kdet/reduce/passes.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fmt/format.h>

namespace kdet::reduce {

namespace {

// The arguments after `reduce` this kdet was started with, for the script cvise runs.
std::vector<std::string> reduce_arguments() {
  std::string raw = read_file("/proc/self/cmdline");
  std::vector<std::string> argv;
  for (size_t p = 0; p < raw.size();) {
    size_t e = raw.find('\0', p);
    if (e == std::string::npos) e = raw.size();
    argv.push_back(raw.substr(p, e - p));
    p = e + 1;
  }
  for (size_t i = 1; i < argv.size(); ++i)
    if (argv[i] == "reduce") return {argv.begin() + static_cast<long>(i) + 1, argv.end()};
  throw Error("cannot find `reduce` in this kdet's command line (/proc/self/cmdline)");
}

} // namespace

ReduceResult reduce_to_file(const SessionOptions& options,
                            const std::function<void(const std::string&)>& warn,
                            const std::function<void(const Progress&)>& progress) {
  TempDir work("reduce");
  ReduceOptions o = options.reduce;
  o.work_dir = work.path();
  TextFormat format = format_of(o.plan.input_path);
  if (format == TextFormat::nvvm_ir && !options.llvm_reduce.empty()) {
    o.cvise.tool = CviseOptions::Tool::llvm_reduce;
    o.cvise.program = find_cvise(options.llvm_reduce);
    if (o.cvise.program.empty())
      throw Error::format("--llvm-reduce {}: not a program (Debian: apt-get install llvm-14, "
                          "then --llvm-reduce llvm-reduce-14)",
                          options.llvm_reduce);
  }
  if (format == TextFormat::cxx || !o.cvise.program.empty()) {
    if (format == TextFormat::cxx) o.cvise.program = find_cvise(options.cvise);
    if (format == TextFormat::cxx && o.cvise.program.empty() && options.cvise != "none")
      warn(fmt::format("{}: cvise not found{}; reducing C++ with the line pass only (install the "
                       "Debian package cvise, or give --cvise PATH)",
                       options.input_display,
                       options.cvise.empty() ? " in PATH" : " at " + options.cvise));
    o.cvise.kdet = self_exe();
    o.cvise.reduce_args = reduce_arguments();
    o.cvise.cwd = absolute_path(".");
    if (const char* t = std::getenv("TMPDIR")) o.cvise.tmpdir = std::string(t);
    o.cvise.best_path = options.out;
  }
  const std::string& out_path = options.out;
  std::atomic<bool> wrote = false;
  auto on_best = [&out_path, &wrote](const std::string& text) {
    write_file_atomic(out_path, text);
    wrote = true;
  };
  ReduceResult r = reduce(o, on_best, progress);
  // Nothing smaller varied (or nothing was tried): SMALL is the input itself, also where an
  // older SMALL was there (it was kept, stale, beside a repro of this input).
  if (!wrote) write_file_atomic(out_path, r.text);
  return r;
}

int judge_candidate(const engine::RunPlan& plan, const std::string& state_dir,
                    const std::string& candidate, bool any_variance, const std::string& best_path) {
  OracleState st = read_oracle_state(state_dir);
  std::string text = read_file(candidate);
  if (was_accepted(state_dir, text)) {
    note_oracle_test(state_dir, 0, Rejection::none);
    return 0;
  }
  engine::RunPlan base = plan;
  base.jobs = 1;
  TempDir work("reduce");
  std::string ext = file_extension(candidate);
  Oracle oracle(base, work.path(), ext.empty() ? ext : "." + ext, any_variance);
  oracle.set_reference(st.kind, st.rate);
  TestResult t = oracle.interesting(text, any_test_recorded(state_dir) ? 0 : k_confirm_runs);
  bool ok = t.interesting;
  // The confirming runs measure the accepted text's rate again (16 of them either way).
  Measure m = t.confirmed.value_or(Measure{});
  if (ok && any_variance) m = oracle.run(text, k_confirm_runs, false);
  note_oracle_test(state_dir, oracle.compiles(), t.why);
  if (!ok || engine::interrupted()) return engine::interrupted() ? k_exit_interrupted : 1;
  remember_accepted(state_dir, text);
  if (m.runs > 0 && offer_best(state_dir, best_path, text))
    write_oracle_state(state_dir, {st.kind, rate_after(m, st.rate)});
  return 0;
}

double percent_smaller(size_t original_bytes, size_t bytes) {
  return 100.0 * (1.0 - static_cast<double>(bytes) /
                            static_cast<double>(std::max<size_t>(1, original_bytes)));
}

} // namespace kdet::reduce
