//===- store/scan_db.cpp - SQLite store of scan results ---------------------===//
#include "kdet/store/scan_db.hpp"

#include "kdet/store/sqlite_stmt.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/file_lock.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::store {

namespace {

// blobs is a rowid table: in a WITHOUT ROWID table a row past about 1 KB (a page's index-cell
// share) spills into overflow pages of its own, and a compressed PTX of 1-2 KB then took a
// whole 4 KB page (the synthetic 13,000-job census: 62 MB of pages for 15 MB of frames). Its
// small columns come before the data, so the checks that read them (codec, base) read no
// overflow page (a database upgraded from version 2 has base and size last).
const char* const k_schema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scans(id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT, finished_at TEXT,
  shard TEXT, invocation TEXT, host TEXT, status TEXT, split_rounds INTEGER);
CREATE TABLE IF NOT EXISTS compilers(name TEXT PRIMARY KEY, backend TEXT, path TEXT, content_hash TEXT,
  version TEXT);
CREATE TABLE IF NOT EXISTS inputs(name TEXT PRIMARY KEY, content_hash TEXT);
CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, input TEXT, input_hash TEXT, compiler TEXT, target TEXT,
  option_set TEXT, options TEXT, seed INTEGER, budget INTEGER, runs INTEGER, ok_runs INTEGER, rounds INTEGER,
  done INTEGER, expected_vary INTEGER, expect_reason TEXT, seconds REAL, updated_at TEXT,
  kernels TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS runs(job_id TEXT, idx INTEGER, variant TEXT, status TEXT, code INTEGER,
  signal INTEGER, seed INTEGER, seconds REAL, compile_seconds REAL, worker_pid INTEGER, nth_in_worker INTEGER,
  detail TEXT, PRIMARY KEY(job_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS variants(job_id TEXT, id TEXT, count INTEGER, first_run INTEGER, status TEXT,
  detail TEXT, log TEXT NOT NULL DEFAULT '', PRIMARY KEY(job_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS variant_artifacts(job_id TEXT, variant TEXT, name TEXT, hash TEXT, size INTEGER,
  PRIMARY KEY(job_id, variant, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blobs(hash TEXT PRIMARY KEY, codec TEXT NOT NULL DEFAULT 'raw',
  base TEXT NOT NULL DEFAULT '', size INTEGER, data BLOB);
)sql";

std::string now_iso() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(
                                                  std::chrono::system_clock::now())));
}

const char* const k_tables[] = {"meta", "scans",    "compilers",         "inputs", "jobs",
                                "runs", "variants", "variant_artifacts", "blobs"};

} // namespace

std::string file_uri(const std::string& path, const char* query) {
  std::string abs = absolute_path(path), out = "file:";
  for (unsigned char c : abs) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out + "?" + query;
}

std::string database_error(const std::string& path, sqlite3* db) {
  int rc = db ? sqlite3_extended_errcode(db) & 0xff : SQLITE_NOMEM;
  std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
  if (db && disk_full(db))
    return fmt::format("database {}: disk full (free space on its file system, then resume)", path);
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
    return fmt::format(
        "database {}: not a sound kdet scan database ({}); restore it or give a new --db file",
        path, msg);
  if (rc == SQLITE_READONLY) return fmt::format("database {}: read-only ({})", path, msg);
  return fmt::format("database {}: {}", path, msg);
}

ScanDb::ScanDb(const std::string& path, Access access) : m_path(path), m_access(access) {
  // A device, FIFO or folder is never opened as a database, for writing least of all: SQLite
  // would write its header and journal through a device node (and a lock file beside it).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error::format("database {}: not a regular file", path);
  if (access == Access::write) lock();
  try {
    open_checked();
  } catch (...) {
    if (m_db) sqlite3_close(m_db);
    m_db = nullptr;
    if (m_read_sidecars) m_read_sidecars->tidy();
    forget_created(true);
    if (m_lock >= 0) ::close(m_lock);
    m_lock = -1;
    throw;
  }
}

void ScanDb::open_checked() {
  const std::string& path = m_path;
  const Access access = m_access;
  bool exists = ::access(path.c_str(), F_OK) == 0;
  if (access == Access::read && !exists)
    throw Error::format("database {}: {}", path, std::strerror(errno));
  // Read access works on a read-only file or folder: first a plain read-only open
  // (sees a WAL left by a killed writer), then immutable when -shm cannot be made.
  if (access == Access::read) m_read_sidecars = std::make_unique<ReadSidecars>(path);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string uri = access == Access::write ? file_uri(path, "mode=rwc")
                      : attempt == 0          ? file_uri(path, "mode=ro")
                                              : file_uri(path, "mode=ro&immutable=1");
    if (sqlite3_open_v2(uri.c_str(), &m_db,
                        (access == Access::write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                                 : SQLITE_OPEN_READONLY) |
                            SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI,
                        nullptr) != SQLITE_OK) {
      std::string msg = database_error(path, m_db);
      sqlite3_close(m_db);
      m_db = nullptr;
      throw Error::format("{} (cannot open)", msg);
    }
    sqlite3_busy_timeout(m_db, 10000);
    try {
      check();
      m_immutable = attempt == 1;
      break;
    } catch (const Error&) {
      int rc = sqlite3_extended_errcode(m_db) & 0xff;
      sqlite3_close(m_db);
      m_db = nullptr;
      if (access == Access::read && attempt == 0 &&
          (rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY))
        continue;
      throw;
    }
  }
  if (access == Access::read) return;
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec("PRAGMA foreign_keys=OFF");
  // Tables and version in one transaction: a disk that fills meanwhile leaves no half schema,
  // which a resume would refuse as another kind of database.
  exec("BEGIN IMMEDIATE");
  try {
    exec(k_schema);
    add_scans_split_rounds();
    upgrade();
    exec(fmt::format("PRAGMA user_version={}", k_scan_db_version).c_str());
    exec("COMMIT");
  } catch (...) {
    rollback();
    throw;
  }
}

void ScanDb::forget_created(bool sidecars) noexcept {
  // Only the file lock() created, and only while the path still names it: a database that did
  // not exist before this open is either made whole or not left at all.
  if (!m_created || m_lock < 0) return;
  struct stat mine {
  }, now{};
  if (::fstat(m_lock, &mine) != 0 || ::lstat(m_path.c_str(), &now) != 0 ||
      mine.st_dev != now.st_dev || mine.st_ino != now.st_ino)
    return;
  // Its WAL and shared memory are this open's own: refuse_foreign_sidecars() refused a new
  // database that had them beside it.
  if (sidecars)
    for (const char* suffix : {"-wal", "-shm", "-journal"})
      ::unlink((m_path + suffix).c_str());
  ::unlink(m_path.c_str());
  m_created = false;
}

void ScanDb::check() {
  // Integrity and schema, before anything is read as sound.
  int version = 0;
  int64_t objects = 0;
  try {
    {
      Stmt s(m_db, "PRAGMA user_version");
      if (s.step()) version = static_cast<int>(s.i64(0));
    }
    {
      Stmt s(m_db, "SELECT count(*) FROM sqlite_master");
      s.step();
      objects = s.i64(0);
    }
    if (objects == 0 && m_access == Access::write) return; // a new database
    // Versions 1 (before failure logs and compressed blobs) and 2 (before blobs stored as a
    // difference from another) are read as they are, and brought to the current version when
    // opened for writing (upgrade).
    if (objects > 0 && (version < 1 || version > k_scan_db_version))
      throw Error::format("database {}: schema version {} is not one kdet scan reads (1 to {}): "
                          "{}; use a new --db file",
                          m_path, version, k_scan_db_version,
                          version > k_scan_db_version ? "a newer kdet wrote it"
                                                      : "not a kdet scan database");
    std::string problems;
    {
      Stmt s(m_db, "PRAGMA quick_check");
      while (s.step()) {
        std::string row = s.text(0);
        if (row != "ok" && problems.size() < 300) problems += (problems.empty() ? "" : "; ") + row;
      }
    }
    if (!problems.empty())
      throw Error::format(
          "database {}: fails its integrity check ({}); restore it or give a new --db file", m_path,
          problems);
    for (const char* t : k_tables) {
      Stmt s(m_db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?");
      s.bind(1, std::string(t));
      s.step();
      if (s.i64(0) != 1)
        throw Error::format("database {}: not a kdet scan database (table {} is missing)", m_path,
                            t);
    }
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind("database " + m_path, 0) == 0) throw;
    throw Error(database_error(m_path, m_db));
  }
}

void ScanDb::lock() {
  // One writer per database by identity: an exclusive flock on the database file
  // itself (created here when new), held until the ScanDb closes, so every name of
  // it (a hardlink, a symlink, a bind mount, "./" spellings) meets the same lock.
  // SQLite's own locks are POSIX record locks, which flock leaves alone on Linux.
  // A name that is free but has a sidecar beside it is refused before anything is made there:
  // a file created and removed again would be seen, for that moment, by the scan that owns the
  // sidecar as a file put in its place.
  struct stat named {};
  if (::lstat(m_path.c_str(), &named) != 0 && errno == ENOENT)
    if (const char* suffix = foreign_sidecar()) throw foreign_sidecar_error(suffix);
  m_lock = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK, 0644);
  m_created = m_lock >= 0;
  if (m_lock < 0 && errno == EEXIST) // a name that exists, or a link (to a file yet to be made)
    m_lock = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  if (m_lock < 0)
    throw Error::format("database {}: cannot open it for writing: {}", m_path,
                        std::strerror(errno));
  struct stat st {};
  if (::fstat(m_lock, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(m_lock);
    m_lock = -1;
    throw Error::format("database {}: not a regular file", m_path);
  }
  if (::flock(m_lock, LOCK_EX | LOCK_NB) == 0) {
    refuse_foreign_sidecars(st);
    return;
  }
  int e = errno;
  ::close(m_lock);
  m_lock = -1;
  if (e != EWOULDBLOCK)
    throw Error::format("database {}: cannot lock it: {}", m_path, std::strerror(e));
  LockHolder h = flock_holder(st.st_dev, st.st_ino);
  std::string who = h.pid > 0 ? fmt::format("pid {}", h.pid) : "another process";
  std::string as = !h.path.empty() && h.path != absolute_path(m_path)
                       ? fmt::format(", which writes it as {}", h.path)
                       : "";
  throw Error::format("database {}: in use by {}{} (one kdet scan or merge writes a database at a "
                      "time, whatever name it is given)",
                      m_path, who, as);
}

const char* ScanDb::foreign_sidecar() const {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    struct stat side {};
    if (::lstat((m_path + suffix).c_str(), &side) == 0) return suffix;
  }
  return nullptr;
}

