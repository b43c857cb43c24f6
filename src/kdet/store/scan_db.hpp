//===- store/scan_db.hpp - the SQLite database of a scan --------------------===//
//
// One file per scan (or shard). WAL journal, one writer: ScanWriter owns a
// thread that drains a queue of job rounds and commits each batch in one
// transaction with prepared statements. A committed round survives a SIGKILL
// of kdet (WAL, synchronous=NORMAL: durable against process death; a power
// loss may lose the last commits). Schema version is PRAGMA user_version.
// Tables: meta, scans, compilers, inputs, jobs, runs, variants,
// variant_artifacts, blobs (artifact bytes stored once by content hash, each a zstd frame of
// its own or of its difference from the first bytes stored for the same input and artifact
// name: another target's, option set's or compiler's output, or the job's other variant).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/store/scan_result.hpp"
#include "kdet/util/error.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

struct sqlite3;

namespace kdet::store {

// 2: variants.log (a failure's compiler log) and blobs.codec. 3: blobs.base and blobs.size
// (codec zstd-delta: a frame made with the base blob's bytes as its prefix). Versions 1 and 2
// are read as they are and upgraded when opened for writing.
inline constexpr int k_scan_db_version = 3;

// The zstd level of stored artifacts: PTX of libNVVM compresses 5.5 times at 8 against 4.4 at
// 3, at about 30 MB/s of the writer thread (docs/PERFORMANCE.md, "kdet scan: database size").
inline constexpr int k_blob_level = 8;
// The level of a difference from a base: a close relative's difference is as small at 3 (a few
// dozen bytes for another target's PTX), at a third of level 8's time.
inline constexpr int k_delta_level = 3;

// One compile as stored.
struct RunRow {
  uint64_t index = 0;
  std::string variant;
  std::string status;
  int code = 0;
  int signal = 0;
  uint64_t seed = 0;
  double seconds = 0;
  double compile_seconds = 0;
  int worker_pid = 0;
  int nth_in_worker = 0;
  std::string detail;
};

// What one finished round of a job adds: the job's cumulative state (its
// variants with their counts so far), the round's runs, new artifact bytes.
struct RoundWrite {
  JobRow job;
  std::vector<RunRow> runs;
  std::vector<std::pair<std::string, std::string>> blobs; // hash -> bytes
  std::string compiler_version;
};

// How a database is opened: `write` creates the file and takes the one-writer
// lock (an exclusive flock on the file itself, so every name of it meets it)
// for the ScanDb's life; `read` never writes (works on a read-only file or
// folder) and takes no lock.
enum class Access { write, read };

// "database PATH: ..." for the connection's last error, disk full and corruption named as such.
std::string database_error(const std::string& path, sqlite3* db);

class ReadSidecars; // store/sqlite_stmt.hpp

class ScanDb {
public:
  // Opens (write: or creates) the database and checks it (PRAGMA quick_check, schema
  // version, tables); throws Error (exit 2) naming the file when it is in use by
  // another writer ("in use by pid N"), unsound, or of another schema version.
  explicit ScanDb(const std::string& path, Access access = Access::write);
  ~ScanDb();
  ScanDb(const ScanDb&) = delete;
  ScanDb& operator=(const ScanDb&) = delete;

  const std::string& path() const { return m_path; }

  std::map<std::string, std::string> meta();
  void set_meta(const std::map<std::string, std::string>& values);
  // Records the compilers and the planned jobs (existing jobs keep their state).
  void plan(const std::vector<CompilerRow>& compilers, const std::vector<JobRow>& jobs,
            const std::vector<std::pair<std::string, std::string>>& inputs /* name, hash */);
  // Starts a row in `scans`; returns its id. finish_scan() closes it.
  int64_t begin_scan(const std::string& shard, const std::string& invocation);
  // `split_rounds`: the rounds this invocation ran in pieces on idle slots (scan/scheduler).
  void finish_scan(int64_t id, const std::string& status, uint64_t split_rounds = 0);

  // Commits the rounds in one transaction.
  void write(const std::vector<RoundWrite>& rounds);

