//===- scan/labels.hpp - compare two compilers job by job ----------------------===//
//
// The same (input, target, option set) under compiler A and compiler B gets
// one label: identical (deterministic in both, same output), changed
// (deterministic in both, other output), fixed (varied in A; B gave one output
// in enough runs that its 95% upper bound lies `margin` times below A's
// observed rate), not-seen (varied in A; B gave one output, but too few runs to
// call it fixed: a compiler that still has the bug but no longer triggers here
// looks the same), regressed (not in A, varies in B), nondeterministic-both, failed (a
// side failed on every run) or missing (a side has no finished job for it).
// Where A varied, each pairing also says what B emits: one of A's variants
// (which) or code A never gave.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/store/scan_result.hpp"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace kdet::scan {

enum class Label {
  identical,
  changed,
  fixed,
  not_seen,
  regressed,
  nondeterministic_both,
  failed,
  missing
};
inline constexpr std::array<Label, 8> k_all_labels = {
    Label::identical, Label::changed,   Label::fixed,
    Label::not_seen,  Label::regressed, Label::nondeterministic_both,
    Label::failed,    Label::missing};

// How far below A's observed rate B's bound must lie for "fixed", by default.
inline constexpr double k_default_fix_margin = 10;

// "identical", "changed", "fixed", "not-seen", "regressed", "nondeterministic-both", "failed",
// "missing" (kdet.compare/1 said "varies-both").
const char* to_string(Label label);

// The label of one pair (either may be null: missing); see the top of this file. With
// `may_fix` false (Pairing::unfixable) what would be fixed is not-seen.
Label label_pair(const store::JobRow* a, const store::JobRow* b,
                 double margin = k_default_fix_margin, bool may_fix = true);

// A's observed variance rate on a job: the runs that differ from its most common
// output, over all its runs (0 when it has none).
double observed_rate(const store::JobRow& j);

struct Pairing {
  std::string key; // "input target option_set" (what pairs A's and B's jobs)
  // The key for people: a bundle job's kernels by name first (store::JobRow::input_label), then
  // the key; `name_width` 0: names in full.
  std::string name(size_t name_width = k_name_width) const;
  const store::JobRow* a = nullptr;
  const store::JobRow* b = nullptr;
  Label label = Label::missing;
  // Why B's one output here is no fix whatever its bound: "input" (A's and B's jobs compiled
  // different bytes: it was edited between the scans) or "setting" (the two scans ran under
  // different settings, so B's may be one that does not bring the variance out); "" otherwise.
  std::string unfixable;
  // Where B gave one output: 1 + the rank of that output among A's variants (most
  // common first), or 0 when A never gave it (new code); -1 when B gave no single output.
  int b_is_a_variant = -1;
  // --settle: runs added to B's stored ones (0: none); the label is then B's extended evidence.
  uint64_t settle_runs = 0;
  // --stress: what re-running B under every factor that moves addresses showed (scan/stress).
  enum class Stress { not_run, fixed, hidden, inconclusive } stress = Stress::not_run;
  bool stress_sampled = false;     // a job A never varied on, in the --stress-sample
  std::string stress_regime;       // hidden: the regime that brought it out; inconclusive: why
  uint64_t stress_runs = 0;        // runs under stress, every regime together
  uint64_t stress_differing = 0;   // hidden: runs differing in that regime
  uint64_t stress_regime_runs = 0; // hidden: runs of that regime
  double stress_bound = 0;         // fixed: 95% upper bound from the stress runs
  // Regimes left out for this job, each "NAME: why" (the chaos allocator in a sanitized kdet's
  // library workers: perturb::chaos_unusable); the outcome stands on the others.
  std::vector<std::string> stress_skipped;
};

// "fixed under stress", "hidden", "inconclusive", or "" when not run.
const char* to_string(Pairing::Stress s);

// Pairs A's jobs of compiler `ca` with B's jobs of compiler `cb` on (input,
// target, option set). `a_jobs` and `b_jobs` may be the same list. `same_setting` false: the
// two scans ran under different settings, so no pair is fixed (Pairing::unfixable).
std::vector<Pairing> pair_jobs(const std::vector<store::JobRow>& a_jobs, const std::string& ca,
                               const std::vector<store::JobRow>& b_jobs, const std::string& cb,
                               double margin = k_default_fix_margin, bool same_setting = true);

// Counts per label, in k_all_labels order.
std::array<size_t, k_all_labels.size()> count_labels(const std::vector<Pairing>& pairs);

// The two questions a comparison answers: does B vary anywhere, and where A
// varied, what does B emit?
struct CompareAnswers {
  size_t b_jobs = 0;          // pairs where both sides ran
  size_t b_varies = 0;        // of those, B varied (regressed or nondeterministic-both)
  size_t b_one_output = 0;    // of those, B gave one output on every run
  double b_weakest_bound = 0; // the largest 95% upper bound among those one-output jobs
  size_t a_varied = 0;        // pairs where A varied and B ran
  size_t b_emits_a_variant = 0, b_emits_new = 0, b_no_single_output = 0;
  std::map<int, size_t> by_a_variant; // A's variant rank (1 = most common) -> jobs
  size_t stressed = 0, stress_fixed = 0, stress_hidden = 0, stress_inconclusive = 0;
  std::map<std::string, size_t> hidden_by_regime; // regime -> jobs it brought out
};
CompareAnswers answer(const std::vector<Pairing>& pairs);

// A job that only B ran (A lacks it or never ran it) on which B varies.
bool b_varies_alone(const Pairing& p);

// A job A ran that B's database holds but never ran (B's scan stopped before it).
bool b_never_ran(const Pairing& p);

// How the gate of `kdet compare` judges one pair: the exit status it asks for (1: B varies,
// hidden under --stress or alone; 3: B failed on every run or never ran it; 0: passes) and
// why, in the words of the annotations and the JUnit cases.
struct PairGate {
  int exit = 0;
  std::string why;
};
PairGate judge_pair(const Pairing& p);

// Exit code of `kdet compare`, a gate on B: 1 when B varies anywhere (regressed,
// nondeterministic-both, a job only B ran, or hidden under --stress, which makes a pair
// nondeterministic-both or regressed); else 3 when B failed on every run of some job (a compiler
// that now fails is not fixed), never ran a job A ran, or no job ran on both sides (nothing
// compared); else 0. not-seen is 0: B gave one output everywhere, only too few runs to call it
// fixed (--settle decides it).
int compare_exit_code(const std::vector<Pairing>& pairs);

// True when a pair regressed (varies in B, not in A): `kdet scan`'s comparisons, whose
// nondeterministic-both jobs the scan's own statuses (and [[expect]]) already judge.
bool any_regressed(const std::vector<Pairing>& pairs);

} // namespace kdet::scan
