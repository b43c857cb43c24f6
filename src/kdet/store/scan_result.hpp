//===- store/scan_result.hpp - a scan's results as stored and as the reports read them -===//
//
// store/scan_db writes and loads these; scan/ fills them from its rounds and
// decides their status; the reports, the compare labels and `kdet merge` work
// on them. They live with the store, below scan/, so the store needs nothing
// of scan/. Nothing here runs a compiler.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/util/names.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kdet::store {

struct CompilerRow {
  std::string name;
  std::string backend;
  std::string path;
  std::string content_hash;
  std::string version; // filled once a job has run (the worker reports it)
};

struct ArtifactRow {
  std::string name;
  std::string hash; // key of the blob table
  uint64_t size = 0;
};

struct VariantRow {
  std::string id;
  uint64_t count = 0;
  uint64_t first_run = 0;
  std::string status; // backend::Status spelling
  std::string detail;
  std::vector<ArtifactRow> artifacts;
  // A failing variant's compiler log at its first run (engine::k_max_failure_log bytes at most);
  // "" for successes and in databases made before it was kept.
  std::string log;
};

// One job's cumulative state.
struct JobRow {
  std::string id;
  std::string input; // name relative to the manifest
  std::string input_hash;
  std::string compiler;
  std::string target;
  std::string option_set;
  std::vector<std::string> options;
  uint64_t seed = 0;
  uint64_t budget = 0; // planned runs at most
  uint64_t runs = 0;   // completed runs
  uint64_t ok_runs = 0;
  uint64_t rounds = 0;
  bool done = false; // finished: a second outcome (no error of kdet's own), or the budget spent
  bool expected_vary = false;
  std::string expect_reason;
  double seconds = 0;               // wall time spent on it
  std::vector<VariantRow> variants; // most common first
  // A bundle job's kernels by entry name, in full (kdet capture's bundle.json); empty for
  // other jobs and in databases made before kdet kept them.
  std::vector<std::string> kernels;

  // The same verdict kdet run gives a set of runs (engine::Verdict, engine::assess): runs that
  // ended in kdet's own error (engine::is_kdet_error) are kept with their variant and counted
  // by no verdict.
  engine::Verdict verdict() const;
  bool varies() const { return verdict() == engine::Verdict::nondeterministic; }
  // Distinct outcomes of the compiler (variants that are no error of kdet's own).
  uint64_t outcomes() const;
  // The most common of them; null when there is none.
  const VariantRow* modal_outcome() const;
  // Completed runs that ended in kdet's own error.
  uint64_t kdet_errors() const;
  // Counted runs not giving the most common outcome.
  uint64_t differing() const;
  // One-sided 95% upper bound on the per-run variance rate.
  double upper_bound() const;
  // The most common variant's id ("" when none).
  std::string modal() const { return variants.empty() ? "" : variants.front().id; }
  // "input compiler target option_set" for people; a bundle job's input as its kernels' names
  // (display_names cut at `name_width`, 0: in full) and its folder: "saxpy (bundles/ID)".
  std::string label(size_t name_width = k_name_width) const;
  // The input as label() shows it.
  std::string input_label(size_t name_width = k_name_width) const;
};

struct ScanResult {
  std::map<std::string, std::string> meta; // manifest_hash, name, created_at, shard, ...
  std::vector<CompilerRow> compilers;
  std::vector<JobRow> jobs; // ordered by (input, compiler, target, option_set)
};

// Folds one engine::execute output into a job's cumulative row (engine::VariantFold), its run
// numbers counted from `offset` (the row's run number of the output's run 0): a known outcome
// id's count grows, a new one is added (first_run offset, with its artifacts' names, hashes and
// sizes when `artifacts`; a failing one with its compiler log); ok_runs, runs and seconds grow;
// the variants end in engine::order (most common first; ties: the earliest first run first).
// Returns the output's variants that were new to the row.
std::vector<const engine::Variant*> merge_variants(JobRow& row, const engine::RunOutput& out,
                                                   uint64_t offset, bool artifacts);

} // namespace kdet::store
