//===- util/file_lock.cpp - one writer per file, whatever name it is given ----===//
#include "kdet/util/file_lock.hpp"

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace kdet {

namespace {

// The name under which process `pid` has the file (dev, ino) open, or "".
std::string open_name(long pid, dev_t dev, ino_t ino) {
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return {};
  std::string found;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string fd = dir + "/" + e->d_name;
    struct stat st {};
    if (::stat(fd.c_str(), &st) != 0 || st.st_dev != dev || st.st_ino != ino) continue;
    char target[4096];
    ssize_t n = ::readlink(fd.c_str(), target, sizeof target - 1);
    if (n > 0) found.assign(target, static_cast<size_t>(n));
    break;
  }
  ::closedir(d);
  return found;
}

} // namespace

LockHolder flock_holder(dev_t dev, ino_t ino) {
  // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF"; waiters read "1: -> FLOCK ...".
  std::ifstream locks("/proc/locks");
  std::string line;
  LockHolder h;
  long by_inode = 0;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string id, type, advisory, mode, where;
    long pid = 0;
    if (!(in >> id >> type) || type == "->" || type != "FLOCK") continue;
    if (!(in >> advisory >> mode >> pid >> where)) continue;
    unsigned maj = 0, min = 0;
    unsigned long long inode = 0;
    if (std::sscanf(where.c_str(), "%x:%x:%llu", &maj, &min, &inode) != 3 || inode != ino) continue;
    if (makedev(maj, min) == dev) {
      h.pid = pid;
      break;
    }
    by_inode = pid; // overlay and similar file systems show another device number
  }
  if (!h.pid) h.pid = by_inode;
  if (h.pid > 0) h.path = open_name(h.pid, dev, ino);
  return h;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

} // namespace kdet
