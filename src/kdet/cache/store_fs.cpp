//===- cache/store_fs.cpp - the cache folder beneath v1/, without links ------===//
//
// Store's file-system side: open, list, measure, stage, move, read and write
// paths below DIR/v1, each through an openat beneath v1 that refuses links
// (util/fs open_beneath), each new file created exclusively and fsynced.
// Entries and variants (cache/store.cpp) are built from these.
//
//===----------------------------------------------------------------------===//
#include "kdet/cache/store_fs.hpp"

#include "kdet/cache/store.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <new>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cache {

namespace detail {

// CLOCK_REALTIME in nanoseconds.
int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Reads a regular file of at most `max` bytes (see store_fs.hpp).
bool slurp_fd(Fd fd, std::string& out, uint64_t max, bool* cut) try {
  out.clear();
  if (cut) *cut = false;
  if (!fd.ok()) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max && !cut) {
    errno = EFBIG;
    return false;
  }
  out.reserve(static_cast<size_t>(std::min(size, max)));
  char buf[1 << 16];
  for (;;) {
    // One byte past the bound tells a file that grew while read from one that ends there.
    const uint64_t left = max - out.size();
    const size_t want = left >= sizeof buf ? sizeof buf : static_cast<size_t>(left) + 1;
    ssize_t n = ::read(fd.get(), buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max) {
      out.resize(static_cast<size_t>(max));
      if (cut) {
        *cut = true;
        return true;
      }
      out.clear();
      errno = EFBIG;
      return false;
    }
  }
  return true;
} catch (const std::bad_alloc&) {
  // Within its bound yet more than this machine holds: unreadable, never a kdet crash.
  out.clear();
  out.shrink_to_fit();
  errno = ENOMEM;
  return false;
}

// renameat() that never replaces an existing target. Returns 0, or errno.
int rename_noreplace(int from_dir, const std::string& from, int to_dir, const std::string& to) {
  if (::renameat2(from_dir, from.c_str(), to_dir, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  int e = errno;
  if (e == EINVAL || e == ENOSYS) {
    // A file system without RENAME_NOREPLACE: renaming a folder onto a non-empty
    // folder fails anyway (variant folders are never empty).
    if (::renameat(from_dir, from.c_str(), to_dir, to.c_str()) == 0) return 0;
    e = errno;
  }
  return e == ENOTEMPTY ? EEXIST : e;
}

} // namespace detail

namespace {

std::vector<std::string> list_fd(Fd fd) {
  std::vector<std::string> names;
  if (!fd.ok()) return names;
  DIR* d = ::fdopendir(fd.release());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

// Bytes of the regular files at or under `name` in `dir_fd`, links not followed.
uint64_t bytes_under(int dir_fd, const char* name, int depth) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (S_ISREG(st.st_mode)) return static_cast<uint64_t>(st.st_size);
  if (!S_ISDIR(st.st_mode) || depth > 64) return 0;
  Fd fd(::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) return 0;
  Fd keep(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
  uint64_t total = 0;
  for (const auto& n : list_fd(std::move(fd)))
    total += bytes_under(keep.get(), n.c_str(), depth + 1);
  return total;
}

} // namespace

using detail::now_ns;
using detail::slurp_fd;

Fd Store::open_root(bool create) const {
  if (create) make_dirs(m_dir);
  // Reading never throws: an unreadable cache is a miss (with a warning); writing does.
  Fd dir(
      ::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); // DIR itself is the user's choice
  if (!dir.ok()) {
    std::string msg = fmt::format("cache {}: cannot open: {}", m_dir, std::strerror(errno));
    if (create) throw Error(msg);
    if (errno != ENOENT) warn(msg);
    return {};
  }
  Fd root(create ? make_dirs_beneath(dir.get(), "v1", m_dir_mode)
                 : open_beneath(dir.get(), "v1", O_RDONLY | O_DIRECTORY));
  if (!root.ok()) {
    std::string msg = fmt::format("cache {}: {}", m_root, beneath_error(errno));
    if (create) throw Error(msg);
    if (errno != ENOENT) warn(msg);
  }
  return root;
}

Fd Store::open_dir(const std::string& rel, bool create) const {
  Fd root = open_root(create);
  if (!root.ok()) return {};
  Fd d(create ? make_dirs_beneath(root.get(), rel, m_dir_mode)
              : open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  if (!d.ok()) {
    int e = errno;
    if (create)
      throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(e));
    if (e == ELOOP || e == EXDEV || e == ENOTDIR)
      warn(fmt::format("{}/{}: {}", m_root, rel, beneath_error(e)));
    if (create)
      throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(e));
    errno = e;
  }
  return d;
}

void Store::write_new(int dir_fd, const std::string& name, std::string_view data,
                      const std::string& rel) const {
  Fd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 m_file_mode));
  if (!fd.ok())
    throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(errno));
  if (m_shared) ::fchmod(fd.get(), m_file_mode);
  if (!write_all(fd.get(), data) || ::fsync(fd.get()) != 0) {
    int e = errno;
    ::unlinkat(dir_fd, name.c_str(), 0);
    throw Error::format("cache: cannot write {}/{}: {}", m_root, rel, std::strerror(e));
  }
}

Fd Store::open_append(int root_fd, const std::string& rel) const {
  Fd fd(open_beneath(root_fd, rel, O_WRONLY | O_CREAT | O_APPEND, m_append_mode));
  if (!fd.ok()) return fd;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    errno = EINVAL;
    return Fd();
  }
  // O_CREAT's mode passes through the umask; another member's file keeps the mode they gave it.
  if (m_shared && st.st_uid == ::geteuid()) ::fchmod(fd.get(), m_append_mode);
  return fd;
}