Error ScanDb::foreign_sidecar_error(const char* suffix) const {
  return Error::format(
      "database {}: it is new, but {}{} is beside it, which belongs to another database (one "
      "renamed or removed while a scan wrote it, or a crash): put that database back as {}, or "
      "move {}-wal and {}-shm aside",
      m_path, m_path, suffix, m_path, m_path, m_path);
}

void ScanDb::refuse_foreign_sidecars(const struct stat& st) {
  // SQLite finds a database's WAL and shared memory by name (PATH-wal, PATH-shm). Beside a
  // database file this open created, they belong to another one: one renamed or removed while
  // a scan wrote it, whose latest runs are in that WAL still. A new database must neither
  // replay them nor, failing, remove them. (An empty file that was there is a database killed
  // before its first checkpoint, whose schema and runs are in its own WAL: it resumes.) lock()
  // refuses a free name with a sidecar before creating; this catches one that came between.
  if (!m_created || st.st_size != 0) return;
  const char* suffix = foreign_sidecar();
  if (!suffix) return;
  forget_created(false);
  ::close(m_lock);
  m_lock = -1;
  throw foreign_sidecar_error(suffix);
}

bool ScanDb::still_named() const {
  struct stat mine {
  }, now{};
  return m_lock < 0 || (::fstat(m_lock, &mine) == 0 && ::stat(m_path.c_str(), &now) == 0 &&
                        mine.st_dev == now.st_dev && mine.st_ino == now.st_ino);
}

