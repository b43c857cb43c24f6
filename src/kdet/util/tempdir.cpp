//===- util/tempdir.cpp - kdet's own temporary folders -------------------------===//
#include "kdet/util/tempdir.hpp"

#include "kdet/util/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kdet {

namespace {

// Field 22 of /proc/PID/stat: when the process started, in clock ticks since
// boot. With the pid it names one process for the life of the machine.
std::string start_time(long pid) {
  std::ifstream f(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(f, line)) return {};
  auto close = line.rfind(')'); // the command name may hold spaces and ')'
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return field;
  return {};
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// Splits kdet-TAG-PID-START-XXXXXX; false when `name` is not of that form.
bool parse_name(const std::string& name, long& pid, std::string& start) {
  if (name.rfind("kdet-", 0) != 0) return false;
  auto d3 = name.rfind('-');
  if (d3 == std::string::npos || name.size() - d3 - 1 != 6) return false;
  auto d2 = name.rfind('-', d3 - 1);
  if (d2 == std::string::npos || d2 < 5) return false;
  auto d1 = name.rfind('-', d2 - 1);
  if (d1 == std::string::npos || d1 < 5) return false;
  std::string p = name.substr(d1 + 1, d2 - d1 - 1);
  start = name.substr(d2 + 1, d3 - d2 - 1);
  if (!all_digits(p) || !all_digits(start) || p.size() > 9) return false;
  pid = std::stol(p);
  return pid > 0;
}

// Removes everything inside the folder `dir` (an fd, consumed), never following
// a link: entries are opened relative to their folder with O_NOFOLLOW.
void empty_dir_at(int dir) {
  DIR* d = ::fdopendir(dir);
  if (!d) {
    ::close(dir);
    return;
  }
  while (dirent* e = ::readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) continue;
    if (errno != EISDIR && errno != EPERM) continue;
    int sub = ::openat(::dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    empty_dir_at(sub);
    ::unlinkat(::dirfd(d), e->d_name, AT_REMOVEDIR);
  }
  ::closedir(d);
}

} // namespace

std::string temp_base() {
  const char* t = std::getenv("TMPDIR");
  return (t && *t) ? t : "/tmp";
}

TempDir::TempDir(const std::string& tag) {
  std::string base = temp_base();
  std::string templ =
      fmt::format("{}/kdet-{}-{}-{}-XXXXXX", base, tag, ::getpid(), start_time(::getpid()));
  if (!::mkdtemp(templ.data()))
    throw Error::format("cannot create a temporary folder in {}: {}", base, std::strerror(errno));
  m_path = templ;
  m_lock_fd = ::open(m_path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (m_lock_fd >= 0) ::flock(m_lock_fd, LOCK_EX | LOCK_NB);
}

TempDir::~TempDir() {
  auto slash = m_path.rfind('/');
  int parent = ::open(m_path.substr(0, slash).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent >= 0) {
    std::string name = m_path.substr(slash + 1);
    int dir = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir >= 0) empty_dir_at(dir);
    ::unlinkat(parent, name.c_str(), AT_REMOVEDIR);
    ::close(parent);
  }
  if (m_lock_fd >= 0) ::close(m_lock_fd);
}

size_t sweep_stale_temp_dirs() noexcept {
  size_t removed = 0;
  try {
    int base = ::open(temp_base().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base < 0) return 0;
    DIR* d = ::fdopendir(base);
    if (!d) {
      ::close(base);
      return 0;
    }
    std::vector<std::string> stale;
    while (dirent* e = ::readdir(d)) {
      long pid;
      std::string start;
      if (!parse_name(e->d_name, pid, start)) continue;
      struct stat st {};
      if (::fstatat(base, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
      if (start_time(pid) == start) continue; // its owner still runs
      stale.emplace_back(e->d_name);
    }
    for (const auto& name : stale) {
      int dir = ::openat(base, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (dir < 0) continue;
      struct stat st {};
      // In use when its owner (seen from another PID namespace) holds the lock.
      if (::fstat(dir, &st) != 0 || st.st_uid != ::geteuid() ||
          ::flock(dir, LOCK_EX | LOCK_NB) != 0) {
        ::close(dir);
        continue;
      }
      int contents = ::dup(dir);
      if (contents >= 0) empty_dir_at(contents);
      if (::unlinkat(base, name.c_str(), AT_REMOVEDIR) == 0) ++removed;
      ::close(dir);
    }
    ::closedir(d);
  } catch (...) {
  }
  return removed;
}

} // namespace kdet
