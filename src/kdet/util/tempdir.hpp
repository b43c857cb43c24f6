//===- util/tempdir.hpp - kdet's own temporary folders -------------------------===//
//
// Every temporary folder kdet makes is made here, named
// kdet-TAG-PID-START-XXXXXX (the owner's pid and start time in clock ticks since
// boot) and locked (flock on the folder) while its owner lives. A killed kdet
// cannot remove its folders; the next kdet to start removes them
// (sweep_stale_temp_dirs), and only them: a folder is left alone unless its name
// has that form, it is a real folder owned by this user, its owner is gone (no
// process with that pid and start time) and nobody holds its lock.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace kdet {

// A fresh private folder under $TMPDIR (or /tmp), removed with its contents
// when the object goes. Throws Error naming the base folder when it cannot be made.
class TempDir {
public:
  // `tag` says what the folder is for ("run", "probe", "cache-verify"): [a-z-] only.
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return m_path; }

private:
  std::string m_path;
  int m_lock_fd = -1;
};

// The folder temporary folders go in: $TMPDIR when set and not empty, else /tmp.
std::string temp_base();

// Removes the folders under temp_base() that kdet processes now gone left
// behind (see above), never following a link. Returns how many it removed.
// Never throws.
size_t sweep_stale_temp_dirs() noexcept;

} // namespace kdet