ScanDb::~ScanDb() {
  // Moved or removed while open, the file cannot take the WAL's pages: closing would checkpoint
  // nothing and delete the WAL by its name, and with it the runs written since. Kept, the WAL
  // is replayed once the file is put back beside it.
  if (m_db && m_access == Access::write && !still_named()) {
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    const char* name = sqlite3_db_filename(m_db, "main");
    const std::string main = name && *name ? name : m_path;
    sqlite3_close(m_db);
    m_db = nullptr;
    // Another file has the name now: it must never replay this scan's WAL as its own.
    struct stat st {};
    if (::stat(m_path.c_str(), &st) == 0)
      ::rename((main + "-wal").c_str(), fmt::format("{}-wal.kdet-{}", main, ::getpid()).c_str());
  }
  if (m_db) sqlite3_close(m_db);
  if (m_read_sidecars) m_read_sidecars->tidy();
  if (m_lock >= 0) ::close(m_lock); // after SQLite's close: the lock covers its last writes
}

void ScanDb::rollback() noexcept {
  // SQLite may already have rolled back (disk full): a second error must not hide the first.
  if (m_db && !sqlite3_get_autocommit(m_db))
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void ScanDb::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "?";
    sqlite3_free(err);
    int rc = sqlite3_extended_errcode(m_db) & 0xff;
    if (disk_full(m_db) || rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || rc == SQLITE_READONLY)
      throw Error(database_error(m_path, m_db));
    throw Error::format("database {}: {}", m_path, msg);
  }
}

