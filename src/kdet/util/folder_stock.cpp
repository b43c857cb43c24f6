//===- util/folder_stock.cpp - empty folders kept for the next one to need one ===//
#include "kdet/util/folder_stock.hpp"

#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kdet {

namespace {

// Whether the folder open at `fd` holds nothing but "." and "..".
bool empty_folder(int fd) {
  alignas(8) char buf[1024];
  long got = 0;
  while ((got = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      unsigned short reclen = 0;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen); // linux_dirent64.d_reclen
      const char* name = buf + off + 19;                   // linux_dirent64.d_name
      off += reclen;
      if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) return false;
    }
  }
  return got == 0;
}

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

// The spare is renamed to `path` only when it is the folder this stock made (not a link, not
// replaced, not chmod'ed or chown'ed) and nothing was left in it; its times then become a new
// folder's. Never over an existing `path`: that stays mkdir's error to report.
bool FolderStock::reuse(Folder& spare, const std::string& path) const {
  struct stat st {};
  if (::fstatat(AT_FDCWD, spare.path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISDIR(st.st_mode) || st.st_dev != spare.dev || st.st_ino != spare.ino ||
      (st.st_mode & 07777) != spare.mode || st.st_uid != spare.uid || st.st_gid != spare.gid ||
      st.st_nlink != 2)
    return false;
  const bool untouched = spare.exact_times && st.st_mtim.tv_sec == spare.mtime.tv_sec &&
                         st.st_mtim.tv_nsec == spare.mtime.tv_nsec;
  if (!untouched) { // written into since: empty again?
    const int fd = ::open(spare.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat again {};
    const bool empty = ::fstat(fd, &again) == 0 && again.st_ino == spare.ino && empty_folder(fd);
    ::close(fd);
    if (!empty) return false;
  }
  if (::renameat2(AT_FDCWD, spare.path.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0)
    return false;
  spare.mtime = stamp_now();
  const timespec times[2] = {spare.mtime, spare.mtime};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) spare.mtime = {};
  return true;
}

void FolderStock::make(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  while (!m_spares.empty()) {
    Folder f = std::move(m_spares.back());
    m_spares.pop_back();
    if (reuse(f, path)) {
      f.path = path;
      m_out.push_back(std::move(f));
      ++m_reused;
      return;
    }
    remove_tree(f.path); // touched since it was given back: made anew below
  }
  if (::mkdir(path.c_str(), 0777) != 0) make_dirs(path); // parents, or the error naming it
  ++m_made;
  // Its times as a reused folder's are (reuse), so that every run's folder looks alike.
  const timespec now = stamp_now();
  const timespec times[2] = {now, now};
  struct stat st {};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0 ||
      ::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return; // not kept: give_back removes it
  const bool exact = st.st_mtim.tv_sec == now.tv_sec && st.st_mtim.tv_nsec == now.tv_nsec;
  m_out.push_back({path, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<unsigned>(st.st_mode & 07777), st.st_uid, st.st_gid, st.st_mtim,
                   exact});
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
      std::string to = fmt::format("{}/f{}", m_park->path(), ++m_parked);
      if (::renameat2(AT_FDCWD, f.path.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0)
        return true;
      f.path = std::move(to);
      return false;
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