  // Everything, jobs ordered by (input, compiler, target, option_set).
  ScanResult load();
  // Artifact bytes by hash ("" when absent), decoded (from their base's bytes where stored as
  // a difference) and checked against the hash; throws Error (exit 2) when they are unsound.
  std::string blob(const std::string& hash);
  uint64_t run_count();

  // Joins another scan database of the same manifest into this one: a job
  // present in both keeps the copy with more runs (a finished one wins).
  // Throws Error when the manifests differ.
  void merge_from(const std::string& other_path);

private:
  void exec(const char* sql);
  // Opens the file with SQLite, checks it, and (write) makes the schema; the constructor's body.
  void open_checked();
  void check();
  // Whether `schema`.`table` (main, or an attached o) has `column`.
  bool has_column(const char* schema, const char* table, const char* column);
  // Databases made before scans.split_rounds existed get the column (NULL in their old rows).
  void add_scans_split_rounds();
  // A version 1 or 2 database opened for writing gets the current columns (no logs; blobs
  // whole, raw or zstd, as they were).
  void upgrade();
  // Stores the round's new artifact bytes, each as a zstd frame, a difference from its base
  // (m_bases) or raw, whichever is smallest; the first stored whole for its key becomes the
  // key's base. Inside write()'s transaction.
  void store_blobs(const RoundWrite& r);
  // Fills m_bases from the database (a resumed scan's bases), once per ScanDb.
  void load_bases();
  // blob()'s body; `as_base`: the bytes are another blob's base (absent is then unsound).
  std::string blob_bytes(const std::string& hash, bool as_base);
  void lock();
  // Throws (exit 2), leaving no file, when the database file this open created has another
  // database's -wal, -shm or -journal beside it; `st` is the locked file's status.
  void refuse_foreign_sidecars(const struct stat& st);
  // The first of -wal, -shm, -journal beside the path, or null; and the error that names it.
  const char* foreign_sidecar() const;
  Error foreign_sidecar_error(const char* suffix) const;
  // True while the path still names the file this ScanDb locked (not renamed or removed).
  bool still_named() const;
  // Removes the database file when this open created it and could not make it whole, and
  // with `sidecars` its -wal, -shm and -journal (made by this open's own connection).
  void forget_created(bool sidecars) noexcept;
  void rollback() noexcept;
  ScanResult load_checked();
  // Every blob stored as a difference names a base the database holds whole; throws Error
  // (exit 2) naming the first that does not.
  void check_bases();
  // The rows' agreement with each other (statuses, runs, compilers, inputs, stored numbers):
  // throws Error (exit 2) naming the first disagreement. `index`: job id -> its place in out.
  void check_rows(const ScanResult& out, const std::map<std::string, size_t>& index);
  std::string m_path;
  Access m_access;
  int m_lock = -1;
  bool m_created = false;   // lock() made the file: this open is the database's creation
  bool m_immutable = false; // opened read-only without a -shm (a read-only folder)
  sqlite3* m_db = nullptr;
  std::unique_ptr<ReadSidecars> m_read_sidecars; // read: removes the -wal and -shm it made
  // The writer's bases: input hash, '\n', artifact name -> the hash of the first blob stored
  // whole for them (a difference's base is never itself a difference).
  std::map<std::string, std::string> m_bases;
  bool m_bases_loaded = false;
  // The last base read, decoded: a census stores an input's outputs one after another.
  std::string m_last_base, m_last_base_bytes;
};

// The single writer: rounds pushed from any thread are committed in batches.
class ScanWriter {
public:
  explicit ScanWriter(ScanDb& db);
  ~ScanWriter(); // flushes, then stops the thread
  void push(RoundWrite round);
  // Blocks until everything pushed so far is committed.
  void flush();
  uint64_t committed_rounds() const { return m_committed; }

private:
  void loop();
  ScanDb& m_db;
  std::mutex m_mu;
  std::condition_variable m_cv;
  std::condition_variable m_done_cv;
  std::deque<RoundWrite> m_queue;
  uint64_t m_pushed = 0;
  uint64_t m_committed = 0;
  bool m_stop = false;
  std::string m_error;
  std::thread m_thread;
};

} // namespace kdet::store
