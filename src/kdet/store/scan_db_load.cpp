//===- store/scan_db_load.cpp - read a scan database; merge another into it -===//
#include "kdet/backend/backend.hpp"
#include "kdet/engine/variants.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/store/sqlite_stmt.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

namespace kdet::store {

namespace {
// More runs, rounds or budget than any scan records (2^40): a count beyond it is damage.
constexpr int64_t k_max_sound_count = int64_t{1} << 40;
constexpr double k_max_sound_seconds = 366.0 * 86400;
} // namespace

ScanResult ScanDb::load() {
  try {
    return load_checked();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error::format(
        "database {}: holds a value kdet cannot read ({}); restore it or give a new --db file",
        m_path, e.what());
  }
}

void ScanDb::check_rows(const ScanResult& out, const std::map<std::string, size_t>& index) {
  auto unsound = [&](const std::string& job, const std::string& what) {
    return Error::format("database {}: job {} {}; not a sound scan database", m_path, job, what);
  };
  if (out.meta.find("manifest_hash") == out.meta.end())
    throw Error::format("database {}: holds no scan (its meta table names no manifest); not a "
                        "sound scan database",
                        m_path);
  // Every column holds the type kdet writes, and flags are 0 or 1: SQLite reads text, a blob
  // or NULL as 0, which would make a report of what was never stored.
  {
    Stmt s(m_db, "SELECT id FROM jobs WHERE typeof(seconds) NOT IN ('real', 'integer') OR "
                 "typeof(seed) != 'integer' OR typeof(runs) != 'integer' OR "
                 "typeof(ok_runs) != 'integer' OR typeof(budget) != 'integer' OR "
                 "typeof(rounds) != 'integer' OR done NOT IN (0, 1) OR "
                 "expected_vary NOT IN (0, 1) OR typeof(done) != 'integer' OR "
                 "typeof(expected_vary) != 'integer' LIMIT 1");
    if (s.step()) throw unsound(s.text(0), "holds a value of a type or range kdet never writes");
  }
  {
    Stmt s(m_db, "SELECT job_id FROM variants WHERE typeof(count) != 'integer' OR "
                 "typeof(first_run) != 'integer' UNION ALL SELECT job_id FROM variant_artifacts "
                 "WHERE typeof(size) != 'integer' OR size < 0 OR size > 1099511627776 LIMIT 1");
    if (s.step())
      throw unsound(s.text(0), "has a variant or artifact holding a value kdet never writes");
  }
  if (has_column("main", "blobs", "codec")) {
    Stmt s(m_db, "SELECT hash FROM blobs WHERE codec NOT IN ('raw', 'zstd', 'zstd-delta') LIMIT 1");
    if (s.step())
      throw Error::format("database {}: artifact {} is stored with a codec kdet does not write; "
                          "not a sound scan database",
                          m_path, s.text(0).substr(0, 12));
  }
  if (has_column("main", "blobs", "codec") && has_column("main", "blobs", "base")) check_bases();
  if (has_column("main", "variants", "log")) {
    Stmt s(m_db, "SELECT job_id FROM variants WHERE typeof(log) != 'text' LIMIT 1");
    if (s.step()) throw unsound(s.text(0), "has a variant whose log is not text");
  }
  for (const auto& j : out.jobs)
    for (const auto& v : j.variants)
      if (v.first_run >= j.runs)
        throw unsound(j.id, fmt::format("has variant {} first seen at run {} of {}",
                                        v.id.substr(0, 12), v.first_run, j.runs));
  // Each variant's status is one kdet writes, and its successes add up to the job's.
  for (const auto& j : out.jobs) {
    uint64_t ok_runs = 0;
    for (const auto& v : j.variants) {
      backend::Status st{};
      if (!backend::parse_status(v.status, st))
        throw unsound(j.id, fmt::format("has a variant of status '{}'", v.status));
      if (st == backend::Status::ok) ok_runs += v.count;
    }
    if (ok_runs != j.ok_runs)
      throw unsound(j.id, fmt::format("records {} successful runs but its variants hold {}",
                                      j.ok_runs, ok_runs));
  }
  // The runs table holds every run of every job once, each in the variant, and with the status,
  // that the job's variants count: a job's rows, its variants and its runs are written in one
  // transaction.
  std::map<std::pair<std::string, std::string>, uint64_t> per_variant;
  std::map<std::string, uint64_t> per_job;
  {
    Stmt s(m_db, "SELECT r.job_id, r.variant, count(*), min(r.idx), max(r.idx), "
                 "sum(v.id IS NULL), sum(r.status != v.status) FROM runs r LEFT JOIN variants v "
                 "ON v.job_id = r.job_id AND v.id = r.variant GROUP BY r.job_id, r.variant");
    while (s.step()) {
      const std::string job = s.text(0);
      auto it = index.find(job);
      if (it == index.end()) throw unsound(job, "has runs but no row");
      const JobRow& j = out.jobs[it->second];
      if (s.i64(5) > 0)
        throw unsound(job, fmt::format("has runs of variant {}, which it does not hold",
                                       s.text(1).substr(0, 12)));
      if (s.i64(6) > 0)
        throw unsound(job, fmt::format("has runs of variant {} with another status than the "
                                       "variant's",
                                       s.text(1).substr(0, 12)));
      if (s.i64(3) < 0 || static_cast<uint64_t>(s.i64(4)) >= j.runs)
        throw unsound(job, fmt::format("has a run numbered outside 0..{}", j.runs));
      per_variant[{job, s.text(1)}] = static_cast<uint64_t>(s.i64(2));
      per_job[job] += static_cast<uint64_t>(s.i64(2));
    }
  }
  for (const auto& j : out.jobs) {
    if (per_job[j.id] != j.runs)
      throw unsound(
          j.id, fmt::format("records {} runs but the runs table holds {}", j.runs, per_job[j.id]));
    for (const auto& v : j.variants)
      if (per_variant[{j.id, v.id}] != v.count)
        throw unsound(j.id, fmt::format("variant {} counts {} runs but the runs table holds {}",
                                        v.id.substr(0, 12), v.count, per_variant[{j.id, v.id}]));
  }
  // Each job names a compiler and an input the database holds.
  std::set<std::string> compilers, inputs;
  for (const auto& c : out.compilers)
    compilers.insert(c.name);
  {
    Stmt s(m_db, "SELECT name FROM inputs");
    while (s.step())
      inputs.insert(s.text(0));
  }
  for (const auto& j : out.jobs) {
    if (!compilers.count(j.compiler))
      throw unsound(j.id,
                    fmt::format("names compiler {}, which the database does not hold", j.compiler));
    if (!inputs.count(j.input))
      throw unsound(j.id, fmt::format("names input {}, which the database does not hold", j.input));
  }
  // What the session stored of its manifest is what it wrote.
  auto meta_number = [&](const char* key) {
    auto it = out.meta.find(key);
    if (it == out.meta.end()) return;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end || !std::isfinite(v) || v < 0)
      throw Error::format("database {}: its {} '{}' is not a number kdet writes; not a sound "
                          "scan database",
                          m_path, key, it->second);
  };
  meta_number("budget");
  meta_number("target_rate");
  if (auto it = out.meta.find("setting"); it != out.meta.end()) {
    auto setting = nlohmann::json::parse(it->second, nullptr, false);
    if (!setting.is_object())
      throw Error::format("database {}: its stored setting is not the JSON object kdet writes; "
                          "not a sound scan database",
                          m_path);
  }
}

