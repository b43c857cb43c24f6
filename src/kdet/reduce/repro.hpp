//===- reduce/repro.hpp - SMALL.repro/: a reduced input's reproducer folder -===//
//
// What a vendor bug report needs, measured again on the reduced input: the
// input (naming copies of the files it names), a README with the exact
// `kdet run` command and the rate with its 95 % interval, the final runs as
// `kdet run --out` keeps them (with kdet's environment record) and the diff of
// two variants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/reduce/reducer.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace kdet::reduce {

// How the final runs are rendered into run/ (report's functions: reduce sits below report).
struct RunRenderers {
  // run/result.json from the runs, their assessment and the input's content hash.
  std::function<nlohmann::json(const engine::RunOutput&, const engine::Assessment&,
                               const std::string&)>
      result;
  // One line of run/runs.jsonl.
  std::function<nlohmann::json(const engine::RunRecord&)> record;
};

// What SMALL.repro/ is made from besides the plan and the reduction.
struct ReproOptions {
  std::string out;          // SMALL; the folder is SMALL.repro beside it
  uint64_t final_runs = 64; // runs measuring the result
  int jobs = 1;
  std::string run_command; // the `kdet run` command reproducing the setting on SMALL's file name
  RunRenderers render;
};

// Throws Error (exit 2, naming -o) when `dir` exists and is not a real folder: kdet removes
// DIR/run, so a planted link (small.ll.repro -> / in a shared /tmp) would have it remove /run.
void check_repro_dir(const std::string& dir);

// The runs that measure a reduced input whose last measured rate was `rate`: enough that a
// second outcome shows with 99 % probability ((1 - rate)^n < 1 %, n = 4.6 / rate), at least
// `floor` and at most 8 x `floor` (the rate while reducing may have been a lucky draw).
uint64_t final_runs_for(double rate, uint64_t floor);

// What the final runs showed.
struct ReproResult {
  Measure measure;
  uint64_t outcomes = 0; // distinct outcomes of the compiler (kdet's own errors aside)
  bool varied() const { return outcomes >= 2; }
};

// Writes SMALL.repro/ for the reduction `r` of `plan`'s input: the runs of `plan` (with
// options.final_runs and options.jobs) on the reduced text, README.md, run/, diff.txt (when two
// successful variants came), files/. A result that did not vary in those runs is said so in the
// README, which then does not call it a reproducer.
ReproResult write_repro(const ReproOptions& options, const engine::RunPlan& plan,
                        const ReduceResult& r);

} // namespace kdet::reduce