Staging Store::make_staging() const {
  static std::atomic<uint64_t> counter{0};
  Fd tmp = open_dir("tmp", true);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Made under a dot name, locked, then renamed into view: gc never sees an unlocked live folder.
    std::string name = fmt::format("{}.{}.{:x}", ::getpid(), counter.fetch_add(1), rng());
    std::string hidden = "." + name;
    if (::mkdirat(tmp.get(), hidden.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      throw Error::format("cache: cannot create {}/tmp/{}: {}", m_root, hidden,
                          std::strerror(errno));
    }
    // gc may remove the folder before the lock is taken (it cannot tell an unlocked newborn
    // from a dead writer's): then the open or the rename finds it gone, and we try again.
    int lock = ::openat(tmp.get(), hidden.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (lock < 0 && errno == ENOENT) continue;
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0 ||
        ::renameat(tmp.get(), hidden.c_str(), tmp.get(), name.c_str()) != 0) {
      int e = errno;
      if (lock >= 0) ::close(lock);
      if (e == ENOENT) continue;
      remove_tree_beneath(tmp.get(), hidden);
      throw Error::format("cache: cannot create a staging folder in {}/tmp: {}", m_root,
                          std::strerror(e));
    }
    ::fchmod(lock, m_dir_mode & 0777);
    return Staging(m_root + "/tmp/" + name, "tmp/" + name, lock);
  }
  throw Error::format("cache: cannot create a staging folder in {}/tmp", m_root);
}

std::vector<std::string> Store::list(const std::string& rel) const {
  Fd d = open_dir(rel, false);
  return list_fd(std::move(d));
}

uint64_t Store::tree_bytes(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return 0;
  if (rel.empty() || rel == ".") {
    uint64_t total = 0;
    Fd keep(::fcntl(root.get(), F_DUPFD_CLOEXEC, 0));
    for (const auto& n : list_fd(std::move(root)))
      total += bytes_under(keep.get(), n.c_str(), 0);
    return total;
  }
  auto [parent, leaf] = split_parent(rel);
  Fd p(parent.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                      : open_beneath(root.get(), parent, O_RDONLY | O_DIRECTORY));
  return p.ok() ? bytes_under(p.get(), leaf.c_str(), 0) : 0;
}

int64_t Store::mtime(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return 0;
  Fd fd(open_beneath(root.get(), rel, O_PATH));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec);
}

bool Store::exists(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  auto [parent, leaf] = split_parent(rel);
  Fd p(parent.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                      : open_beneath(root.get(), parent, O_RDONLY | O_DIRECTORY));
  struct stat st {};
  return p.ok() && ::fstatat(p.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool Store::is_dir(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  return fd.ok();
}

bool Store::remove_staging(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  // The writer holds the lock from before the folder has its name until it is done, so a
  // lock taken here means nobody writes there; holding it while removing keeps a writer
  // that is just being born from taking it (its rename then fails, and it makes another).
  if (fd.ok() && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return false;
  remove_tree_beneath(root.get(), rel); // a file or a link too: nobody's staging folder
  return true;
}

void Store::remove(const std::string& rel) const {
  Fd root = open_root(false);
  if (root.ok()) remove_tree_beneath(root.get(), rel);
}

bool Store::move(const std::string& from, const std::string& to) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  auto [fp, fl] = split_parent(from);
  auto [tp, tl] = split_parent(to);
  Fd a(fp.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                  : open_beneath(root.get(), fp, O_RDONLY | O_DIRECTORY));
  Fd b(tp.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                  : open_beneath(root.get(), tp, O_RDONLY | O_DIRECTORY));
  if (!a.ok() || !b.ok()) {
    if (errno == ELOOP || errno == EXDEV)
      warn(fmt::format("{}/{}: {}", m_root, a.ok() ? tp : fp, beneath_error(errno)));
    return false;
  }
  return ::renameat(a.get(), fl.c_str(), b.get(), tl.c_str()) == 0;
}

bool Store::read(const std::string& rel, std::string& out, uint64_t max, bool* cut) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  // O_NONBLOCK: a FIFO a member planted in place of a file must not hang the reader.
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_NONBLOCK));
  if (!fd.ok() && (errno == ELOOP || errno == EXDEV))
    warn(fmt::format("{}/{}: {}; ignored", m_root, rel, beneath_error(errno)));
  return slurp_fd(std::move(fd), out, max, cut);
}

bool Store::scan(const std::string& rel, const std::function<void(std::string_view)>& chunk) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_NONBLOCK));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    chunk(std::string_view(buf, static_cast<size_t>(n)));
  }
}

bool Store::write_atomic(const std::string& rel, std::string_view data) const {
  try {
    auto [parent, leaf] = split_parent(rel);
    Fd d = parent.empty() ? open_root(true) : open_dir(parent, true);
    std::string tmp = fmt::format(".{}.{}.{}", leaf, ::getpid(), now_ns());
    write_new(d.get(), tmp, data, rel);
    if (::renameat(d.get(), tmp.c_str(), d.get(), leaf.c_str()) != 0) {
      int e = errno;
      ::unlinkat(d.get(), tmp.c_str(), 0);
      throw Error::format("cache: cannot write {}/{}: {}", m_root, rel, std::strerror(e));
    }
    return true;
  } catch (const Error& e) {
    warn(e.what());
    return false;
  }
}

} // namespace kdet::cache
