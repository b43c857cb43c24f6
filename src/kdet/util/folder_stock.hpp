//===- util/folder_stock.hpp - empty folders kept for the next one to need one ===//
//
// A run of kdet gets folders of its own at new random paths (its working folder, TMPDIR, the
// folder of its input's name) and leaves them after one compile. Making a folder and removing
// it cost a new inode and a freed block each (tens of microseconds on ext4, in the one thread
// that drives every run); moving an empty folder to its new name costs one rename. A stock
// keeps the folders given back, and make() renames one to the path asked for, only when nothing
// was done to it since it was handed out: the same inode, owner, mode, size and link count, and
// the modification and change times kdet left it with. A folder's change time moves with every
// entry made or removed in it and every change to the folder itself (its times, mode, extended
// attributes and ACLs, attribute flags), and no program can set it back; so a reused folder is
// empty and carries nothing a compiler left, and with its times set to now it is what mkdir
// would have made there. A folder touched in any way is removed and a new one made.
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
    timespec ctime{};         // its change time once the stock was done with it
    int64_t size = 0;         // its size then (a folder does not shrink when emptied)
    bool exact_times = false; // its file system kept that time to the nanosecond
  };
  static timespec stamp_now();
  static bool untouched(const Folder& f);
  static bool move_untouched(Folder& f, const std::string& path);
  // Sets the folder at `path` to the stock's times and notes what it is now; false when it is
  // not a folder the stock can keep.
  static bool note(Folder& f, const std::string& path);

  mutable std::mutex m_mutex;
  std::vector<Folder> m_spares; // given back, in order (the last one is taken first)
  std::vector<Folder> m_out;    // made and not given back yet
  std::unique_ptr<TempDir> m_park;
  uint64_t m_parked = 0, m_reused = 0, m_made = 0;
};

} // namespace kdet
