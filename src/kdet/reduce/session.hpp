//===- reduce/session.hpp - one `kdet reduce`, below the CLI -------------------===//
//
// The reduction of one input to SMALL: the tool chosen by the input's format
// (kdet's passes, cvise for C, C++ and CUDA C++, llvm-reduce for NVVM IR when
// asked), each accepted text written to SMALL atomically, and the oracle
// cvise's script calls back (`kdet reduce --oracle-state DIR ...`). Prints
// nothing: warnings and progress go to callbacks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/reduce/reducer.hpp"

#include <functional>
#include <string>

namespace kdet::reduce {

// One session's setting.
struct SessionOptions {
  // Plan, jobs, kind of variance, runs, time limit, renaming and log; the session sets
  // work_dir (a temporary folder) and cvise.
  ReduceOptions reduce;
  std::string out;           // SMALL: every accepted text, and the result, go there
  std::string input_display; // the input as the user named it, for warnings
  std::string cvise;         // --cvise: its path; empty: cvise in PATH; "none": the line pass
  std::string llvm_reduce;   // --llvm-reduce: its path for NVVM IR; empty: kdet's own passes
};

// Reduces options.reduce.plan's input (reduce()), writing each accepted text to SMALL and,
// when none was, the input's own (SMALL is always the result, also after an interrupt).
// Throws Error (exit 2) for a --llvm-reduce that is no program and as reduce() does.
// `warn` gets a missing cvise before the reduction starts.
ReduceResult reduce_to_file(const SessionOptions& options,
                            const std::function<void(const std::string&)>& warn,
                            const std::function<void(const Progress&)>& progress);

// cvise's interestingness test of `candidate` with the reference in `state_dir`: 0 when it
// still varies as the original did (and offers it to `best_path`), 1 when not, 130 when
// interrupted.
int judge_candidate(const engine::RunPlan& plan, const std::string& state_dir,
                    const std::string& candidate, bool any_variance, const std::string& best_path);

// How much smaller `bytes` is than `original_bytes`, in percent (an empty original counts as 1).
double percent_smaller(size_t original_bytes, size_t bytes);

} // namespace kdet::reduce