std::map<std::string, std::string> ScanDb::meta() {
  std::map<std::string, std::string> out;
  Stmt s(m_db, "SELECT key, value FROM meta");
  while (s.step())
    out[s.text(0)] = s.text(1);
  return out;
}

void ScanDb::set_meta(const std::map<std::string, std::string>& values) {
  Stmt s(m_db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  exec("BEGIN");
  for (const auto& [k, v] : values)
    s.bind(1, k).bind(2, v).run();
  exec("COMMIT");
}

void ScanDb::plan(const std::vector<CompilerRow>& compilers, const std::vector<JobRow>& jobs,
                  const std::vector<std::pair<std::string, std::string>>& inputs) {
  exec("BEGIN IMMEDIATE");
  try {
    Stmt c(m_db,
           "INSERT INTO compilers(name, backend, path, content_hash, version) VALUES(?,?,?,?,'') "
           "ON CONFLICT(name) DO UPDATE SET backend=excluded.backend, path=excluded.path, "
           "content_hash=excluded.content_hash");
    for (const auto& r : compilers)
      c.bind(1, r.name).bind(2, r.backend).bind(3, r.path).bind(4, r.content_hash).run();
    Stmt in(m_db, "INSERT OR REPLACE INTO inputs(name, content_hash) VALUES(?, ?)");
    for (const auto& [n, h] : inputs)
      in.bind(1, n).bind(2, h).run();
    Stmt j(m_db,
           "INSERT INTO jobs(id, input, input_hash, compiler, target, option_set, options, seed, "
           "budget, runs, "
           "ok_runs, rounds, done, expected_vary, expect_reason, seconds, updated_at, kernels) "
           "VALUES(?,?,?,?,?,?,?,?,?,0,0,0,0,?,?,0,?,?) ON CONFLICT(id) DO UPDATE SET "
           "budget=excluded.budget, kernels=excluded.kernels, "
           "expected_vary=excluded.expected_vary, expect_reason=excluded.expect_reason, "
           "done=CASE WHEN excluded.budget > jobs.runs AND (SELECT count(*) FROM variants v WHERE "
           "v.job_id=jobs.id) < 2 THEN 0 ELSE jobs.done END");
    std::string now = now_iso();
    for (const auto& r : jobs) {
      j.bind(1, r.id).bind(2, r.input).bind(3, r.input_hash).bind(4, r.compiler).bind(5, r.target);
      j.bind(6, r.option_set)
          .bind(7, json_text(nlohmann::json(r.options), -1))
          .bind(8, static_cast<int64_t>(r.seed));
      j.bind(9, static_cast<int64_t>(r.budget)).bind(10, static_cast<int64_t>(r.expected_vary));
      j.bind(11, r.expect_reason).bind(12, now);
      j.bind(13, json_text(nlohmann::json(r.kernels), -1)).run();
    }
    exec("COMMIT");
  } catch (...) {
    rollback();
    throw;
  }
}

int64_t ScanDb::begin_scan(const std::string& shard, const std::string& invocation) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  Stmt s(
      m_db,
      "INSERT INTO scans(started_at, shard, invocation, host, status) VALUES(?,?,?,?,'running')");
  s.bind(1, now_iso()).bind(2, shard).bind(3, invocation).bind(4, std::string(host)).run();
  return sqlite3_last_insert_rowid(m_db);
}

