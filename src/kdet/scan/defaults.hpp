//===- scan/defaults.hpp - a scan's jobs meet the factors `kdet run` meets ----===//
//
// One meaning of "default": a factor the manifest's [setting] does not name
// varies, in the regime where it acts, exactly as under `kdet run` (and
// explain's "all varied" cell). engine::vary_unset_factors decides the levels
// and probes them; a scan probes once per compiler, on its first job, so a
// level that breaks a compiler (libfaketime hangs nvcc 13.0) costs a few short
// probes, not --timeout per run of every job.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/store/scan_db.hpp"

#include <string>
#include <vector>

namespace kdet::scan {

// Sets each compiler's `setting` (and `default_varied`, `findings`) from the manifest's
// setting: under unnamed = "vary", every factor [setting] does not name is varied where it
// acts on that compiler, probed on the compiler's first job in `jobs`. A compiler without a
// job keeps the manifest's setting; one whose probe cannot run (it cannot be loaded) too, with
// a finding, as its jobs will report the failure. Stops early on SIGINT/SIGTERM.
void vary_unnamed(Manifest& m, const std::vector<Job>& jobs);

// "every factor not named varied (time=vary ...)" or "unnamed factors natural": what a
// compiler's jobs run under, for reports.
std::string describe_defaults(const Manifest& m, const CompilerSpec& spec);

// The setting each compiler's jobs ran under, every level spelled out (the probe's choices for
// the factors [setting] does not name included) and the seed left out: a JSON object, compiler
// name -> perturb::describe, stored as the database's meta "compiler_settings".
std::string compiler_settings_meta(const Manifest& m, const std::vector<Job>& jobs);

// The setting compiler `compiler` of a stored scan ran under, as compiler_settings_meta spells
// it; for a database from before that meta, the manifest's [setting] with the unnamed factors'
// mode ("unnamed=vary|natural"). "" when neither can be read (its manifest is gone): then no one
// may claim two scans ran under different settings.
std::string stored_setting(const store::ScanResult& r, const std::string& compiler);

// Compiler `ca` of scan `a` and `cb` of scan `b`: their settings (stored_setting) when they ran
// under different ones, so that no pair of theirs may be called fixed; {"", ""} when they ran
// under the same, or one cannot be read.
struct SettingsDiffer {
  std::string a, b;
  bool differ() const { return !a.empty(); }
};
SettingsDiffer settings_differ(const store::ScanResult& a, const std::string& ca,
                               const store::ScanResult& b, const std::string& cb);

} // namespace kdet::scan
