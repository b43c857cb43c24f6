#include "kdet/util/fs.hpp"

#include "kdet/util/error.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <linux/openat2.h>
#include <random>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace kdet {

std::string read_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error::format("cannot read {}: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error::format("cannot read {}: is a directory", path);
  }
  // A device or FIFO may never end (a link to /dev/zero grew kdet until it ran out of memory):
  // inputs, manifests and artifacts are regular files.
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error::format("cannot read {}: {}; kdet reads only regular files", path,
                        S_ISCHR(st.st_mode)    ? "is a character device"
                        : S_ISBLK(st.st_mode)  ? "is a block device"
                        : S_ISFIFO(st.st_mode) ? "is a FIFO"
                        : S_ISSOCK(st.st_mode) ? "is a socket"
                                               : "is not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string data;
  if (st.st_size > 0) data.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw Error::format("cannot read {}: {}", path, std::strerror(e));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

bool read_at(int fd, uint64_t offset, std::string& out, size_t n) {
  out.resize(n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return got == n;
}

bool write_all(int fd, std::string_view data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

void write_file_synced(const std::string& path, std::string_view data, bool exclusive) {
  // O_NOFOLLOW: a link planted at the name is refused rather than written through.
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (exclusive ? O_EXCL : O_TRUNC);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) throw Error::format("cannot create {}: {}", path, std::strerror(errno));
  auto fail = [&](const char* what) {
    int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    throw Error::format("cannot {} {}: {}", what, path, std::strerror(e));
  };
  if (!write_all(fd, data)) fail("write");
  if (::fsync(fd) != 0) fail("sync");
  ::close(fd);
}

namespace {

// A fresh temporary file beside `path`, mode 0644 less the umask (O_EXCL and
// O_NOFOLLOW, so nothing planted at the name is followed).
int make_temp_beside(const std::string& path, std::string& tmp) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = dir + "." + base + ".kdet-" + std::to_string(::getpid()) + "-" +
          std::to_string(counter.fetch_add(1)) + "-" + std::to_string(rng() % 1000000);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Has `fill` write a new temporary file beside `path`, fsyncs it and renames it over `path`.
void replace_atomically(const std::string& path, const std::function<bool(int fd)>& fill,
                        const std::string& what) {
  std::string tmp;
  int fd = make_temp_beside(path, tmp);
  if (fd < 0)
    throw Error::format("{}cannot create a temporary file beside {}: {}", what, path,
                        std::strerror(errno));
  auto fail = [&](const char* doing) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error::format("{}cannot {} {}: {}", what, doing, path, std::strerror(e));
  };
  if (!fill(fd)) fail("write");
  if (::fsync(fd) != 0) fail("sync");
  if (::close(fd) != 0) {
    fd = -1;
    fail("write");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error::format("{}cannot write {}: {}", what, path, std::strerror(e));
  }
}

} // namespace

void write_file_atomic(const std::string& path, std::string_view data) {
  replace_atomically(
      path, [&](int fd) { return write_all(fd, data); }, "");
}

bool names_stdout(const std::string& path) {
  if (path == "-") return true;
  if (path.empty()) return false;
  struct stat named {
  }, out{};
  return ::stat(path.c_str(), &named) == 0 && ::fstat(1, &out) == 0 && named.st_dev == out.st_dev &&
         named.st_ino == out.st_ino;
}

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty() || path == "-") return;
  struct stat lst {};
  struct stat st {};
  if (::lstat(path.c_str(), &lst) == 0) {
    if (::stat(path.c_str(), &st) != 0)
      throw Error::format("{} {}: a link to nothing (kdet writes through links, never replaces "
                          "them)",
                          option, path);
    if (S_ISDIR(st.st_mode))
      throw Error::format("{} {}: is a folder; expected a file, or - for stdout", option, path);
    return;
  }
  std::string parent = absolute_path(path);
  parent = parent.substr(0, parent.rfind('/'));
  if (::stat(parent.empty() ? "/" : parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error::format("{} {}: folder {} does not exist", option, path, parent);
}

void write_output(const std::string& path, std::string_view data, const std::string& option) {
  write_output(
      path, [&](int fd) { return write_all(fd, data); }, option);
}

void write_output(const std::string& path, const std::function<bool(int fd)>& fill,
                  const std::string& option) {
  std::string what = option.empty() ? "" : option + " ";
  if (path == "-") {
    std::fflush(stdout);
    if (!fill(1))
      throw Error::format("{}-: cannot write to stdout: {}", what, std::strerror(errno));
    return;
  }
  if (path.empty()) throw Error::format("{}: expected a file name, or - for stdout", option);
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno != ENOENT) throw Error::format("{}{}: {}", what, path, std::strerror(errno));
    replace_atomically(path, fill, what);
    return;
  }
  if (S_ISREG(lst.st_mode)) {
    replace_atomically(path, fill, what);
    return;
  }
  // A device, FIFO, socket, tty, or a link: write through it in place; never
  // replace it. No O_CREAT (a dangling link is an error, not a new file).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error::format("{}{}: {}", what, path,
                        S_ISLNK(lst.st_mode)
                            ? "a link to nothing (kdet writes through links, never replaces them)"
                            : std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw Error::format("{}{}: is a folder; expected a file, or - for stdout", what, path);
  // /dev/stdout, /dev/stderr, /proc/self/fd/N: write to the descriptor kdet already
  // holds (reopening a pipe another user made is refused to a non-root user).
  for (int fd : {1, 2}) {
    struct stat fst {};
    if (::fstat(fd, &fst) == 0 && fst.st_dev == st.st_dev && fst.st_ino == st.st_ino) {
      std::fflush(fd == 1 ? stdout : stderr);
      if (!fill(fd)) throw Error::format("{}cannot write {}: {}", what, path, std::strerror(errno));
      return;
    }
  }
  int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) ? O_TRUNC : 0);
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw Error::format("{}cannot open {}: {}", what, path, std::strerror(errno));
  if (!fill(fd)) {
    int e = errno;
    ::close(fd);
    throw Error::format("{}cannot write {}: {}", what, path, std::strerror(e));
  }
  if (::close(fd) != 0 && S_ISREG(st.st_mode))
    throw Error::format("{}cannot write {}: {}", what, path, std::strerror(errno));
}