void ScanDb::finish_scan(int64_t id, const std::string& status, uint64_t split_rounds) {
  Stmt s(m_db, "UPDATE scans SET finished_at=?, status=?, split_rounds=? WHERE id=?");
  s.bind(1, now_iso())
      .bind(2, status)
      .bind(3, static_cast<int64_t>(split_rounds))
      .bind(4, id)
      .run();
}

bool ScanDb::has_column(const char* schema, const char* table, const char* column) {
  Stmt s(m_db, "SELECT count(*) FROM pragma_table_info(?, ?) WHERE name=?");
  s.bind(1, std::string(table)).bind(2, std::string(schema)).bind(3, std::string(column));
  s.step();
  return s.i64(0) > 0;
}

void ScanDb::add_scans_split_rounds() {
  if (has_column("main", "scans", "split_rounds")) return;
  exec("ALTER TABLE scans ADD COLUMN split_rounds INTEGER");
}

void ScanDb::upgrade() {
  // Version 1 kept no failure logs nor kernel names, and stored every blob as it is ('raw');
  // version 2 stored each blob whole (no base; its size only in the artifact rows).
  if (!has_column("main", "jobs", "kernels"))
    exec("ALTER TABLE jobs ADD COLUMN kernels TEXT NOT NULL DEFAULT '[]'");
  if (!has_column("main", "variants", "log"))
    exec("ALTER TABLE variants ADD COLUMN log TEXT NOT NULL DEFAULT ''");
  if (!has_column("main", "blobs", "codec"))
    exec("ALTER TABLE blobs ADD COLUMN codec TEXT NOT NULL DEFAULT 'raw'");
  if (!has_column("main", "blobs", "base"))
    exec("ALTER TABLE blobs ADD COLUMN base TEXT NOT NULL DEFAULT ''");
  if (!has_column("main", "blobs", "size")) exec("ALTER TABLE blobs ADD COLUMN size INTEGER");
}

