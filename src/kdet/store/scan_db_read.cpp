//===- store/scan_db_read.cpp - read-only opens leave nothing beside a database -===//
#include "kdet/store/sqlite_stmt.hpp"

#include <sys/stat.h>

namespace kdet::store {

ReadSidecars::ReadSidecars(const std::string& path) : m_path(path) {
  struct stat st {};
  m_armed = !sidecar_beside(path) && ::stat(path.c_str(), &st) == 0;
  m_dev = st.st_dev;
  m_ino = st.st_ino;
}

bool ReadSidecars::sidecar_beside(const std::string& path) {
  struct stat st {};
  return ::lstat((path + "-wal").c_str(), &st) == 0 || ::lstat((path + "-shm").c_str(), &st) == 0;
}

void ReadSidecars::tidy() noexcept {
  // Only where the path still names the file that had none (not one put in its place since).
  struct stat st {};
  if (!m_armed || !sidecar_beside(m_path) || ::stat(m_path.c_str(), &st) != 0 ||
      st.st_dev != m_dev || st.st_ino != m_ino)
    return;
  try {
    // A read-write connection that reads opens the WAL; its close, when it is the database's
    // last connection (SQLite's exclusive lock says so, whatever process holds another),
    // checkpoints the WAL (empty: nothing is written) and removes it and the -shm. A scan that
    // writes the database meanwhile keeps its connection, and so both files.
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(file_uri(m_path, "mode=rw").c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, nullptr) == SQLITE_OK)
      sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  } catch (...) { // file_uri's allocation: the files stay, as they did before
  }
}

} // namespace kdet::store
