//===- util/folder_stock.cpp - empty folders kept for the next one to need one ===//
#include "kdet/util/folder_stock.hpp"

#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet {

namespace {

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

} // namespace

FolderStock::FolderStock(bool park) {
  if (park) m_park = std::make_unique<TempDir>("folders");
}

FolderStock::~FolderStock() = default;

// A time for a folder's modification and access times: now, to the nanosecond. A folder's
// modification time moves whenever an entry is added or removed, to the time of the kernel's
// last clock tick (or a fine time on newer kernels), never to this very nanosecond again: while
// it still reads this value, nothing was put in the folder or taken out since. Only on a file
// system that keeps nanoseconds (Folder::exact_times): a coarser one would round a later
// change to the same value.
timespec FolderStock::stamp_now() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return t;
}

bool FolderStock::note(Folder& f, const std::string& path) {
  const timespec now = stamp_now();
  const timespec times[2] = {now, now};
  struct stat st {};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0 ||
      ::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return false;
  f.path = path;
  f.dev = static_cast<uint64_t>(st.st_dev);
  f.ino = static_cast<uint64_t>(st.st_ino);
  f.mode = static_cast<unsigned>(st.st_mode & 07777);
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  f.mtime = st.st_mtim;
  f.ctime = st.st_ctim;
  f.size = static_cast<int64_t>(st.st_size);
  f.exact_times = st.st_mtim.tv_sec == now.tv_sec && st.st_mtim.tv_nsec == now.tv_nsec;
  return true;
}

// Whether nothing was done to the folder since the stock noted it (see the header).
bool FolderStock::untouched(const Folder& f) {
  struct stat st {};
  auto same = [](const timespec& a, const timespec& b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
  };
  return f.exact_times && ::fstatat(AT_FDCWD, f.path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode) && st.st_dev == f.dev && st.st_ino == f.ino &&
         (st.st_mode & 07777) == f.mode && st.st_uid == f.uid && st.st_gid == f.gid &&
         st.st_nlink == 2 && st.st_size == f.size && same(st.st_mtim, f.mtime) &&
         same(st.st_ctim, f.ctime);
}

// Moves an untouched folder to `path` (never over an existing one: that stays mkdir's error to
// report) and notes it there; false, and the folder removed, when it was touched or changed on
// the way. The rename moves its change time: noting it again keeps that out of the next check.
bool FolderStock::move_untouched(Folder& f, const std::string& path) {
  if (!untouched(f)) return false;
  if (::renameat2(AT_FDCWD, f.path.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0)
    return false;
  const uint64_t ino = f.ino;
  if (note(f, path) && f.ino == ino) return true;
  remove_tree(path); // moved, but not as it was
  return false;
}

void FolderStock::make(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  while (!m_spares.empty()) {
    Folder f = std::move(m_spares.back());
    m_spares.pop_back();
    if (move_untouched(f, path)) {
      m_out.push_back(std::move(f));
      ++m_reused;
      return;
    }
    remove_tree(f.path); // touched since it was handed out: removed, and made anew below
  }
  if (::mkdir(path.c_str(), 0777) != 0) make_dirs(path); // parents, or the error naming it
  ++m_made;
  // Its times as a reused folder's are (reuse), so that every run's folder looks alike.
  Folder f;
  if (note(f, path)) m_out.push_back(std::move(f)); // else not kept: give_back removes it
}

void FolderStock::give_back(const std::string& path) noexcept {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it =
      std::find_if(m_out.begin(), m_out.end(), [&](const Folder& f) { return f.path == path; });
  if (it == m_out.end() || m_spares.size() >= k_max_spares) {
    if (it != m_out.end()) m_out.erase(it);
    remove_tree(path);
    return;
  }
  try {
    m_spares.push_back(std::move(*it));
  } catch (const std::exception&) {
    remove_tree(path);
  }
  m_out.erase(it);
}

void FolderStock::leave(const std::string& dir) noexcept {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::erase_if(m_out, [&](const Folder& f) { return under(f.path, dir); });
  std::erase_if(m_spares, [&](Folder& f) {
    if (!under(f.path, dir)) return false;
    if (!m_park) return true;
    try {
      return !move_untouched(f, fmt::format("{}/f{}", m_park->path(), ++m_parked));
    } catch (const std::exception&) {
      return true;
    }
  });
}

size_t FolderStock::spares() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_spares.size();
}

uint64_t FolderStock::reused() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_reused;
}

uint64_t FolderStock::made() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_made;
}

} // namespace kdet
