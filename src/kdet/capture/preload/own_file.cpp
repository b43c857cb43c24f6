//===- capture/preload/own_file.cpp - the preload's files, checked at each write ===//
//
// The descriptor table is the pipeline's: it may close every descriptor
// (os.closerange, close_range), dup2 over them, or open files that get the
// numbers the preload held. A number is therefore never trusted: each file is
// kept with the device and inode it was created with and its absolute path
// under the capture folder, and every entry goes through own_append, which
//  1. fstats the descriptor and, when it no longer names that file, opens the
//     path again (checked to be the same inode; the number found in its place
//     is the pipeline's and is neither written nor closed), or starts a new file;
//  2. writes the entry in one writev;
//  3. checks that the file grew by exactly the bytes written (only this process
//     writes it, under the file's lock): proof that the entry landed in it.
// Descriptors are kept near the top of the soft limit (F_DUPFD_CLOEXEC), away
// from the low numbers a program reuses; under a soft limit of 128 or less, where
// there is no room above the pipeline's, none is kept between entries (each entry
// opens the file by its path and closes it). A descriptor just opened is adopted
// only when it and the path name one file. Every step runs with the thread's
// signals blocked, so a signal handler (which may dup2 over any number) never runs
// between a check and a write, and a single-threaded pipeline never receives an
// entry. What is left: another thread of the pipeline that closes the preload's
// descriptor and puts a file of its own on that very number between steps 1 and 2
// (one system call apart) would receive that one entry; step 3 sees it, writes a
// "stray" note naming the file, and writes the entry again where it belongs.
//
// Notes (RAW/notes/PID.note) say what could not be recorded; write_note uses
// the stack only and opens, writes and closes its file in one call, so the exec
// wrappers can call it in a vfork child.
//
// A capture folder that cannot take more never harms the pipeline's process: a
// failed write is a loss noted, counted or marked by name (count_lost); the one
// shared mapping (the .lost page) is mapped only once its blocks are reserved, on a
// file system that stores into them in place (no SIGBUS); and no file is written past
// the pipeline's file size limit (no SIGXFSZ).
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

