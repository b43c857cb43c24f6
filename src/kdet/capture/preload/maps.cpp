//===- capture/preload/maps.cpp - the files mapped into a pipeline's process -===//
//
// A compiler built into another library (an LLVM with the NVPTX target inside
// libtriton, XLA or llvmlite; a libNVVM or PTX compiler linked into a DSL's own
// DSO) makes no call kdet can interpose. So that kdet can name such compilers
// instead of staying silent about them, each process writes the files it has
// mapped executable, RAW/maps/PID-N.maps, once at exit (a destructor), at its
// first recorded compile, and before each command compile it starts (the exec
// wrappers: the process that ran ptxas had the PTX's maker mapped, and a worker
// that ends with _exit runs no destructor). kdet classifies each file
// (capture/inprocess.cpp).
//
// Stack only, no heap (the exec wrappers may run in a vfork child): /proc/self/maps
// is read in chunks, each (device, inode) written once, to a file opened with
// O_EXCL, written and closed in one call.
//
//   kdet-maps 1 PID
//   MAJ:MIN INODE PATH        one line per file, as /proc/self/maps gives them
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet_capture {

namespace {

std::atomic<unsigned> g_serial{0};
std::atomic<int> g_first_compile_pid{0};

// A line to write, built on the stack.
struct Out {
  char buf[8192];
  size_t n = 0;
  int fd;
  const struct stat& st;
  bool ok = true;
  Out(int f, const struct stat& s) : fd(f), st(s) {}
  unsigned long long written = 0;
  void flush() {
    // Never past the pipeline's file size limit: a write there raises SIGXFSZ in its process.
    if (n && ok) ok = fits_size_limit(written + n) && write_checked(fd, st, buf, n);
    written += n;
    n = 0;
  }
  void add(const char* s, size_t len) {
    if (len > sizeof buf) return;
    if (n + len > sizeof buf) flush();
    std::memcpy(buf + n, s, len);
    n += len;
  }
};

size_t put_num(char* out, unsigned long long v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; ++i)
    out[i] = tmp[n - 1 - i];
  return n;
}

// One line of /proc/self/maps: "START-END PERMS OFFSET MAJ:MIN INODE   PATH". Writes
// "MAJ:MIN INODE PATH\n" for an executable mapping of a file not written yet.
void take_line(const char* line, size_t len, Out& out, unsigned long long (*seen)[2], size_t& nseen,
               size_t cap) {
  const char* f[6] = {};
  size_t fl[6] = {};
  size_t i = 0;
  for (int k = 0; k < 6 && i < len; ++k) {
    while (i < len && line[i] == ' ')
      ++i;
    f[k] = line + i;
    size_t start = i;
    if (k == 5) {
      i = len; // the path keeps its spaces
    } else {
      while (i < len && line[i] != ' ')
        ++i;
    }
    fl[k] = i - start;
  }
  if (!f[5] || fl[5] == 0 || f[5][0] != '/' || fl[1] < 3 || f[1][2] != 'x') return;
  if (fl[5] >= 10 && std::memcmp(f[5] + fl[5] - 10, " (deleted)", 10) == 0) return;
  unsigned long long ino = 0;
  for (size_t k = 0; k < fl[4]; ++k)
    ino = ino * 10 + static_cast<unsigned long long>(f[4][k] - '0');
  unsigned long long dev = 0;
  for (size_t k = 0; k < fl[3]; ++k)
    if (f[3][k] != ':') dev = dev * 131 + static_cast<unsigned char>(f[3][k]);
  for (size_t k = 0; k < nseen; ++k)
    if (seen[k][0] == dev && seen[k][1] == ino) return;
  if (nseen < cap) {
    seen[nseen][0] = dev;
    seen[nseen][1] = ino;
    ++nseen;
  }
  out.add(f[3], fl[3]);
  out.add(" ", 1);
  out.add(f[4], fl[4]);
  out.add(" ", 1);
  out.add(f[5], fl[5]);
  out.add("\n", 1);
}

} // namespace

void write_maps() {
  const char* dir = capture_dir();
  if (!dir) return;
  SignalsHeld held;
  char path[PATH_MAX];
  size_t dl = std::strlen(dir);
  if (dl + 64 >= sizeof path) return;
  std::memcpy(path, dir, dl + 1); // with its NUL
  std::memcpy(path + dl, "/maps", 6);
  ::mkdir(path, 0755); // EEXIST: another process made it
  int fd = -1;
  unsigned long long pid = static_cast<unsigned long long>(::getpid());
  for (int tries = 0; tries < 64 && fd < 0; ++tries) {
    size_t n = dl + 5;
    path[n++] = '/';
    n += put_num(path + n, pid);
    path[n++] = '-';
    n += put_num(path + n, g_serial.fetch_add(1));
    std::memcpy(path + n, ".maps", 6);
    fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno != EEXIST) return;
  }
  struct stat st {};
  if (fd < 0 || !opened_as(fd, path, st)) return;
  int maps = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  struct stat mst {};
  if (maps < 0 || !opened_as(maps, "/proc/self/maps", mst)) {
    close_checked(fd, st);
    return;
  }
  Out out(fd, st);
  char head[64] = "kdet-maps 1 ";
  size_t hn = 12;
  hn += put_num(head + hn, pid);
  head[hn++] = '\n';
  out.add(head, hn);
  constexpr size_t k_seen = 512;
  unsigned long long seen[k_seen][2];
  size_t nseen = 0;
  char chunk[4096];
  char line[PATH_MAX + 128];
  size_t ln = 0;
  bool overlong = false;
  ssize_t got;
  while ((got = ::read(maps, chunk, sizeof chunk)) > 0) {
    for (ssize_t i = 0; i < got; ++i) {
      if (chunk[i] == '\n') {
        if (!overlong) take_line(line, ln, out, seen, nseen, k_seen);
        ln = 0;
        overlong = false;
      } else if (ln < sizeof line) {
        line[ln++] = chunk[i];
      } else {
        overlong = true;
      }
    }
  }
  out.flush();
  close_checked(maps, mst);
  close_checked(fd, st);
}

void write_maps_at_first_compile() {
  int pid = static_cast<int>(::getpid());
  if (g_first_compile_pid.exchange(pid) == pid) return;
  write_maps();
}

namespace {
__attribute__((destructor)) void maps_at_exit() {
  write_maps();
}
} // namespace

} // namespace kdet_capture
