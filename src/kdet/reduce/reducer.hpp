//===- reduce/reducer.hpp - `kdet reduce`: the smallest input that still varies ===//
//
// Runs the passes of the input's format (reduce/passes.hpp) round after round
// until none removes anything (C, C++ and CUDA C++: cvise, reduce/cvise.hpp, when
// it is there; else the line pass), testing candidates with the flaky-aware oracle;
// after each accepted step the rate is measured again and the best text is
// handed to a callback (the CLI writes it atomically). Prints nothing.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/reduce/cvise.hpp"
#include "kdet/reduce/names.hpp"
#include "kdet/reduce/oracle.hpp"
#include "kdet/reduce/passes.hpp"

#include <functional>
#include <string>

namespace kdet::reduce {

struct ReduceOptions {
  engine::RunPlan plan;       // compiler, options, setting; input_path is the original
  int jobs = 1;               // candidates tested at once
  bool any_variance = false;  // accept a candidate whose variance changed kind
  uint64_t initial_runs = 64; // runs of the check that the input varies
  uint64_t measure_runs = 16; // runs of each re-measurement after an accepted step
  double timeout_total = 0;   // seconds; 0: none
  std::string work_dir;       // where candidates are written
  CviseOptions cvise;         // C, C++, CUDA C++: cvise reduces when its program is set
  bool rename = true;         // long names get short stand-ins in the result (names.hpp)
  // -v: a line per candidate (its size, pass and outcome); called from the testing threads.
  std::function<void(const std::string&)> log;
};

// What one pass's candidates came to.
struct PassStats {
  std::string name;
  uint64_t tested = 0;
  uint64_t accepted = 0;
  uint64_t not_smaller = 0;   // rendered no smaller than the best: not tested
  RejectionCounts rejected{}; // by Rejection (invalid, failed, stopped_varying, ...)
  size_t removed = 0;         // bytes this pass took off
};

struct Progress {
  size_t bytes = 0;
  size_t original_bytes = 0;
  double rate = 0;
  uint64_t tests = 0;
  double elapsed = 0;
  const char* pass = "";
};

struct ReduceResult {
  std::string text;
  size_t original_bytes = 0;
  Measure original;
  Measure last; // the last measurement of `text`
  uint64_t tests = 0;
  uint64_t compiles = 0;
  double seconds = 0;
  bool interrupted = false;
  bool timed_out = false;
  const char* engine = "passes"; // "cvise" when cvise reduced
  std::string warning;           // cvise's own failure, to show; empty when none
  std::vector<PassStats> passes; // in the order they first ran (the passes engine)
  std::vector<Rename> renames;   // long names and their stand-ins
  bool renamed = false;          // `text` uses the stand-ins (the renamed text still varied)
};

// "ll-functions: 12 tested, 3 accepted, 9 stopped varying; ..." for a summary.
std::string describe_passes(const std::vector<PassStats>& passes);

// Checks that the input varies (throws Error, exit 2, when it does not or does not
// compile), then reduces it. `on_best` gets every accepted text as it is accepted.
ReduceResult reduce(const ReduceOptions& options,
                    const std::function<void(const std::string&)>& on_best,
                    const std::function<void(const Progress&)>& progress);

} // namespace kdet::reduce
