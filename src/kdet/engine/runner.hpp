//===- engine/runner.hpp - plan runs, drive workers, collect outcomes -------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/engine/run_queue.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/setting.hpp"
#include "kdet/util/fs.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdet {
class FolderStock;
} // namespace kdet

namespace kdet::engine {

// Default --max-output: 1 GiB.
constexpr uint64_t k_default_max_output = 1ULL << 30;

struct RunRecord;
class WorkerPool;
class Executor;

// The compiler file as first seen: its stamp, and its content hash then ("" when unknown).
struct CompilerFile {
  FileStamp stamp;
  std::string hash;
  bool operator==(const CompilerFile&) const = default;
};

// What to run: one input, one compiler, one setting, N times.
struct RunPlan {
  backend::BackendConfig backend;
  perturb::Setting setting;
  std::string input_path;           // absolute
  std::vector<std::string> options; // passed to the compiler
  // Further inputs after the one at input_path (a replayed bundle's modules,
  // headers, name expressions, link inputs), in order; empty for one input.
  std::vector<backend::InputPart> parts;
  uint64_t runs = 32;
  // Runs below this index are not run (done before an interruption): a resumed
  // scan round gives its remaining runs the indices, and so the seeds, they had.
  uint64_t first_index = 0;
  int jobs = 1;
  std::chrono::milliseconds timeout{0};
  // An artifact larger than this makes the run's outcome output_too_large (--max-output).
  uint64_t max_output = k_default_max_output;
  // When to stop before the last run.
  struct Stops {
    // Once this many distinct outcomes were seen (0 = run them all; 2 = stop at the first sign
    // of nondeterminism, as scan's adaptive budget does). kdet's own errors are none.
    size_t outcomes = 0;
    // Non-empty: also at the first successful run whose outcome is not this one (kdet compare
    // --stress: any output but B's one is the answer; failures do not count).
    std::string other_than;
    // Once this many runs failed while none succeeded (0 = never): a compiler that hangs under
    // a factor should cost two timeouts, not N.
    uint64_t after_failures = 0;
    // With `seconds` > 0: no run is handed out once that many seconds have passed since the
    // session began and at least `min_runs` runs are done (kdet run without -n: up to
    // stats::runs_to_catch() runs, fewer when they are slow; engine::size_default_runs).
    double seconds = 0;
    uint64_t min_runs = 0;
  } stop;
  // How the workers start.
  struct Workers {
    // Start each fresh-process worker while the slot's previous compile runs, with no more
    // slots than cores (engine/run_slots.cpp, prestarts()); false starts each at its run's turn.
    bool prestart = true;
    // The kdet binary the workers run (`kdet __worker`); empty: this process's own. Unit tests,
    // which are not kdet, name it.
    std::string exe;
    // Workers started ahead across calls (a scan's rounds): the first worker a run needs comes
    // from here when one was started exactly so, and while its last compile runs a slot asks
    // for one for the next call (engine/worker_pool.hpp). Null: every call starts its own.
    std::shared_ptr<WorkerPool> pool;
  } workers;
  // What a caller knows of the compiler from before this call.
  struct Known {
    // Its identity, when a previous execute() already loaded it: the probe worker is skipped
    // (scan's later rounds of a job save a compiler load).
    std::optional<backend::Identity> identity;
    // Its file when the caller first saw it (a previous execute(), scan's planning), so that a
    // change between then and these runs is seen too (RunOutput::compiler_changed).
    std::optional<CompilerFile> file;
  } known;
  // What this call shares with other calls.
  struct Shared {
    // When set, the runs come from this queue instead ([first_index, runs) in order): the
    // pieces of a split scan round share one (scan/scheduler).
    std::shared_ptr<RunQueue> queue;
    // The folders each run gets of its own (cwd, TMPDIR, its input's folder) are taken from and
    // given back to this stock, shared by a scan's rounds. Null: the call keeps its own.
    std::shared_ptr<FolderStock> folders;
  } shared;
  // Called with each finished run's record as it arrives (one call at a time,
  // in completion order), so a caller can make it durable before the end.
  std::function<void(const RunRecord&)> on_record;
};

struct ArtifactInfo {
  std::string name;
  std::string hash;
  uint64_t size = 0;
};

// One compile, as recorded.
struct RunRecord {
  uint64_t index = 0; // 0-based run number
  uint64_t seed = 0;  // this run's seed
  int slot = 0;       // which parallel slot ran it
  int worker = 0;     // serial number of the worker process (same-process runs share it)
  int worker_pid = 0;
  int nth_in_worker = 0; // 1 = first compile in that worker (exec: always 1, see compile_one)
  bool fresh_process =
      false; // ran in a worker started for this run alone (the across-processes regime)
  backend::Status status = backend::Status::infra_error;
  int code = 0;
  int signal = 0;
  std::string detail;
  std::string log; // compiler log / stderr, capped
  std::string log_hash;
  std::vector<ArtifactInfo> artifacts;
  std::string variant;        // outcome id (hash)
  double seconds = 0;         // wall time as the driver saw it
  double compile_seconds = 0; // inside the backend call
  double churn_seconds = 0;
  double compile_cpu_seconds = 0; // CPU time of the compile (engine/protocol.hpp)
  double own_cpu_seconds = 0;     // the worker's CPU for this run outside the compile
  // When the driver began the run (steady clock, seconds since its epoch) and how long it took
  // to send the compile (worker start or prestarted worker's hello, files): for `scan --trace`.
  double started = 0;
  double setup_seconds = 0;
  int thread = 0;    // the driver thread that ran it (its Linux thread id)
  bool done = false; // false for runs not reached (interrupted)
};

// A distinct outcome.
struct Variant {
  std::string id;
  uint64_t count = 0;
  uint64_t first_run = 0;
  backend::Status status = backend::Status::ok;
  std::string detail;                       // for failures: how it failed
  std::vector<backend::Artifact> artifacts; // content of the first occurrence (large ones in files)
  std::string difference;                   // against the most common variant (kdet diff's summary)
};

struct RunOutput {
  RunPlan plan;
  backend::Identity identity;     // with content_hash filled in
  std::vector<RunRecord> records; // indexed by run number; `done` says which ran
  std::vector<Variant> variants;  // most common first
  uint64_t completed = 0;
  int workers_started = 0;
  int workers_prestarted = 0; // of those, workers launched while the previous compile ran
  bool interrupted = false;
  bool stopped_early = false; // stop.outcomes reached before all runs
  bool out_of_time = false;   // stopped early by stop.seconds: the runs took longer than planned
  double wall_seconds = 0;
  double worker_start_seconds = 0; // one worker's start + compiler load (the probe)
  // Each probe worker's start (steady clock seconds), length and driver thread: one, or none
  // with RunPlan::known.identity; a split round's pieces each have their own (`scan --trace`).
  struct Probe {
    double started = 0, seconds = 0;
    int thread = 0;
  };
  std::vector<Probe> probes;
  // kdet run: CPU time (user + system) of the whole command, workers and compilers
  // included, and of the compiles in it (probes too); the rest is kdet's own cost.
  double cpu_total_seconds = 0;
  double cpu_compile_seconds = 0;
  std::string started_at; // ISO 8601 UTC
  std::vector<std::string> warnings;
  // The compiler file as first seen (RunPlan::known.file, else at the load), and, when it
  // holds other bytes by the end, how it changed: the runs may then mix two compilers, or not be
  // the compiler the caller planned, and outcomes that differ prove nothing (callers give no
  // verdict).
  std::optional<CompilerFile> compiler_file;
  std::string compiler_changed;
  // kdet run: the factors set to their varied level because no option named
  // them ("time=vary"), and the compiles spent probing those levels.
  std::vector<std::string> default_varied;
  uint64_t probe_runs = 0;
  // exec only: the artifact is the "output-file" or "stdout" (no {output} in the
  // template); and why --jobs slots each see their own folder ("" when every
  // slot's compiler sees the same paths).
  std::string exec_artifact;
  std::string slot_paths_unshared;
};

// Called after each run with (runs done, runs planned, distinct outcomes so far).
using ProgressFn = std::function<void(uint64_t, uint64_t, size_t)>;

// Runs the plan. Throws Error (exit 2) when the compiler cannot be loaded at
// all (bad --lib, bad --cmd); anything that goes wrong in a run is recorded.
RunOutput execute(const RunPlan& plan, const ProgressFn& progress = {});

// What this machine allows the factors (namespaces a worker may take), for perturb::Context.
perturb::Context::Probes host_probes();
// The same plan, its processes run by `executor` (engine/executor.hpp; tests give a scripted one).
RunOutput execute(const RunPlan& plan, Executor& executor, const ProgressFn& progress = {});
// The plans at once, each its own call with its own slots (RunPlan::jobs), all on `executor` in
// one loop: their outputs, in the plans' order. Throws as execute() does, for the first plan
// whose compiler cannot load.
std::vector<RunOutput> execute_all(const std::vector<RunPlan>& plans, Executor& executor);

// Fills each non-modal variant's `difference` with kdet diff's one-line
// classification against the most common variant (per artifact).
void annotate_differences(RunOutput& out);

// The outcome id of a compile result: status plus, for successes, every artifact.
std::string outcome_id(const backend::CompileResult& r);

// Fills a run's record from its compile result: status, log (the first 16 KiB, and the whole
// log's hash), artifacts, outcome id; `done`. An outcome that cannot be hashed (an artifact file
// gone) becomes an infra_error, in `result` too.
void record_outcome(RunRecord& rec, backend::CompileResult& result);

} // namespace kdet::engine
