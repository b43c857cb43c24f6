//===- util/stream.cpp - bounded reads of files kdet did not write ----------===//
#include "kdet/util/stream.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kdet {

std::string describe_file_type(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

StreamResult stream_regular_file(const std::string& path, uint64_t max_size,
                                 const std::function<void(std::string_view)>& sink) {
  StreamResult r;
  auto unreadable = [&](int e) {
    r.status = StreamResult::Status::unreadable;
    r.what = std::strerror(e);
    return r;
  };
  // Look before opening: opening a device or FIFO can block or have effects.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return unreadable(errno);
  if (!S_ISREG(st.st_mode)) {
    r.status = StreamResult::Status::not_regular;
    r.what = describe_file_type(st.st_mode);
    return r;
  }
  if (static_cast<uint64_t>(st.st_size) > max_size) {
    r.status = StreamResult::Status::too_large;
    r.size = static_cast<uint64_t>(st.st_size);
    return r;
  }
  // O_NONBLOCK: if the path was swapped for a FIFO in between, open must not hang.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return unreadable(errno);
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    ::close(fd);
    r.status = StreamResult::Status::not_regular;
    r.what = describe_file_type(fst.st_mode);
    return r;
  }
  std::vector<char> buf(k_stream_chunk);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return unreadable(e);
    }
    if (n == 0) break;
    if (r.size + static_cast<uint64_t>(n) > max_size) { // it grew while we read
      ::close(fd);
      r.status = StreamResult::Status::too_large;
      r.size += static_cast<uint64_t>(n);
      return r;
    }
    r.size += static_cast<uint64_t>(n);
    sink(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  ::close(fd);
  return r;
}

void copy_file_atomic(const std::string& src, const std::string& dest) {
  int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw Error::format("cannot read {}: {}", src, std::strerror(errno));
  std::string tmp = dest + ".tmp." + std::to_string(::getpid());
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    int e = errno;
    ::close(in);
    throw Error::format("cannot create {}: {}", tmp, std::strerror(e));
  }
  auto fail = [&](const std::string& what, int e) {
    ::close(in);
    ::close(out);
    ::unlink(tmp.c_str());
    throw Error::format("cannot {}: {}", what, std::strerror(e));
  };
  std::vector<char> buf(k_stream_chunk);
  for (;;) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read " + src, errno);
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(out, buf.data() + off, static_cast<size_t>(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("write " + tmp, errno);
      off += w;
    }
  }
  if (::fsync(out) != 0) fail("sync " + tmp, errno);
  ::close(in);
  ::close(out);
  if (::rename(tmp.c_str(), dest.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error::format("cannot write {}: {}", dest, std::strerror(e));
  }
}

std::optional<uint64_t> parse_byte_size(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
    t.remove_suffix(1);
  if (t.size() > 1 && (t.back() == 'B' || t.back() == 'b')) t.remove_suffix(1);
  int shift = 0;
  if (!t.empty()) {
    switch (t.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      break;
    }
    if (shift) t.remove_suffix(1);
  }
  if (t.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (v == 0 || v > (UINT64_MAX >> shift)) return std::nullopt;
  return v << shift;
}

OwnedFile::~OwnedFile() {
  if (m_remove) ::unlink(m_path.c_str());
}

} // namespace kdet
