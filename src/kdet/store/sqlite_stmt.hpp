//===- store/sqlite_stmt.hpp - prepared SQLite statements of the scan database -===//
//
// Shared by the files of store/scan_db (opening and writing; loading and
// merging). Not part of the store's interface.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/error.hpp"

#include <cstdint>
#include <sqlite3.h>
#include <string>

namespace kdet::store {

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
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
      throw Error::format("database write failed: {}",
                          (sqlite3_extended_errcode(m_db) & 0xff) == SQLITE_FULL
                              ? std::string("disk full")
                              : std::string(sqlite3_errmsg(m_db)));
  }
  bool step() {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw Error::format("database read failed: {}", sqlite3_errmsg(m_db));
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
  double dbl(int c) { return sqlite3_column_double(m_stmt, c); }

private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

// A file: URI for `path` (so read-only and immutable opens can be asked for).
std::string file_uri(const std::string& path, const char* query);

} // namespace kdet::store
