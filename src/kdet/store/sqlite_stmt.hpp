//===- store/sqlite_stmt.hpp - prepared SQLite statements of the scan database -===//
//
// Shared by the files of store/scan_db (opening and writing; loading and
// merging). Not part of the store's interface.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/error.hpp"

#include <cerrno>
#include <cstdint>
#include <fmt/format.h>
#include <sqlite3.h>
#include <string>

namespace kdet::store {

// True when the connection's last error is a full disk: SQLITE_FULL, or an I/O error whose
// system call failed with ENOSPC or EDQUOT (a WAL or -shm file that could not grow).
inline bool disk_full(sqlite3* db) {
  const int rc = sqlite3_extended_errcode(db) & 0xff;
  const int e = sqlite3_system_errno(db);
  return rc == SQLITE_FULL || (rc == SQLITE_IOERR && (e == ENOSPC || e == EDQUOT));
}

// The message of a full disk under the database `db` opened.
inline std::string disk_full_message(sqlite3* db) {
  const char* name = sqlite3_db_filename(db, "main");
  return fmt::format("database {}: disk full (free space on its file system, then resume)",
                     name && *name ? name : "?");
}

// A prepared statement; binds by position from 1.
class Stmt {
public:
  Stmt(sqlite3* db, const char* sql) : m_db(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK)
      throw Error::format("database: cannot prepare statement: {}", sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(m_stmt); }
  Stmt& bind(int i, const std::string& s) {
    sqlite3_bind_text(m_stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind_blob(int i, const std::string& s) {
    sqlite3_bind_blob(m_stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(m_stmt, i, v);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(m_stmt, i, v);
    return *this;
  }
  // Runs to completion (for writes).
  void run() {
    int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
      if (disk_full(m_db)) throw Error(disk_full_message(m_db));
      throw Error::format("database write failed: {}", sqlite3_errmsg(m_db));
    }
  }
  bool step() {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) {
      if (disk_full(m_db)) throw Error(disk_full_message(m_db));
      throw Error::format("database read failed: {}", sqlite3_errmsg(m_db));
    }
    return false;
  }
  std::string text(int c) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, c))) : std::string();
  }
  std::string blob(int c) {
    auto p = static_cast<const char*>(sqlite3_column_blob(m_stmt, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, c))) : std::string();
  }
  int64_t i64(int c) { return sqlite3_column_int64(m_stmt, c); }
  // SQLITE_INTEGER, SQLITE_TEXT, SQLITE_NULL, ...: the stored type of column c.
  int type(int c) { return sqlite3_column_type(m_stmt, c); }
  // Ready to bind and step again (after step(), which leaves the statement where it stopped).
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  double dbl(int c) { return sqlite3_column_double(m_stmt, c); }

private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

// A file: URI for `path` (so read-only and immutable opens can be asked for).
std::string file_uri(const std::string& path, const char* query);

// A read-only open of a WAL database makes its -wal and -shm when they are absent, and SQLite
// leaves them (a read-only connection may not remove them): `kdet scan --report DB` left both,
// and a scan that then made a new database at that name (DB moved away) refused them as another
// database's. Taken before such an open, where neither is beside the database, tidy() after its
// close removes them, unless another connection (a scan writing it) has the database open.
class ReadSidecars {
public:
  explicit ReadSidecars(const std::string& path);
  void tidy() noexcept;
  // Whether a -wal or -shm is beside `path`.
  static bool sidecar_beside(const std::string& path);

private:
  std::string m_path;
  bool m_armed = false; // neither was there, and the file was
  uint64_t m_dev = 0, m_ino = 0;
};

} // namespace kdet::store
