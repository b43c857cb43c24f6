//===- util/folder_stock.hpp - empty folders kept for the next one to need one ===//
//
// A run of kdet gets folders of its own at new random paths (its working folder, TMPDIR, the
// folder of its input's name) and leaves them after one compile. Making a folder and removing
// it cost a new inode and a freed block each (tens of microseconds on ext4, in the one thread
// that drives every run); moving an empty folder to its new name costs one rename. A stock
// keeps the folders given back, and make() renames one to the path asked for, after checking
// that it is still the folder it made (same inode, owner and mode), empty, and no link; with
// its times set to now, it is then what mkdir would have made there. A folder that fails a
// check is removed and a new one made.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kdet {

class TempDir;

class FolderStock {
public:
  // `park`: spares whose folder goes (leave) wait in a private temporary folder of the stock's
  // own for the next user; without it they go with that folder.
  explicit FolderStock(bool park = false);
  ~FolderStock();
  FolderStock(const FolderStock&) = delete;
  FolderStock& operator=(const FolderStock&) = delete;

  // Makes an empty folder at `path` (mkdir -p where no spare fits); throws Error naming it.
  void make(const std::string& path);
  // `path` is no longer needed: kept as a spare if make() made it (up to a bound), else removed.
  void give_back(const std::string& path) noexcept;
  // The folder `dir` is about to be removed: the spares in it move to the park, or are dropped.
  void leave(const std::string& dir) noexcept;
  // Spares held now (for tests).
  size_t spares() const;
  // Folders made by renaming a spare, and by mkdir, so far (for tests and measurements).
  uint64_t reused() const;
  uint64_t made() const;

  // Spares kept at most; more given back are removed.
  static constexpr size_t k_max_spares = 256;

private:
  // A folder this stock made: where it is, and what must not have changed for it to be reused.
  struct Folder {
    std::string path;
    uint64_t dev = 0, ino = 0;
    unsigned mode = 0, uid = 0, gid = 0;
    timespec mtime{};         // as this stock set it (stamp_now)
    bool exact_times = false; // its file system kept that time to the nanosecond
  };
  static timespec stamp_now();
  bool reuse(Folder& spare, const std::string& path) const;

  mutable std::mutex m_mutex;
  std::vector<Folder> m_spares; // given back, in order (the last one is taken first)
  std::vector<Folder> m_out;    // made and not given back yet
  std::unique_ptr<TempDir> m_park;
  uint64_t m_parked = 0, m_reused = 0, m_made = 0;
};

} // namespace kdet
