//===- report/scan_report.hpp - a scan's results for people, CI and programs ---===//
//
// Terminal summary (in the census's terms: "161 of 6491 jobs vary; by
// target: ..."), JSON (schema kdet.scan/2), JUnit XML (one test case per
// job) and a single self-contained HTML file with inline SVG charts and the
// classified diff of each varying job's variants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/failures.hpp"
#include "kdet/scan/labels.hpp"
#include "kdet/scan/reach.hpp"
#include "kdet/scan/status.hpp"
#include "kdet/store/scan_result.hpp"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kdet::report {

// Version 2 names "more than one outcome" by one word, nondeterministic, in every status, label
// and key (version 1 said varies, varies-expected, no-longer-varies, varies-both, varying,
// b_varies, a_varied); nothing kdet reads is written in either.
inline constexpr const char* k_scan_schema = "kdet.scan/2";
inline constexpr const char* k_compare_schema = "kdet.compare/2";

// Jobs and varying jobs per value of a field.
struct Tally {
  size_t jobs = 0;
  size_t varying = 0;
};
std::map<std::string, Tally> tally_by(const store::ScanResult& r,
                                      std::string store::JobRow::*field);

// A comparison between two compilers of one result (the first compiler
// against each other one), or between two databases (kdet compare).
struct CompilerComparison {
  std::string a; // "nvvm-13.3" or "old.db:nvvm"
  std::string b;
  std::vector<scan::Pairing> pairs;
  double margin = scan::k_default_fix_margin; // "fixed": B's bound this many times below A's rate
  // kdet compare: the two scans' settings (perturb::describe) when they differ; then no pair
  // is fixed (scan::Pairing::unfixable).
  std::string a_setting, b_setting;
};
std::vector<CompilerComparison> compare_compilers(const store::ScanResult& r);

// How the terminal summary is drawn.
struct TextOptions {
  bool color = false;
  size_t max_rest = 30;             // expected and not-seen jobs listed at most
  bool list_failures = false;       // --failures: every failed job under its group
  size_t name_width = k_name_width; // kernel names cut past it; 0 (--full-names): in full
};

// The terminal summary: counts, then every unexpected varying job, then
// every regression, then one line per group of failed jobs (scan::group_failures; with
// `list_failures` each group's jobs under it), then the rest (expected, no longer varying,
// not seen), cut after `max_rest` lines. Bundle jobs are named by their kernels.
// `comparisons`, when given, replaces compare_compilers(r) (a scan that settled or stressed them).
// `reaches`, when given, adds the census of the varying jobs' reach and each listed varying
// job's reach (scan/reach.hpp).
std::string scan_to_text(const store::ScanResult& r, const TextOptions& o,
                         const std::vector<CompilerComparison>* comparisons = nullptr,
                         const scan::ScanReaches* reaches = nullptr);

// The groups of failed jobs: one line each ("FAILED  2000 jobs on ptxas: compile-error: ...");
// a group of one names its job; with `o.list_failures` every job of a group is listed under it.
std::string failures_to_text(const std::vector<scan::FailureGroup>& groups, const TextOptions& o);
// The groups as an HTML table, each group's jobs (linked to their cards) behind a disclosure.
std::string failures_to_html(const std::vector<scan::FailureGroup>& groups);
// The groups for kdet.scan/2's summary.failure_groups.
nlohmann::json failures_to_json(const std::vector<scan::FailureGroup>& groups);
// A failing variant's first error line and (the start of) its log for a job's card; "" when
// the variant has no log.
std::string variant_log_html(const store::VariantRow& v);

// JSON, schema kdet.scan/2; with `reaches`, summary.reach (the census) and each compared
// variant's reach.
nlohmann::json scan_to_json(const store::ScanResult& r,
                            const std::vector<CompilerComparison>* comparisons = nullptr,
                            const scan::ScanReaches* reaches = nullptr);

// JUnit XML: a testsuite per compiler, a testcase per job; unexpected
// variance and no-longer-varies = failure, failed compiles = error,
// expected-to-vary, not-seen and unfinished jobs = skipped. A bundle job's testcase is named
// by its kernels (cut as on the terminal), their full names in its property "kernels".
std::string scan_to_junit(const store::ScanResult& r);

// Loads an artifact's bytes by hash ("" when absent).
using BlobLoader = std::function<std::string(const std::string& hash)>;

// One self-contained HTML page. Diffs are shown for at most `max_diffs` varying jobs.
// With `reaches`, the census in the summary and each varying job's reach beside its diff.
std::string scan_to_html(const store::ScanResult& r, const BlobLoader& blobs,
                         size_t max_diffs = 200,
                         const std::vector<CompilerComparison>* comparisons = nullptr,
                         const scan::ScanReaches* reaches = nullptr);

// The reach lines of job `j` (each variant compared: "reach: ..." or "reach of ID: ..."),
// each starting with `indent`; "" when `reaches` has none for it.
std::string job_reach_lines(const scan::ScanReaches* reaches, const store::JobRow& j,
                            const std::string& indent);

// "  one output:    N jobs; no variance seen in M runs: ..." (M: the fewest runs of a job with
// one output, so the weakest bound), or "" when no job gave one output.
std::string quiet_jobs_line(const store::ScanResult& r);

// The comparison of two databases' results as text and JSON.
// Both numbers behind a pair's label where A varied (A's observed rate, B's runs and
// bound, and which of A's variants B emits); "" for other pairs.
std::string pair_evidence(const scan::Pairing& pr, double margin);
// What --stress found on a pair ("fixed under stress ...", "hidden: ...", ...); "" when not run.
std::string stress_evidence(const scan::Pairing& pr);
// The comparison's two answers, one line each: does B vary anywhere, and where A
// varied, what does B emit.
std::string compare_answers(const CompilerComparison& c);
// Pairs are named by Pairing::name (`name_width` 0: kernel names in full).
std::string comparison_to_text(const CompilerComparison& c, bool color, size_t max_listed = 50,
                               size_t name_width = k_name_width);
nlohmann::json comparison_to_json(const CompilerComparison& c);
// JUnit XML: a test case per paired job (named by its kernels), failing where the gate of
// scan::compare_exit_code fails on it; an error case when no job ran on both sides.
std::string comparison_to_junit(const CompilerComparison& c);

// Escapes text for HTML and XML.
std::string xml_escape(std::string_view s);

} // namespace kdet::report
