//===- scan/stress.hpp - settle and stress a comparison's B side ---------------===//
//
// A job that varied under A and gave one output under B is only "not seen"
// until B got enough runs, and only "fixed" if B stays at one output under
// every factor that moves memory addresses. Both steps re-run B's jobs from
// its database: the manifest text it stores is parsed again and its jobs
// planned again; a job whose input changed since (another hash) is not run.
// The new runs extend B's evidence in memory; the database is not written.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/labels.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kdet::scan {

// The manifest path a scan database stored, made absolute: the one stored when it is absolute;
// a relative one (databases made before paths were stored absolute) is looked for beside the
// database first, then taken from the current folder.
std::string stored_manifest_path(const std::string& stored, const std::string& db_path);

// A scan database's jobs, made runnable again from the manifest text it stores.
class Rerunner {
public:
  // `meta` is the database's meta table; throws Error naming `db_path` when it holds no
  // manifest or the manifest no longer parses.
  Rerunner(const std::map<std::string, std::string>& meta, const std::string& db_path);
  // Runs `runs` runs of the stored job `row` under `setting`, run numbers from `first`
  // (seeds as the scan derives them), stopping at `stop.outcomes` (0: never) and, when
  // `stop_at_other_than` is set, at the first successful run with another outcome. Throws
  // Error when the job cannot be run (not in the manifest, input changed, compiler absent).
  engine::RunOutput run(const store::JobRow& row, const perturb::Setting& setting, uint64_t first,
                        uint64_t runs, size_t stop_at_outcomes,
                        const std::string& stop_at_other_than = "") const;
  const Manifest& manifest() const { return *m_manifest; }
  // Why `setting` cannot act on the stored job `row` in this build (the chaos allocator in a
  // sanitized kdet's library worker: perturb::chaos_unusable), or "" when it can.
  std::string unusable(const store::JobRow& row, const perturb::Setting& setting) const;
  // The setting the scan ran `row` under: its compiler's, with the factors [setting] does not
  // name varied as the scan varied them (scan::vary_unnamed, probed once per compiler, when
  // first asked); the manifest's when the job is not planned any more.
  const perturb::Setting& setting_of(const store::JobRow& row);

private:
  std::string m_db;
  std::unique_ptr<Manifest> m_manifest; // held still: jobs point into it
  std::vector<ResolvedCompiler> m_compilers;
  std::vector<Job> m_jobs;
  bool m_defaults_known = false;
};

// Runs one plan (engine::RunPlan's stop.outcomes and stop_at_other_than: `stop`, `other_than`);
// tests script it. Empty: Rerunner::run.
using RerunFn =
    std::function<engine::RunOutput(const store::JobRow&, const perturb::Setting&, uint64_t first,
                                    uint64_t runs, size_t stop, const std::string& other_than)>;

// The runs B needs on a job with A's observed rate `a_rate` for its 95% bound to lie
// `margin` times below it with no differing run: the least n with
// stats::upper_bound(0, n) * margin <= a_rate (about 3 * margin / a_rate), at most 1,000,000.
uint64_t settle_runs_needed(double a_rate, double margin);

struct SettleOptions {
  double margin = k_default_fix_margin;
  uint64_t budget = 0; // B's total runs per job at most; 0: settle_runs_needed
};
// --settle: for each not-seen pair, runs B more under its scan's setting until its bound meets
// the margin, it varies, or the budget is spent; extended rows go to `storage` and the pair is
// re-labelled. Returns the runs spent.
uint64_t settle(std::vector<Pairing>& pairs, std::deque<store::JobRow>& storage, const RerunFn& run,
                const SettleOptions& options);

// One stronger setting of --stress.
struct StressRegime {
  std::string name; // "fresh+aslr", "same+churn", "chaos", "threads"
  perturb::Setting setting;
};
// Every factor that moves addresses, in both regimes: fresh processes with ASLR on (and heap
// churn); one process with churn; the chaos allocator (random placement); extra allocating
// threads. `base` gives the rest (environment, seed).
std::vector<StressRegime> stress_regimes(const perturb::Setting& base);

// Runs per regime on a job with A's observed rate `a_rate`: enough that a rate of a_rate
// shows a differing run with 95% probability, ceil(ln 0.05 / ln(1 - a_rate)) + 1 (the first
// run sets the reference), at least 8, at most `cap`; `cap` when A never varied.
uint64_t stress_runs_per_regime(double a_rate, uint64_t cap);

struct StressOptions {
  uint64_t cap = 200;       // runs per regime at most
  size_t sample = 10;       // jobs A never varied on, also stressed
  uint64_t sample_seed = 0; // which ones
};
// Why a regime cannot act on a job here ("" or null: it can): such a regime is left out for
// that job, named in Pairing::stress_skipped, and the outcome stands on the others.
using UnusableFn = std::function<std::string(const store::JobRow&, const perturb::Setting&)>;
// --stress: re-runs on B every pair where A varied and B did not, and a seeded sample of those
// where neither varied, under each regime until one shows variance (hidden) or all ran their
// budget with B's one output (fixed under stress); errors or a cut budget: inconclusive. A
// regime `unusable` names is left out for the job, and said so.
// Returns the runs spent.
uint64_t stress(std::vector<Pairing>& pairs, const std::vector<StressRegime>& regimes,
                const RerunFn& run, const StressOptions& options, const UnusableFn& unusable = {});

// One comparison's pairs that --settle and --stress re-run B on, with its margin.
struct ProveTarget {
  std::vector<Pairing>* pairs = nullptr;
  double margin = k_default_fix_margin;
};
struct ProveOptions {
  bool settle = false, stress = false;
  uint64_t settle_budget = 0; // SettleOptions::budget
  StressOptions stress_options;
};
struct ProveStats {
  uint64_t settled = 0, stressed = 0; // runs spent by each
  double seconds = 0;
  bool interrupted = false;
};
// --settle and --stress of kdet scan and kdet compare: more runs on B's side of each target
// before a job is called fixed, re-running the jobs of the database `b_path` (meta `b_meta`)
// from its stored manifest (Rerunner); settling runs each job in the setting its scan ran it
// under, stressing under stress_regimes() of the manifest's setting. Extended rows go to
// `storage`. Stops at an interruption (ProveStats::interrupted).
ProveStats prove(const std::vector<ProveTarget>& targets, std::deque<store::JobRow>& storage,
                 const std::map<std::string, std::string>& b_meta, const std::string& b_path,
                 const ProveOptions& options);

} // namespace kdet::scan
