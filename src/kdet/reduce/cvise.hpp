//===- reduce/cvise.hpp - cvise as the engine for C, C++ and CUDA C++ ---------===//
//
// cvise knows C++ (its passes parse it with clang), kdet knows the random
// property. kdet writes an interestingness script that calls kdet back
// (`kdet reduce --oracle-state DIR --oracle-candidate FILE ...`, the original
// command line otherwise), so the flaky-aware oracle decides every candidate.
// The oracle processes share a state folder: the reference kind and rate (the
// confirming runs of each accepted candidate measure it again), a count of
// tests and compiles, and the smallest accepted text, which each one that
// finds a smaller one writes to SMALL at once (under a lock), so an interrupt
// or a timeout keeps it. cvise runs in a process group of its own; stopping it
// ends the group and whatever it left (kill_orphans).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/reduce/oracle.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kdet::reduce {

enum class Rejection; // oracle.hpp

struct CviseOptions {
  // cvise (C, C++, CUDA C++), or llvm-reduce (NVVM IR, --llvm-reduce): both take a script
  // and call it on each candidate; cvise in a folder holding it, llvm-reduce with its path.
  enum class Tool { cvise, llvm_reduce };
  Tool tool = Tool::cvise;
  std::string program;                  // cvise's path; empty: no cvise (the line pass reduces)
  std::string kdet;                     // kdet's own path, for the script
  std::vector<std::string> reduce_args; // the reduce command's arguments after `reduce`
  std::string cwd;                      // where the oracle runs (kdet's working folder)
  std::optional<std::string> tmpdir;    // $TMPDIR the oracle gets back (nullopt: unset)
  std::string best_path;                // SMALL
};

// cvise's path: `given` when it names a program, else `cvise` in PATH; empty
// when there is none or `given` is "none".
std::string find_cvise(const std::string& given);

// --- the state the oracle processes share (a folder) ---
struct OracleState {
  std::string kind;
  double rate = 0.5;
};
void write_oracle_state(const std::string& dir, const OracleState& state);
// Throws Error when the folder holds no state.
OracleState read_oracle_state(const std::string& dir);
// Counts one test that took `compiles` compiles and ended in `why` (Rejection::none: the
// candidate was accepted); an O_APPEND line, safe across processes.
void note_oracle_test(const std::string& dir, uint64_t compiles, Rejection why);
// The texts an oracle accepted (and the original), by hash. llvm-reduce tests the current
// program again before each of its passes and stops at the first "no": a text once found
// varying must get the same answer again, not a second draw of a random test.
void remember_accepted(const std::string& dir, const std::string& text);
bool was_accepted(const std::string& dir, const std::string& text);
// Whether any oracle test was recorded yet. llvm-reduce's first test is its own printing of
// the original: the oracle gives it k_confirm_runs runs at least, not a test sized for a
// candidate's 95 %, since a "no" there ends the reduction.
bool any_test_recorded(const std::string& dir);
// Under the folder's lock: when `text` is smaller than the best so far, it becomes the best
// and is written to `best_path` (atomically). True when it did.
bool offer_best(const std::string& dir, const std::string& best_path, const std::string& text);

struct CviseOutcome {
  std::string best;           // the smallest accepted text; empty when none was
  uint64_t tests = 0;         // oracle calls
  uint64_t compiles = 0;      // their compiles
  uint64_t accepted = 0;      // tests that found the candidate interesting
  RejectionCounts rejected{}; // tests that did not, by Rejection (as PassStats::rejected)
  double rate = 0;            // the reference rate last measured
  bool stopped = false;       // ended by an interrupt or the deadline
  std::string failure;        // cvise's own failure (the tail of its output); empty when none
};

// Runs cvise on `input` (named `name`) in `work_dir` with `jobs` tests at once until it ends,
// kdet is interrupted or `timeout_s` (0: none) passes; the state folder must hold the
// reference. `progress(best_bytes, tests, rate)` is called now and then from another thread.
CviseOutcome run_cvise(const CviseOptions& options, const std::string& input,
                       const std::string& name, const std::string& work_dir, int jobs,
                       double timeout_s,
                       const std::function<void(size_t, uint64_t, double)>& progress);

} // namespace kdet::reduce