namespace kdet_capture {

namespace {

constexpr char k_hex[] = "0123456789abcdef";

void map_lost_page(const char* dir, pid_t pid);

// A bounded string on the stack (no heap: usable in a vfork child).
struct Line {
  char* p;
  size_t cap, n = 0;
  Line(char* buf, size_t size) : p(buf), cap(size) { p[0] = 0; }
  void add(const char* s, size_t len) {
    for (size_t i = 0; i < len && n + 1 < cap; ++i)
      p[n++] = s[i];
    p[n] = 0;
  }
  void add(const char* s) { add(s, std::strlen(s)); }
  void add_num(unsigned long long v) {
    char t[24];
    int i = 24;
    do {
      t[--i] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && i > 0);
    add(t + i, static_cast<size_t>(24 - i));
  }
  void add_hex(const char* s, size_t len) {
    add("x", 1);
    for (size_t i = 0; i < len && n + 3 < cap; ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      p[n++] = k_hex[c >> 4];
      p[n++] = k_hex[c & 15];
    }
    p[n] = 0;
  }
};

// The lowest number a kept descriptor moves to: 64 below the soft limit, at most
// 1024 (a higher descriptor would grow the table that every fork copies).
int high_floor() {
  rlimit rl{};
  rlim_t top = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top) top = rl.rlim_cur;
  return top > 128 ? static_cast<int>(top - 64) : 3;
}

// True when the soft limit leaves no room above the pipeline's descriptors: then
// the preload keeps none between entries.
bool tight_limit() {
  return high_floor() <= 3;
}

int move_high(int fd) {
  int hi = ::fcntl(fd, F_DUPFD_CLOEXEC, high_floor());
  if (hi < 0) return fd;
  ::close(fd);
  return hi;
}

bool same_file(const struct stat& st, const OwnFile& f) {
  return st.st_dev == f.dev && st.st_ino == f.ino;
}

// True when f.fd still names the file `f` created; `st` gets its status.
bool still_ours(const OwnFile& f, struct stat& st) {
  return f.fd >= 0 && ::fstat(f.fd, &st) == 0 && same_file(st, f);
}

// Opens f.path again; true (f.fd set) when it is still the same file.
bool reopen(OwnFile& f, struct stat& st) {
  if (!f.path[0]) return false;
  int fd = ::open(f.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  if (!opened_as(fd, f.path, st)) return false; // the number is the pipeline's now
  if (!same_file(st, f)) {
    ::close(fd);
    return false;
  }
  f.fd = move_high(fd);
  return true;
}

// Creates DIR/SUB/PID-NONCE.EXT for f; false (errno kept) when it cannot.
bool create(OwnFile& f, const char* dir, struct stat& st) {
  f.fd = -1;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  Line p(f.path, sizeof f.path);
  p.add(dir);
  p.add("/");
  p.add(f.sub);
  p.add("/");
  p.add_num(static_cast<unsigned long long>(f.pid));
  p.add("-");
  unsigned long long nonce = static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
                             static_cast<unsigned long long>(ts.tv_nsec);
  char t[17];
  for (int i = 15; i >= 0; --i, nonce >>= 4)
    t[i] = k_hex[nonce & 15];
  t[16] = 0;
  p.add(t);
  p.add(".");
  p.add(f.ext);
  if (p.n + 1 >= p.cap) {
    f.path[0] = 0;
    errno = ENAMETOOLONG;
    return false;
  }
  int fd = ::open(f.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    f.path[0] = 0;
    return false;
  }
  if (!opened_as(fd, f.path, st)) {
    // The number is the pipeline's now (not closed); the file made stays, empty.
    f.path[0] = 0;
    errno = EBADF;
    return false;
  }
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.fd = move_high(fd);
  map_lost_page(dir, f.pid);
  return true;
}

// Names what the descriptor `fd` now is (its /proc/self/fd link) in `out`.
void describe_fd(int fd, char* out, size_t cap) {
  char link[64];
  Line l(link, sizeof link);
  l.add("/proc/self/fd/");
  l.add_num(static_cast<unsigned long long>(fd));
  ssize_t n = ::readlink(link, out, cap - 1);
  out[n > 0 ? n : 0] = 0;
}

void note_stray(int fd, size_t bytes) {
  char what[PATH_MAX], text[PATH_MAX + 128];
  describe_fd(fd, what, sizeof what);
  Line t(text, sizeof text);
  t.add("an entry of ");
  t.add_num(bytes);
  t.add(" bytes may have gone to descriptor ");
  t.add_num(static_cast<unsigned long long>(fd));
  t.add(" (");
  t.add(what[0] ? what : "closed");
  t.add("), which the pipeline had put in the place of a capture file");
  write_note("stray", text, t.n);
}

// A page of counters mapped from RAW/notes/PID-NONCE.lost when the process first
// records: what it could not even note (no descriptor free, no room for a note) is
// counted there, through memory, which no descriptor game reaches.
struct LostPage {
  char magic[16]; // "kdet-lost 1\n"
  unsigned long long pid;
  unsigned long long counts[k_lost_kinds];
};
LostPage* g_lost_page = nullptr;
pid_t g_lost_pid = 0;
pthread_mutex_t g_lost_lock = PTHREAD_MUTEX_INITIALIZER;

// True when a store through a shared mapping of `fd`'s file, whose blocks fallocate
// reserved, can never fault for want of space: file systems that write such blocks in
// place. A copy-on-write or remote one (btrfs, ZFS, NFS, FUSE, overlay over any of
// them) may need new space at the store, and without it the kernel raises SIGBUS in
// the pipeline's process: there the page is not mapped.
bool stores_in_place(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
  case 0x01021994ul: // tmpfs: fallocate allocates the pages
  case 0xEF53ul:     // ext2, ext3, ext4
  case 0x58465342ul: // XFS (a file never shared by reflink is written in place)
    return true;
  default:
    return false;
  }
}

void map_lost_page(const char* dir, pid_t pid) {
  pthread_mutex_lock(&g_lost_lock);
  if (g_lost_pid == pid) {
    pthread_mutex_unlock(&g_lost_lock);
    return;
  }
  g_lost_pid = pid;
  g_lost_page = nullptr; // a parent's page (after fork) counts the parent's losses only
  char path[PATH_MAX];
  Line p(path, sizeof path);
  p.add(dir);
  p.add("/notes");
  ::mkdir(path, 0755);
  p.add("/");
  p.add_num(static_cast<unsigned long long>(pid));
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  p.add("-");
  p.add_num(static_cast<unsigned long long>(ts.tv_nsec));
  p.add(".lost");
  SignalsHeld held;
  int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  struct stat st {};
  if (fd >= 0 && !opened_as(fd, path, st)) fd = -1; // the pipeline's number now
  // The page's blocks are reserved before it is mapped: a store into a page the file
  // system cannot back (a full one) raises SIGBUS in the pipeline's process. Where they
  // cannot be, the page is not mapped and its file goes (losses are then marked by name,
  // count_lost). Never past the pipeline's file size limit, which raises SIGXFSZ.
  bool reserved = fd >= 0 && stores_in_place(fd) && fits_size_limit(sizeof(LostPage)) &&
                  ::fallocate(fd, 0, 0, sizeof(LostPage)) == 0;
  if (reserved) {
    void* m = ::mmap(nullptr, sizeof(LostPage), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    // Written through only once the number is known to have been that file at the mmap.
    if (m != MAP_FAILED && !write_checked(fd, st, "", 0)) {
      ::munmap(m, sizeof(LostPage));
      m = MAP_FAILED;
    }
    if (m != MAP_FAILED) {
      auto* page = static_cast<LostPage*>(m);
      std::memcpy(page->magic, "kdet-lost 1\n", 12);
      page->pid = static_cast<unsigned long long>(pid);
      g_lost_page = page;
    }
  } else if (fd >= 0) {
    ::unlink(path);
  }
  if (fd >= 0) close_checked(fd, st);
  pthread_mutex_unlock(&g_lost_lock);
}

// With no page to count in: RAW/notes/PID-KIND-xHEX(text).unnoted, an empty file made
// without a descriptor (mknod), which needs no room for data: at least one loss of that
// kind, for that reason, was neither recorded, noted nor counted.
void mark_unnoted(int kind, const char* text) {
  static const char* const k_kinds[k_lost_kinds] = {"compile", "line", "blob"};
  const char* dir = capture_dir();
  if (!dir) return;
  char path[PATH_MAX];
  Line p(path, sizeof path);
  p.add(dir);
  size_t notes_end = p.n + 6; // DIR/notes
  p.add("/notes/");
  p.add_num(static_cast<unsigned long long>(::getpid()));
  p.add("-");
  p.add(k_kinds[kind]);
  p.add("-");
  p.add_hex(text, std::min<size_t>(std::strlen(text), 96)); // a name has 255 bytes at most
  p.add(".unnoted");
  if (p.n + 1 >= p.cap) return;
  if (::mknod(path, S_IFREG | 0644, 0) != 0 && errno == ENOENT) {
    path[notes_end] = 0;
    ::mkdir(path, 0755);
    path[notes_end] = '/';
    ::mknod(path, S_IFREG | 0644, 0); // EEXIST: marked already
  }
}

// For tests/e2e/capture_hostile.sh only: KDET_CAPTURE_TEST_STRAY=FD makes the first
// record-log entry lose the race this file guards against (FD dup2'ed over the
// checked descriptor between check and write), so that its detection is tested.
void lose_the_race(OwnFile& f) {
  static int fd = -2;
  if (fd == -2) {
    const char* e = std::getenv("KDET_CAPTURE_TEST_STRAY");
    fd = e && *e >= '0' && *e <= '9' ? std::atoi(e) : -1;
  }
  if (fd >= 0 && f.sub[0] == 'r') {
    ::dup2(fd, f.fd);
    fd = -1;
  }
}

} // namespace

void count_lost(int kind, const char* text) {
  if (kind < 0 || kind >= k_lost_kinds) return;
  LostPage* page = g_lost_page;
  if (page && g_lost_pid == ::getpid())
    __atomic_fetch_add(&page->counts[kind], 1, __ATOMIC_RELAXED);
  else
    mark_unnoted(kind, text);
}

bool fits_size_limit(unsigned long long end) {
  rlimit rl{};
  return ::getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || end <= rl.rlim_cur;
}

void own_file_after_fork(OwnFile& f) {
  pthread_mutex_init(&f.lock, nullptr);
  pthread_mutex_init(&g_lost_lock, nullptr);
}

bool own_append(OwnFile& f, const char* dir, const iovec* iov, int n, size_t want,
                const char** why) {
  // No signal handler runs from the check to the write (it may dup2 over the number, or
  // compile and so append here itself, which would wait on this lock forever).
  SignalsHeld held;
  pthread_mutex_lock(&f.lock);
  *why = "the pipeline kept putting files of its own in the place of the capture file";
  struct stat st {};
  if (f.pid != ::getpid()) {
    // A child after fork: the parent's file stays the parent's (only a descriptor
    // that still names it is closed here; any other number is the pipeline's).
    if (still_ours(f, st)) ::close(f.fd);
    f.fd = -1;
    f.path[0] = 0; // never reopened here: one writer process per file
    f.dev = 0;
    f.ino = 0;
    f.broken = false;
    f.pid = ::getpid();
  }
  bool ok = false;
  for (int attempt = 0; attempt < 4 && !ok; ++attempt) {
    if (f.broken || (!still_ours(f, st) && !reopen(f, st))) {
      // Never opened, cut short by a failed write, or removed: a new file (a
      // compile whose header is in the old one keeps it there, unfinished).
      f.broken = false;
      if (!create(f, dir, st)) {
        static thread_local char text[160];
        Line t(text, sizeof text);
        t.add(f.cannot_create);
        t.add(" (");
        t.add(strerrordesc_np(errno));
        t.add(")");
        *why = text;
        break;
      }
    }
    off_t before = st.st_size;
    // Never past the file size limit the pipeline runs under (ulimit -f): a write there
    // raises SIGXFSZ, which kills the pipeline's process.
    if (!fits_size_limit(static_cast<unsigned long long>(before) + want)) {
      if (before > 0) {
        f.broken = true; // a new, empty file may hold it
        continue;
      }
      *why = "it is larger than the file size limit the pipeline runs under (ulimit -f)";
      break;
    }
    lose_the_race(f);
    ssize_t w = ::writev(f.fd, iov, n);
    int err = errno;
    struct stat after {};
    bool landed = w >= 0 &&
                  (still_ours(f, after) || (::stat(f.path, &after) == 0 && same_file(after, f))) &&
                  after.st_size == before + w;
    if (w >= 0 && !landed) {
      note_stray(f.fd, static_cast<size_t>(w));
      continue; // the entry goes to the file again, reopened
    }
    if (w < 0 && !still_ours(f, after)) continue; // closed under us: open it again
    if (w < 0 || static_cast<size_t>(w) != want) {
      f.broken = true; // appending after a cut-short entry would follow a hole
      *why = w < 0 ? strerrordesc_np(err) : "a write was cut short";
      break;
    }
    ok = true;
  }
  // Under a tight limit the pipeline needs every number it may have: none is kept.
  if (tight_limit() && still_ours(f, st)) {
    ::close(f.fd);
    f.fd = -1;
  }
  pthread_mutex_unlock(&f.lock);
  return ok;
}

bool opened_as(int fd, const char* path, struct stat& st) {
  struct stat by_name {};
  return ::fstat(fd, &st) == 0 && ::lstat(path, &by_name) == 0 && st.st_dev == by_name.st_dev &&
         st.st_ino == by_name.st_ino;
}

bool same_inode(int fd, const struct stat& st) {
  struct stat now {};
  return fd >= 0 && ::fstat(fd, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino;
}

bool write_checked(int fd, const struct stat& st, const char* p, size_t n) {
  while (n > 0) {
    if (!same_inode(fd, st)) return false;
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void close_checked(int fd, const struct stat& st) {
  if (same_inode(fd, st)) ::close(fd);
}

bool write_note(const char* kind, const char* text, size_t n) {
  const char* dir = capture_dir();
  if (!dir) return false;
  char path[PATH_MAX], line[4096];
  Line p(path, sizeof path);
  p.add(dir);
  p.add("/notes/");
  p.add_num(static_cast<unsigned long long>(::getpid()));
  p.add(".note");
  Line l(line, sizeof line - 1);
  l.add("kdet-note 1 ");
  l.add(kind);
  l.add(" ");
  l.add_num(static_cast<unsigned long long>(::getpid()));
  l.add(" ");
  l.add_num(static_cast<unsigned long long>(::getppid()));
  l.add(" ");
  l.add_hex(text, n);
  line[l.n++] = '\n';
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  SignalsHeld held;
  int fd = ::open(path, flags, 0644);
  if (fd < 0 && errno == ENOENT) {
    char notes[PATH_MAX];
    Line d(notes, sizeof notes);
    d.add(dir);
    d.add("/notes");
    ::mkdir(notes, 0755);
    fd = ::open(path, flags, 0644);
  }
  if (fd < 0) return false;
  struct stat a {};
  if (!opened_as(fd, path, a)) return false; // the pipeline's number now
  // Never past the pipeline's file size limit (SIGXFSZ).
  bool ok = S_ISREG(a.st_mode) &&
            fits_size_limit(static_cast<unsigned long long>(a.st_size) + l.n) &&
            write_checked(fd, a, line, l.n);
  close_checked(fd, a); // only while the number is still this file: else it is the pipeline's now
  return ok;
}

} // namespace kdet_capture