void make_dirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw Error::format("cannot create folder {}: {}", path, ec.message());
}

std::string make_temp_dir(const std::string& prefix) {
  const char* t = std::getenv("TMPDIR");
  std::string base = (t && *t) ? t : "/tmp";
  std::string templ = base + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(templ.data()))
    throw Error::format("cannot create a temporary folder in {}: {}", base, std::strerror(errno));
  return templ;
}

std::optional<FileStamp> file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto ns = [](const timespec& t) {
    return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  };
  return FileStamp{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

void remove_tree(const std::string& path) noexcept {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string current_folder() {
  std::error_code ec;
  auto p = std::filesystem::current_path(ec);
  if (ec)
    throw Error::format("the current folder cannot be read ({}); it may have been removed since "
                        "the shell entered it: cd to a folder that exists and run kdet again",
                        ec.message());
  return p.string();
}

void unlink_in_folder(const std::string& path) noexcept {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return;
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  ::unlinkat(fd, path.c_str() + slash + 1, 0);
  ::close(fd);
}

std::string self_exe() {
  static const std::string path = [] {
    std::error_code ec;
    auto p = std::filesystem::read_symlink(k_self_exe_link, ec);
    if (ec) throw Error::format("cannot resolve {}: {}", k_self_exe_link, ec.message());
    return p.string();
  }();
  return path;
}

std::string find_kdet_library(const std::string& file) {
  std::string dir = self_exe();
  dir = dir.substr(0, dir.find_last_of('/'));
  // KDET_LIBDIR_FROM_BINDIR: the install's private library folder relative to its bin folder.
  for (const std::string& cand : {dir + "/" + file, dir + "/" KDET_LIBDIR_FROM_BINDIR "/" + file})
    if (::access(cand.c_str(), R_OK) == 0) return absolute_path(cand);
  return "";
}

std::string file_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot + 1);
  for (auto& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  if (ec) return path;
  return p.lexically_normal().string();
}

} // namespace kdet

// ---- kdet's own trees ---------------------------------------------------------

namespace kdet {

Fd::~Fd() {
  if (m_fd >= 0) ::close(m_fd);
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = o.release();
  }
  return *this;
}

std::pair<std::string, std::string> split_parent(const std::string& rel) {
  auto slash = rel.find_last_of('/');
  if (slash == std::string::npos) return {"", rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
}

std::string beneath_error(int err) {
  if (err == ELOOP || err == EXDEV)
    return "a link is in the way (kdet never follows links inside its own folders)";
  return std::strerror(err);
}

namespace {

bool plain_components(const std::string& rel) {
  if (rel.empty() || rel.front() == '/') return false;
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t next = rel.find('/', pos);
    if (next == std::string::npos) next = rel.size();
    std::string_view c(rel.data() + pos, next - pos);
    if (c.empty() || c == "." || c == "..") return false;
    pos = next + 1;
  }
  return true;
}

// -1 with errno ELOOP when `name` in `dir_fd` is a link (O_NOFOLLOW|O_DIRECTORY
// says ENOTDIR), else -1 with errno unchanged.
int link_errno(int dir_fd, const std::string& name) {
  int e = errno;
  struct stat st {};
  if (e == ENOTDIR && ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode))
    e = ELOOP;
  errno = e;
  return -1;
}

