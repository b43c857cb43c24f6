//===- util/hash_memo.cpp - content hashes of large files, remembered ---------===//
#include "kdet/util/hash_memo.hpp"

#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet {

namespace {

constexpr const char* k_magic = "kdet-file-hash 1";
constexpr int64_t k_settle_ns = 2'000'000'000; // changed within this: not remembered

int64_t ns(const timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// What an entry records of the file: size, mtime, ctime.
std::string stamp(const struct stat& st) {
  return fmt::format("{} {} {}", st.st_size, ns(st.st_mtim), ns(st.st_ctim));
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && stamp(a) == stamp(b);
}

// The entry's text, or "" when it is absent or not one kdet can trust.
std::string read_entry(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      st.st_size < 256) {
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) text.assign(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

// The memo folder, made 0700 if missing; false when it is not a folder of this user's.
bool usable_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    try {
      make_dirs(dir);
    } catch (...) {
      return false;
    }
    ::chmod(dir.c_str(), 0700);
    if (::lstat(dir.c_str(), &st) != 0) return false;
  }
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0;
}

} // namespace

std::string hash_memo_dir() {
  if (const char* v = std::getenv("KDET_HASH_MEMO"))
    return std::string(v) == "off" ? std::string() : std::string(v);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
    return std::string(x) + "/kdet/file-hashes";
  if (const char* h = std::getenv("HOME"); h && *h == '/')
    return std::string(h) + "/.cache/kdet/file-hashes";
  return {};
}

std::string remembered_file_hash(const std::string& path, const std::string& memo_dir) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return remembered_file_hash(path, memo_dir, ns(now));
}

std::string remembered_file_hash(const std::string& path, const std::string& memo_dir,
                                 int64_t now_ns) {
  struct stat before {};
  if (memo_dir.empty() || ::stat(path.c_str(), &before) != 0 || !S_ISREG(before.st_mode))
    return hash_file(path);
  const std::string entry =
      fmt::format("{}/{:x}-{:x}", memo_dir, static_cast<uint64_t>(before.st_dev),
                  static_cast<uint64_t>(before.st_ino));
  const std::string want = fmt::format("{} {} ", k_magic, stamp(before));
  if (std::string text = read_entry(entry); text.size() == want.size() + 33 &&
                                            text.compare(0, want.size(), want) == 0 &&
                                            text.back() == '\n') {
    std::string hash = text.substr(want.size(), 32);
    if (hash.find_first_not_of("0123456789abcdef") == std::string::npos) return hash;
  }

  std::string hash = hash_file(path);
  struct stat after {};
  const int64_t changed = std::max(ns(before.st_mtim), ns(before.st_ctim));
  if (::stat(path.c_str(), &after) == 0 && same_file(before, after) &&
      now_ns - changed > k_settle_ns && usable_dir(memo_dir)) {
    try {
      write_file_atomic(entry, want + hash + "\n");
    } catch (...) {
      // Remembering is an optimisation: a full disk or a read-only home costs a re-hash.
    }
  }
  return hash;
}

} // namespace kdet