void ScanDb::check_bases() {
  // Version 3: a difference names its base and the base is whole (the writer and merge keep it
  // so), so every artifact's bytes can be decoded; a stored size is one kdet writes.
  Stmt s(m_db, "SELECT b.hash, b.base, b.codec = 'zstd-delta', c.hash IS NULL, "
               "b.size IS NOT NULL AND (typeof(b.size) != 'integer' OR b.size < 0 OR "
               "b.size > 1099511627776) AS bad_size FROM blobs b "
               "LEFT JOIN blobs c ON c.hash = b.base WHERE bad_size OR (b.codec = 'zstd-delta') != "
               "(b.base != '') OR (b.base != '' AND (c.hash IS NULL OR c.codec = 'zstd-delta')) "
               "LIMIT 1");
  if (!s.step()) return;
  const std::string hash = s.text(0).substr(0, 12), base = s.text(1).substr(0, 12);
  const bool delta = s.i64(2) != 0, missing = s.i64(3) != 0;
  std::string what =
      s.i64(4)       ? "holds a size kdet never writes"
      : !delta       ? fmt::format("names base {} but is not stored as a difference", base)
      : base.empty() ? "is stored as a difference from no base"
      : missing      ? fmt::format("is stored as a difference from {}, whose bytes are not in "
                                        "its blobs",
                                   base)
                     : fmt::format("is stored as a difference from {}, itself a difference", base);
  throw Error::format("database {}: artifact {} {}; not a sound scan database", m_path, hash, what);
}

