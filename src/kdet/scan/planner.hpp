//===- scan/planner.hpp - from a manifest to a stable list of jobs --------------===//
//
// A job is (input, compiler, target, option set), or a bundle folder of kdet
// capture with its own compiler and options. Its id hashes every field
// that defines it, including the input's and the compiler's content hashes
// and the perturbation setting, so a shard, a resumed scan and a merge all
// agree on it: same id = same work, a changed compiler = a new job.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"
#include "kdet/scan/manifest.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kdet::scan {

// A compiler of the manifest with its identity resolved (no worker started).
struct ResolvedCompiler {
  std::string name;
  backend::BackendConfig config;
  std::string path;         // the library or program file
  std::string content_hash; // of that file
  // Its stamp, taken just before the hash: every round of its jobs is checked against the file
  // the jobs' ids were made from (engine::RunPlan::known.file).
  std::optional<FileStamp> stamp;
};

struct Job {
  std::string id; // 32 hex digits
  const Input* input = nullptr;
  std::string input_hash;
  size_t compiler = 0;                 // index into Manifest::compilers
  std::string target;                  // "" when the manifest has no targets
  size_t option_set = 0;               // index into Manifest::option_sets
  backend::BackendConfig backend;      // command with {target} substituted
  std::vector<std::string> options;    // compiler options + target option + option set
  uint64_t seed = 0;                   // master seed of this job's runs
  const Expectation* expect = nullptr; // non-null: known to vary
  const BundleJob* bundle = nullptr;   // non-null: a bundle's job (input is its input)
  std::optional<engine::CompilerFile> compiler_file; // its compiler's stamp and hash, planned
};

// The option set name a job shows: its set's, or k_captured_option_set for a bundle.
const std::string& option_set_name(const Manifest& m, const Job& j);

// A slice of the jobs: index in 1..count.
struct Shard {
  uint64_t index = 1;
  uint64_t count = 1;
};

// Parses "I/N" (1 <= I <= N); throws Error naming --shard.
Shard parse_shard(const std::string& text);

// Finds each compiler's file and hashes it; throws Error naming the manifest line.
std::vector<ResolvedCompiler> resolve_compilers(const Manifest& m);

// Every job, ordered by (input, compiler, target, option set), then the bundles' jobs by name.
std::vector<Job> plan_jobs(const Manifest& m, const std::vector<ResolvedCompiler>& compilers);

// True when the job belongs to the shard (stable: from the id alone).
bool in_shard(const std::string& job_id, const Shard& shard);

// The plan of `runs` runs of a job under `setting`, numbered from the job's run `first`: their
// seed is mix_seed(job.seed, first), one slot, the manifest's timeout, stopping at
// `stop_at_outcomes` distinct outcomes (0: never). Scan rounds and compare's re-runs use it.
engine::RunPlan job_run_plan(const Manifest& m, const Job& job, const perturb::Setting& setting,
                             uint64_t first, uint64_t runs, size_t stop_at_outcomes);

} // namespace kdet::scan