// The walk used where openat2 is missing: each folder opened with O_NOFOLLOW.
int open_walk(int dir_fd, const std::string& rel, int flags, unsigned mode) {
  auto [parent, leaf] = split_parent(rel);
  int cur = dir_fd;
  Fd held;
  size_t pos = 0;
  while (!parent.empty() && pos <= parent.size()) {
    size_t next = parent.find('/', pos);
    if (next == std::string::npos) next = parent.size();
    std::string c = parent.substr(pos, next - pos);
    int fd = ::openat(cur, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return link_errno(cur, c);
    held = Fd(fd);
    cur = fd;
    pos = next + 1;
  }
  int fd = ::openat(cur, leaf.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  return fd >= 0 ? fd : link_errno(cur, leaf);
}

} // namespace

int open_beneath(int dir_fd, const std::string& rel, int flags, unsigned mode) {
  if (!plain_components(rel)) {
    errno = EINVAL;
    return -1;
  }
  // A FIFO planted where a file is expected would block the open until a writer (or reader)
  // comes, forever; with O_NONBLOCK the open returns and the caller's S_ISREG check refuses it.
  // Regular files ignore the flag.
  if (!(flags & (O_DIRECTORY | O_PATH))) flags |= O_NONBLOCK; // openat2 refuses it with O_PATH
  static std::atomic<bool> no_openat2{false};
  if (!no_openat2.load(std::memory_order_relaxed)) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags | O_NOFOLLOW | O_CLOEXEC);
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = ::syscall(SYS_openat2, dir_fd, rel.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == ENOTDIR)
      return open_walk(dir_fd, rel, flags, mode);     // tells a link (ELOOP) from a file
    if (errno != ENOSYS && errno != EPERM) return -1; // EPERM: a seccomp filter refusing openat2
    no_openat2.store(true, std::memory_order_relaxed);
  }
  return open_walk(dir_fd, rel, flags, mode);
}

int make_dirs_beneath(int dir_fd, const std::string& rel, unsigned mode) {
  if (!plain_components(rel)) {
    errno = EINVAL;
    return -1;
  }
  Fd cur(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.ok()) return -1;
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t next = rel.find('/', pos);
    if (next == std::string::npos) next = rel.size();
    std::string c = rel.substr(pos, next - pos);
    bool made = ::mkdirat(cur.get(), c.c_str(), 0700) == 0;
    if (!made && errno != EEXIST) return -1;
    int fd = ::openat(cur.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return link_errno(cur.get(), c);
    if (made)
      ::fchmod(fd, mode); // exactly `mode` (setgid and group bits included), whatever the umask
    cur = Fd(fd);
    pos = next + 1;
  }
  return cur.release();
}

void write_file_beneath(int dir_fd, const std::string& rel, std::string_view data,
                        const std::string& shown) {
  write_file_beneath(
      dir_fd, rel, [&](int fd) { return write_all(fd, data); }, shown);
}

void write_file_beneath(int dir_fd, const std::string& rel, const std::function<bool(int fd)>& fill,
                        const std::string& shown) {
  auto [parent, leaf] = split_parent(rel);
  Fd dir(parent.empty() ? ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0)
                        : make_dirs_beneath(dir_fd, parent, 0755));
  if (!dir.ok()) throw Error::format("cannot create {}: {}", shown, beneath_error(errno));
  static std::atomic<uint64_t> counter{0};
  std::string tmp = "." + leaf + ".kdet-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter.fetch_add(1));
  Fd fd(
      ::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.ok()) throw Error::format("cannot create {}: {}", shown, beneath_error(errno));
  if (!fill(fd.get()) || ::fsync(fd.get()) != 0 ||
      ::renameat(dir.get(), tmp.c_str(), dir.get(), leaf.c_str()) != 0) {
    int e = errno;
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    throw Error::format("cannot write {}: {}", shown, std::strerror(e));
  }
}

namespace {

void remove_at(int dir_fd, const char* name, int depth) noexcept {
  if (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT) return;
  if (depth > 64) return;
  int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return; // not a folder we can enter (a link was unlinked above)
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  for (const auto& n : names)
    remove_at(::dirfd(d), n.c_str(), depth + 1);
  ::closedir(d);
  ::unlinkat(dir_fd, name, AT_REMOVEDIR);
}

} // namespace

void remove_tree_beneath(int dir_fd, const std::string& rel) noexcept {
  try {
    auto [parent, leaf] = split_parent(rel);
    if (parent.empty()) {
      remove_at(dir_fd, leaf.c_str(), 0);
      return;
    }
    Fd p(open_beneath(dir_fd, parent, O_RDONLY | O_DIRECTORY));
    if (p.ok()) remove_at(p.get(), leaf.c_str(), 0);
  } catch (...) {
  }
}

} // namespace kdet