ScanResult ScanDb::load_checked() {
  ScanResult out;
  out.meta = meta();
  {
    Stmt s(m_db, "SELECT name, backend, path, content_hash, version FROM compilers ORDER BY rowid");
    while (s.step())
      out.compilers.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  }
  std::map<std::string, size_t> index;
  {
    // A version 1 database read as it is names no kernels.
    const bool kernels = has_column("main", "jobs", "kernels");
    Stmt s(m_db, fmt::format("SELECT id, input, input_hash, compiler, target, option_set, "
                             "options, seed, budget, runs, ok_runs, rounds, done, expected_vary, "
                             "expect_reason, seconds, {} FROM jobs "
                             "ORDER BY input, compiler, target, option_set, id",
                             kernels ? "kernels" : "'[]'")
                     .c_str());
    while (s.step()) {
      JobRow j;
      j.id = s.text(0);
      j.input = s.text(1);
      j.input_hash = s.text(2);
      j.compiler = s.text(3);
      j.target = s.text(4);
      j.option_set = s.text(5);
      // A damaged column is a damaged database (exit 2 naming it), not a JSON type error.
      auto options = nlohmann::json::parse(s.text(6), nullptr, false);
      bool sound = options.is_array();
      for (const auto& o : options)
        sound = sound && o.is_string();
      if (!sound)
        throw Error::format("database {}: job {} has damaged options; not a sound scan database",
                            m_path, j.id);
      j.options = options.get<std::vector<std::string>>();
      auto names = nlohmann::json::parse(s.text(16), nullptr, false);
      sound = names.is_array();
      for (const auto& n : names)
        sound = sound && n.is_string();
      if (!sound)
        throw Error::format(
            "database {}: job {} has damaged kernel names; not a sound scan database", m_path,
            j.id);
      j.kernels = names.get<std::vector<std::string>>();
      j.seed = static_cast<uint64_t>(s.i64(7));
      // Counts kdet wrote are never negative nor beyond any budget a scan can have.
      for (int col : {8, 9, 10, 11})
        if (s.i64(col) < 0 || s.i64(col) > k_max_sound_count)
          throw Error::format("database {}: job {} has {} {}; not a sound scan database", m_path,
                              j.id, s.i64(col),
                              col == 8    ? "as its budget"
                              : col == 9  ? "runs"
                              : col == 10 ? "successful runs"
                                          : "rounds");
      j.budget = static_cast<uint64_t>(s.i64(8));
      j.runs = static_cast<uint64_t>(s.i64(9));
      j.ok_runs = static_cast<uint64_t>(s.i64(10));
      j.rounds = static_cast<uint64_t>(s.i64(11));
      j.done = s.i64(12) != 0;
      j.expected_vary = s.i64(13) != 0;
      j.expect_reason = s.text(14);
      j.seconds = s.dbl(15);
      // A job's time is a sum of runs' times: a year is past any budget (and past what the
      // reports can print).
      if (!std::isfinite(j.seconds) || j.seconds < 0 || j.seconds > k_max_sound_seconds)
        throw Error::format("database {}: job {} took {} seconds; not a sound scan database",
                            m_path, j.id, j.seconds);
      index[j.id] = out.jobs.size();
      out.jobs.push_back(std::move(j));
    }
  }
  {
    // A version 1 database read as it is has no logs.
    const bool logs = has_column("main", "variants", "log");
    Stmt s(m_db, fmt::format("SELECT job_id, id, count, first_run, status, detail, {} FROM "
                             "variants ORDER BY job_id, first_run",
                             logs ? "log" : "''")
                     .c_str());
    while (s.step()) {
      auto it = index.find(s.text(0));
      if (it == index.end()) continue;
      out.jobs[it->second].variants.push_back({s.text(1),
                                               static_cast<uint64_t>(s.i64(2)),
                                               static_cast<uint64_t>(s.i64(3)),
                                               s.text(4),
                                               s.text(5),
                                               {},
                                               s.text(6)});
    }
    for (auto& j : out.jobs)
      engine::order(j.variants);
  }
  // A job's row and its variants are written in one transaction, so every run is in one
  // variant: counts that do not add up are variants deleted or changed behind kdet.
  for (const auto& j : out.jobs) {
    uint64_t in_variants = 0;
    for (const auto& v : j.variants) {
      if (v.count == 0 || v.count > k_max_sound_count)
        throw Error::format("database {}: job {} has a variant of {} runs; not a sound scan "
                            "database",
                            m_path, j.id, static_cast<int64_t>(v.count));
      in_variants += v.count;
    }
    if (j.ok_runs > j.runs || in_variants != j.runs)
      throw Error::format("database {}: job {} records {} runs ({} successful) but its variants "
                          "hold {}; not a sound scan database",
                          m_path, j.id, j.runs, j.ok_runs, in_variants);
  }
  check_rows(out, index);
  {
    Stmt s(m_db, "SELECT job_id, variant, name, hash, size FROM variant_artifacts ORDER BY job_id, "
                 "variant, name");
    while (s.step()) {
      auto it = index.find(s.text(0));
      if (it == index.end()) continue;
      if (VariantRow* v = engine::find_variant(out.jobs[it->second].variants, s.text(1)))
        v->artifacts.push_back({s.text(2), s.text(3), static_cast<uint64_t>(s.i64(4))});
    }
  }
  // Every successful compile gave an artifact, and every artifact's bytes were stored with it
  // in the same transaction: an artifact row or a blob missing was deleted behind kdet.
  const std::string ok = backend::to_string(backend::Status::ok);
  for (const auto& j : out.jobs)
    for (const auto& v : j.variants)
      if (v.status == ok && v.artifacts.empty())
        throw Error::format("database {}: job {} variant {} succeeded but holds no artifact; not "
                            "a sound scan database",
                            m_path, j.id, v.id.substr(0, 12));
  {
    Stmt s(m_db, "SELECT a.job_id, a.variant, a.name, a.hash FROM variant_artifacts a "
                 "LEFT JOIN blobs b ON b.hash = a.hash WHERE b.hash IS NULL LIMIT 1");
    if (s.step())
      throw Error::format("database {}: job {} variant {} names artifact {} ({}), whose bytes are "
                          "not in its blobs; not a sound scan database",
                          m_path, s.text(0), s.text(1).substr(0, 12), s.text(2),
                          s.text(3).substr(0, 12));
  }
  return out;
}

