//===- perturb/setting.hpp - the perturbation factors of a run ---------------===//
//
// A Setting gives each factor a value. perturb/factors.hpp turns it into how
// workers are launched (environment, preloads, personality, PID namespace)
// and into each run's own perturbation (environment changes, working folder,
// umask, input path, allocator seed), which the worker applies just before
// the compile call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace kdet::perturb {

// same: every run in one worker; fresh: a new worker per run; both: alternate
// (odd runs fresh, even runs in one shared worker per slot), so variation across
// processes and inside one process both show.
enum class ProcessMode { same, fresh, both };
enum class HeapMode { none, churn, chaos };
// For the environment-like factors: leave as inherited, hold at one value, or
// change every run (seeded).
enum class Level { inherit, fixed, vary };

struct Setting {
  ProcessMode process = ProcessMode::same;
  HeapMode heap = HeapMode::churn;
  bool aslr = true; // false: workers run with ADDR_NO_RANDOMIZE
  int threads = 0;  // extra allocating threads in each worker
  // The most compiles one same-process worker makes in a row (0: no limit, so a scan round's
  // same-process runs share one worker). Runs are grouped into these chains by index, so a
  // chain's history does not depend on which slot runs it (engine::same_chain).
  uint64_t history = 0;
  std::vector<std::string> env; // K=V set for the worker (and so the compiler)
  uint64_t seed = 0;            // master seed; run i uses mix_seed(seed, i)

  // The level of each environment-like factor (path, cwd, tmpdir, time, locale, umask, pid,
  // threadvars, mtime, tz, home, cpus, hostname, hashseed, ...: perturb/factors/factors.def), by
  // name; one not here is at its row's starting level (FactorInfo::start). Read and set them
  // through level_of.
  std::map<std::string, Level> levels;
  // User-declared variables to vary: each run takes one of the values.
  std::vector<std::pair<std::string, std::vector<std::string>>> env_vary;
};

const char* to_string(ProcessMode m);
const char* to_string(HeapMode m);
// Factor-specific spelling of a level (time: real|fixed|vary, pid: vary|fixed, ...).
std::string level_name(const std::string& factor, Level level);

// Parse a factor value; throws Error naming `option` and the valid values.
ProcessMode parse_process(const std::string& value, const std::string& option);
HeapMode parse_heap(const std::string& value, const std::string& option);
bool parse_aslr(const std::string& value, const std::string& option);
Level parse_level(const std::string& factor, const std::string& value, const std::string& option);
// "NAME=V1,V2,..." for --env-vary.
std::pair<std::string, std::vector<std::string>> parse_env_vary(const std::string& value);

// "process=same heap=churn aslr=on threads=0 ... seed=0x..."; only non-default extras are listed.
std::string describe(const Setting& s);
nlohmann::json to_json(const Setting& s);

// True when no factor kdet controls changes between runs (fresh process, no
// churn or chaos, ASLR off, no threads, nothing set to vary); pids still
// differ unless pid=fixed. Under it kdet itself adds no variation.
bool all_fixed(const Setting& s);

// The names of the environment-like factors (rows with levels), in the order they are reported.
const std::vector<std::string>& level_factor_names();
// Access a level factor by name (path, cwd, tmpdir, time, locale, umask, pid, threadvars,
// mtime, tz, home, cpus, hostname, hashseed, ...); throws Error for a name that is not one.
Level& level_of(Setting& s, const std::string& factor);
Level level_of(const Setting& s, const std::string& factor);

} // namespace kdet::perturb
