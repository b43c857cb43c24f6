#include "kdet/util/fs.hpp"

#include "kdet/util/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet {

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error::format("cannot read {}: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error::format("cannot read {}: is a directory", path);
  }
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

void write_file_synced(const std::string& path, std::string_view data, bool exclusive) {
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) throw Error::format("cannot create {}: {}", path, std::strerror(errno));
  auto fail = [&](const char* what) {
    int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    throw Error::format("cannot {} {}: {}", what, path, std::strerror(e));
  };
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write");
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) fail("sync");
  ::close(fd);
}

void write_file_atomic(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  write_file_synced(tmp, data, false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error::format("cannot write {}: {}", path, std::strerror(e));
  }
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

void remove_tree(const std::string& path) noexcept {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error::format("cannot resolve /proc/self/exe: {}", ec.message());
  return p.string();
}

std::string file_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot + 1);
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  if (ec) return path;
  return p.lexically_normal().string();
}

} // namespace kdet