uint64_t ScanDb::run_count() {
  Stmt s(m_db, "SELECT count(*) FROM runs");
  s.step();
  return static_cast<uint64_t>(s.i64(0));
}

void ScanDb::merge_from(const std::string& other_path) {
  bool immutable = false; // read-only folder: no -shm can be made beside it
  if (::access(other_path.c_str(), R_OK) != 0)
    throw Error::format("merge: {}: {}", other_path, std::strerror(errno));
  // The input is read as `kdet scan --report` reads it: what its ATTACH makes beside it goes.
  ReadSidecars sidecars(other_path);
  {
    ScanDb other(other_path, Access::read); // checks integrity and schema
    immutable = other.m_immutable;
    auto mine = meta(), theirs = other.meta();
    if (theirs.empty()) throw Error::format("merge: {} holds no scan", other_path);
    if (mine.empty()) {
      set_meta(theirs);
    } else if (mine["manifest_hash"] != theirs["manifest_hash"]) {
      throw Error::format(
          "merge: {} was scanned from another manifest ({} {}) than {} ({} {}); merge only shards "
          "of one manifest",
          other_path, theirs["manifest"], theirs["manifest_hash"].substr(0, 12), m_path,
          mine["manifest"], mine["manifest_hash"].substr(0, 12));
    }
  }
  Stmt att(m_db, "ATTACH DATABASE ? AS o");
  att.bind(1, file_uri(other_path, immutable ? "mode=ro&immutable=1" : "mode=ro")).run();
  try {
    // A version 1 input has no logs and only raw blobs.
    const std::string log = has_column("o", "variants", "log") ? "log" : "''";
    const std::string codec = has_column("o", "blobs", "codec") ? "codec" : "'raw'";
    const bool based = has_column("o", "blobs", "base");
    const std::string base = based ? "base" : "''", size = based ? "size" : "NULL";
    const std::string kernels = has_column("o", "jobs", "kernels") ? "kernels" : "'[]'";
    exec("BEGIN IMMEDIATE");
    exec(fmt::format(R"sql(
CREATE TEMP TABLE take AS SELECT t.id FROM o.jobs t LEFT JOIN main.jobs m ON m.id = t.id
  WHERE m.id IS NULL OR (t.done > m.done) OR (t.done = m.done AND t.runs > m.runs);
DELETE FROM main.runs WHERE job_id IN (SELECT id FROM take);
DELETE FROM main.variants WHERE job_id IN (SELECT id FROM take);
DELETE FROM main.variant_artifacts WHERE job_id IN (SELECT id FROM take);
INSERT OR REPLACE INTO main.jobs(id, input, input_hash, compiler, target, option_set, options, seed,
  budget, runs, ok_runs, rounds, done, expected_vary, expect_reason, seconds, updated_at, kernels)
  SELECT id, input, input_hash, compiler, target, option_set, options, seed, budget, runs, ok_runs,
  rounds, done, expected_vary, expect_reason, seconds, updated_at, {kernels} FROM o.jobs
  WHERE id IN (SELECT id FROM take);
INSERT INTO main.runs SELECT * FROM o.runs WHERE job_id IN (SELECT id FROM take);
INSERT INTO main.variants(job_id, id, count, first_run, status, detail, log)
  SELECT job_id, id, count, first_run, status, detail, {log} FROM o.variants WHERE job_id IN (SELECT id FROM take);
INSERT INTO main.variant_artifacts SELECT * FROM o.variant_artifacts WHERE job_id IN (SELECT id FROM take);
INSERT OR IGNORE INTO main.blobs(hash, codec, base, size, data) SELECT hash, {codec}, {base}, {size}, data
  FROM o.blobs;
-- A difference's base stays whole: where this side holds as a difference what the input holds
-- whole (a base there), the whole copy replaces it, so no difference refers to another.
INSERT OR REPLACE INTO main.blobs(hash, codec, base, size, data) SELECT hash, {codec}, {base}, {size}, data
  FROM o.blobs WHERE {codec} != 'zstd-delta' AND hash IN
  (SELECT hash FROM main.blobs WHERE codec = 'zstd-delta');
INSERT OR IGNORE INTO main.compilers SELECT * FROM o.compilers;
UPDATE main.compilers SET version = (SELECT c.version FROM o.compilers c WHERE c.name = main.compilers.name)
  WHERE version = '' AND EXISTS (SELECT 1 FROM o.compilers c WHERE c.name = main.compilers.name AND c.version != '');
INSERT OR IGNORE INTO main.inputs SELECT * FROM o.inputs;
INSERT INTO main.scans(started_at, finished_at, shard, invocation, host, status)
  SELECT started_at, finished_at, shard, invocation, host, status FROM o.scans;
DROP TABLE take;
COMMIT;
)sql",
                     fmt::arg("log", log), fmt::arg("codec", codec), fmt::arg("kernels", kernels),
                     fmt::arg("base", base), fmt::arg("size", size))
             .c_str());
  } catch (...) {
    rollback();
    sqlite3_exec(m_db, "DETACH DATABASE o", nullptr, nullptr, nullptr);
    sidecars.tidy();
    throw;
  }
  exec("DETACH DATABASE o");
  sidecars.tidy();
}

} // namespace kdet::store
