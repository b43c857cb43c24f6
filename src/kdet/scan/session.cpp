//===- scan/session.cpp - manifest, database, resume, rounds, in that order --===//
#include "kdet/scan/session.hpp"

#include "kdet/backend/backend.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/scan/defaults.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/trace.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::scan {

SessionEnd run_session(const SessionRequest& req) {
  // From the start, not only for the runs: the probes below (vary_unnamed) compile too, and a
  // SIGINT or SIGTERM there killed kdet outright (exit 143, the probe's folders left in /tmp).
  engine::install_interrupt_handler();
  Shard shard;
  if (!req.shard.empty()) shard = parse_shard(req.shard);

  // The manifest first: a bad one must not leave a database file behind.
  Manifest m = load_manifest(req.manifest_path);
  if (req.target_rate) {
    m.target_rate = *req.target_rate;
    m.max_runs = 0; // the rate decides the runs, unless --max-runs names them too
  }
  if (req.max_runs) m.max_runs = *req.max_runs;
  auto compilers = resolve_compilers(m);
  std::vector<Job> all = plan_jobs(m, compilers), jobs;
  for (auto& j : all)
    if (in_shard(j.id, shard)) jobs.push_back(std::move(j));

  // Stopped while the manifest was read: no database is made.
  if (engine::interrupted()) throw Interrupted();

  SessionEnd end;
  end.db = std::make_unique<store::ScanDb>(req.db_path);
  store::ScanDb& db = *end.db;
  auto meta = db.meta();
  if (!meta.empty() && meta["manifest_hash"] != m.text_hash)
    throw Error::format(
        "--db {}: it holds a scan of another manifest (or an earlier version of {}); give a new "
        "--db file, or delete it to start over",
        req.db_path, req.manifest_path);
  if (!meta.empty() && (req.target_rate || req.max_runs))
    db.set_meta({{"target_rate", fmt::format("{}", m.target_rate)},
                 {"budget", std::to_string(job_budget(m))}});
  if (meta.empty())
    db.set_meta({{"name", m.name},
                 // Absolute: compare --settle/--stress re-read its inputs from any folder.
                 {"manifest", absolute_path(req.manifest_path)},
                 {"manifest_hash", m.text_hash},
                 {"manifest_text", read_file(req.manifest_path)},
                 {"kdet_version", k_version},
                 {"setting", json_text(perturb::to_json(m.setting), -1)},
                 {"unnamed", m.unnamed_vary ? "vary" : "natural"},
                 {"target_rate", fmt::format("{}", m.target_rate)},
                 {"budget", std::to_string(job_budget(m))}});

  std::vector<store::CompilerRow> crow;
  crow.reserve(compilers.size());
  for (const auto& c : compilers)
    crow.push_back({c.name, backend::to_string(c.config.kind), c.path, c.content_hash, ""});
  std::vector<store::JobRow> planned;
  planned.reserve(jobs.size());
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& j : jobs)
    planned.push_back(initial_row(m, j));
  for (const auto& in : m.inputs)
    inputs.emplace_back(in.name, backend::cached_file_hash(in.path));
  for (const auto& b : m.bundles)
    inputs.emplace_back(b.input.name, backend::cached_file_hash(b.input.path));
  db.plan(crow, planned, inputs);

  std::map<std::string, store::JobRow> state;
  {
    store::ScanResult stored = db.load();
    for (auto& j : stored.jobs)
      state[j.id] = std::move(j);
  }
  // db.plan() wrote a row for every planned job: one missing now is a database changed under
  // kdet or damaged, which no resume may build on.
  for (const auto& j : jobs) {
    auto row = state.find(j.id);
    if (row == state.end())
      throw Error::format("{}: unsound scan database: job {} (input {}) has no row after "
                          "planning; move it aside and scan again",
                          req.db_path, j.id, j.input ? j.input->name : "?");
    // The job id covers the input's hash: a row that holds another one was changed behind kdet.
    if (row->second.input_hash != j.input_hash)
      throw Error::format("{}: unsound scan database: job {} (input {}) holds input hash {}, "
                          "not the {} its id was made from; move it aside and scan again",
                          req.db_path, j.id, j.input ? j.input->name : "?",
                          row->second.input_hash.substr(0, 12), j.input_hash.substr(0, 12));
  }

  // Every factor [setting] does not name varies, as under `kdet run`: probed per compiler.
  vary_unnamed(m, jobs);
  SessionStart start;
  for (const auto& spec : m.compilers) {
    if (std::none_of(jobs.begin(), jobs.end(),
                     [&](const Job& j) { return &m.compilers[j.compiler] == &spec; }))
      continue;
    start.defaults.push_back(fmt::format("{}: {}", spec.name, describe_defaults(m, spec)));
    for (const auto& f : spec.findings)
      start.defaults.push_back(fmt::format("{}: {}", spec.name, f));
  }
  {
    std::string defaults;
    for (const auto& d : start.defaults)
      defaults += (defaults.empty() ? "" : "\n") + d;
    // This session's, for the reports; the settings for kdet compare.
    db.set_meta({{"defaults", defaults}, {"compiler_settings", compiler_settings_meta(m, jobs)}});
  }
  start.jobs = jobs.size();
  start.all_jobs = all.size();
  start.shard = shard;
  start.inputs = m.inputs.size();
  start.compilers = static_cast<size_t>(std::count_if(
      m.compilers.begin(), m.compilers.end(), [](const CompilerSpec& c) { return !c.captured; }));
  start.bundles = m.bundles.size();
  start.targets = std::max<size_t>(1, m.targets.size());
  start.option_sets = m.option_sets.size();
  start.threads = req.threads;
  start.budget = job_budget(m);
  for (const auto& j : jobs) {
    const store::JobRow& row = state.at(j.id);
    start.resumed += row.runs > 0;
    if (row.done) continue;
    // A job stops early once it varies; one that never does runs all of its budget.
    const uint64_t left = row.budget - std::min(row.budget, row.runs);
    start.runs_left += left;
    if (double t = m.compilers[j.compiler].probe_run_seconds; t > 0) {
      start.estimate_seconds += t * static_cast<double>(left);
      start.timed_runs += left;
    }
  }
  if (req.trace) req.trace->mark("manifest, plan, database");
  // Stopped in the probes: no start lines for runs that will not start; the scan is recorded
  // as interrupted, its jobs planned, and the same command resumes it.
  if (req.on_start && !engine::interrupted()) req.on_start(start);

  int64_t scan_id = db.begin_scan(req.shard.empty() ? "1/1" : req.shard, req.invocation);
  {
    store::ScanWriter writer(db);
    // Until this session's own runs are timed, the progress line's estimate rests on the probes'.
    const double per_run =
        start.timed_runs ? start.estimate_seconds / static_cast<double>(start.timed_runs) : 0;
    end.stats =
        run_jobs(m, jobs, state, writer, {req.threads, req.progress, {}, req.trace, per_run});
  }
  if (req.trace) req.trace->mark("runs");
  db.finish_scan(scan_id, end.stats.interrupted ? "interrupted" : "finished",
                 end.stats.split_rounds);
  end.result = db.load();
  return end;
}

} // namespace kdet::scan
