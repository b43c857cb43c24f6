//===- scan/manifest.hpp - the TOML manifest of a scan -------------------------===//
//
// A manifest names the inputs (files and globs), the compilers (each a named
// backend, so two versions can stand side by side), the targets, the option
// sets, the perturbation setting, the run budget and the expectations (jobs
// known to vary); and bundle folders of kdet capture, each a job of its own. docs/SCAN.md is the
// reference; every error names the manifest file, the line and what would be valid.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/perturb/setting.hpp"

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kdet::scan {

// One named compiler: a backend and how a target becomes its options.
struct CompilerSpec {
  std::string name;
  backend::BackendConfig config; // lib is absolute (or empty: default search)
  std::string
      target_option; // "-arch=compute_{target}"; empty: none (exec uses {target} in command)
  std::vector<std::string> options; // added to every job of this compiler
  std::vector<std::string> targets; // overrides the manifest's targets when not empty
  int line = 0;
  bool captured = false; // a captured library, made for bundles: compiles bundles only
  // What its jobs run under: the manifest's setting, with every factor [setting] does not name
  // varied where it acts on this compiler, as `kdet run` does (scan::vary_unnamed, through
  // engine::vary_unset_factors). The manifest's own setting until the session sets it, and for
  // good when `unnamed = "natural"`.
  perturb::Setting setting;
  std::vector<std::string> default_varied; // "time=vary": the levels vary_unnamed set
  std::vector<std::string> findings;       // levels left natural, and why
  double probe_run_seconds = 0; // one run's slot time, timed by vary_unnamed's probes; 0: not timed
  // Nonzero when levels [setting] names break this compiler (engine::DefaultLevels::run_limit):
  // each run's time limit, the runs ending after two failures with no success.
  std::chrono::milliseconds run_limit{0};
};

struct OptionSet {
  std::string name;
  std::vector<std::string> options;
};

// "Jobs matching this are known to vary": fields empty or "*" match anything;
// `input` is an fnmatch(3) pattern on the input's name relative to the manifest.
struct Expectation {
  std::string input = "*";
  std::string compiler = "*";
  std::string target = "*";
  std::string option_set = "*";
  std::string reason;
  int line = 0;
};

struct Input {
  std::string path; // absolute
  std::string name; // relative to the manifest's folder when below it, else absolute
};

// A captured compile (a bundle folder of kdet capture) as one job. It brings its
// own compiler (the captured library, checked by content hash) and options, so it
// is crossed with neither inputs, targets nor option sets.
struct BundleJob {
  std::string id;      // the bundle's id
  Input input;         // path: its captured input; name: the bundle folder, as inputs are named
  size_t compiler = 0; // index into Manifest::compilers (a captured one)
  std::vector<std::string> options;
  std::vector<std::string> kernels; // entry names, in full (capture::ReplayPlan::kernels)
  // Its inputs after the first (modules, lazy modules, headers, name expressions, link
  // inputs), with their bytes: every run of the job gets them (RunPlan::parts).
  std::vector<backend::InputPart> parts;
  int line = 0;
};

// The option set name bundle jobs show (their options are the captured ones).
inline constexpr const char* k_captured_option_set = "captured";

struct Manifest {
  std::string path;      // as given
  std::string dir;       // absolute folder of the manifest
  std::string text_hash; // hash of the manifest text
  std::string name = "scan";
  std::vector<Input> inputs;      // sorted by name, no duplicates
  std::vector<BundleJob> bundles; // sorted by name, no duplicates
  std::vector<CompilerSpec> compilers;
  std::vector<std::string> targets;   // empty: one job per compiler with no target
  std::vector<OptionSet> option_sets; // never empty ("default" = no options)
  perturb::Setting setting;           // setting.seed is the master seed (default 0: reproducible)
  // [setting] unnamed: "vary" (the default, as `kdet run --unnamed vary`) varies every factor the
  // manifest does not name; "natural" leaves them as a plain compile sees them.
  bool unnamed_vary = true;
  std::set<std::string> named_factors; // registry names of the factors [setting] names
  double target_rate = 0.05;           // runs continue until no variance bounds the rate below this
  uint64_t max_runs = 0;               // 0: stats::runs_to_bound(target_rate)
  uint64_t first_round = 8;            // runs in a job's first round (later rounds double)
  uint64_t max_round = 64; // cap on a round: the most runs a SIGKILL can lose per job in flight
  double timeout_seconds = 300;
  std::vector<Expectation> expectations;
};

// Reads and validates a manifest; throws Error "FILE:LINE: what is wrong; what is valid".
Manifest load_manifest(const std::string& path);

// Same, from text; `path` names the file in errors and anchors relative paths.
Manifest parse_manifest(const std::string& text, const std::string& path);

// The expectation matching a job, or nullptr.
const Expectation* find_expectation(const Manifest& m, const std::string& input_name,
                                    const std::string& compiler, const std::string& target,
                                    const std::string& option_set);

// The runs a job may spend at most.
uint64_t job_budget(const Manifest& m);

} // namespace kdet::scan