void ScanDb::write(const std::vector<RoundWrite>& rounds) {
  if (rounds.empty()) return;
  // Renamed or removed under this scan, the file no longer gets what is written: SQLite keeps
  // the WAL by the old name, so a resume from the moved file would find nothing.
  if (!still_named()) {
    const char* name = sqlite3_db_filename(m_db, "main");
    const std::string wal = std::string(name && *name ? name : m_path.c_str()) + "-wal";
    struct stat st {};
    if (::stat(m_path.c_str(), &st) == 0)
      throw Error::format(
          "database {}: was replaced by another file while this scan wrote it; the scan's runs "
          "so far are in its WAL, which is moved aside to {}.kdet-{} so that the other file never "
          "reads it: put the scan's file back as {} and that WAL as {}, and run the scan again to "
          "resume",
          m_path, wal, ::getpid(), m_path, wal);
    throw Error::format("database {}: was moved or removed while this scan wrote it; its runs so "
                        "far are in {} beside the old name: put the file back there (beside its "
                        "-wal and -shm) and run the scan again to resume",
                        m_path, wal);
  }
  Stmt job(
      m_db,
      "UPDATE jobs SET runs=?, ok_runs=?, rounds=?, done=?, seconds=?, updated_at=? WHERE id=?");
  Stmt run(m_db,
           "INSERT OR REPLACE INTO runs(job_id, idx, variant, status, code, signal, seed, seconds, "
           "compile_seconds, worker_pid, nth_in_worker, detail) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  Stmt var(
      m_db,
      "INSERT INTO variants(job_id, id, count, first_run, status, detail, log) "
      "VALUES(?,?,?,?,?,?,?) "
      "ON CONFLICT(job_id, id) DO UPDATE SET count=excluded.count, first_run=excluded.first_run");
  Stmt art(m_db, "INSERT OR IGNORE INTO variant_artifacts(job_id, variant, name, hash, size) "
                 "VALUES(?,?,?,?,?)");
  Stmt ver(m_db, "UPDATE compilers SET version=? WHERE name=? AND version=''");
  std::string now = now_iso();
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& r : rounds) {
      const auto& j = r.job;
      job.bind(1, static_cast<int64_t>(j.runs)).bind(2, static_cast<int64_t>(j.ok_runs));
      job.bind(3, static_cast<int64_t>(j.rounds))
          .bind(4, static_cast<int64_t>(j.done))
          .bind(5, j.seconds);
      job.bind(6, now).bind(7, j.id).run();
      for (const auto& x : r.runs) {
        run.bind(1, j.id)
            .bind(2, static_cast<int64_t>(x.index))
            .bind(3, x.variant)
            .bind(4, x.status);
        run.bind(5, static_cast<int64_t>(x.code)).bind(6, static_cast<int64_t>(x.signal));
        run.bind(7, static_cast<int64_t>(x.seed)).bind(8, x.seconds).bind(9, x.compile_seconds);
        run.bind(10, static_cast<int64_t>(x.worker_pid))
            .bind(11, static_cast<int64_t>(x.nth_in_worker));
        run.bind(12, x.detail).run();
      }
      for (const auto& v : j.variants) {
        var.bind(1, j.id).bind(2, v.id).bind(3, static_cast<int64_t>(v.count));
        var.bind(4, static_cast<int64_t>(v.first_run)).bind(5, v.status).bind(6, v.detail);
        var.bind(7, v.log).run();
        for (const auto& a : v.artifacts)
          art.bind(1, j.id)
              .bind(2, v.id)
              .bind(3, a.name)
              .bind(4, a.hash)
              .bind(5, static_cast<int64_t>(a.size))
              .run();
      }
      store_blobs(r);
      if (!r.compiler_version.empty()) ver.bind(1, r.compiler_version).bind(2, j.compiler).run();
    }
    exec("COMMIT");
  } catch (...) {
    rollback();
    throw;
  }
}

// ---- ScanWriter -------------------------------------------------------------

ScanWriter::ScanWriter(ScanDb& db) : m_db(db), m_thread([this] { loop(); }) {}

ScanWriter::~ScanWriter() {
  {
    std::lock_guard<std::mutex> lock(m_mu);
    m_stop = true;
  }
  m_cv.notify_all();
  m_thread.join();
}

void ScanWriter::push(RoundWrite round) {
  {
    std::lock_guard<std::mutex> lock(m_mu);
    if (!m_error.empty()) throw Error(m_error);
    m_queue.push_back(std::move(round));
    ++m_pushed;
  }
  m_cv.notify_all();
}

void ScanWriter::flush() {
  std::unique_lock<std::mutex> lock(m_mu);
  m_done_cv.wait(lock, [&] { return m_committed == m_pushed || !m_error.empty(); });
  if (!m_error.empty()) throw Error(m_error);
}

void ScanWriter::loop() {
  for (;;) {
    std::vector<RoundWrite> batch;
    {
      std::unique_lock<std::mutex> lock(m_mu);
      m_cv.wait(lock, [&] { return m_stop || !m_queue.empty(); });
      if (m_queue.empty() && m_stop) return;
      while (!m_queue.empty()) {
        batch.push_back(std::move(m_queue.front()));
        m_queue.pop_front();
      }
    }
    std::string error;
    try {
      m_db.write(batch);
    } catch (const std::exception& e) {
      error = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(m_mu);
      m_committed += batch.size();
      if (!error.empty() && m_error.empty()) m_error = error;
    }
    m_done_cv.notify_all();
  }
}

} // namespace kdet::store
