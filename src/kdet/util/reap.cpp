//===- util/reap.cpp - subreaper, orphan killing ------------------------------===//
//
// Children are listed from /proc/self/task/<tid>/children with raw syscalls and
// stack buffers only, so the same code serves a signal handler.
//
//===----------------------------------------------------------------------===//
#include "kdet/util/reap.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

namespace kdet {

namespace {

std::atomic<bool> g_subreaper{false};

std::unordered_map<pid_t, int>& registry() {
  static auto* r = new std::unordered_map<pid_t, int>; // never destroyed: used until exit
  return *r;
}

// Parses decimal numbers separated by anything else; async-signal-safe.
size_t parse_pids(const char* buf, size_t len, pid_t* out, size_t n, size_t cap) {
  long v = -1;
  for (size_t i = 0; i <= len; ++i) {
    char c = i < len ? buf[i] : ' ';
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v * 10) + (c - '0');
    } else if (v >= 0) {
      if (n < cap) out[n++] = static_cast<pid_t>(v);
      v = -1;
    }
  }
  return n;
}

// Lists the children of every thread of this process into `out` (at most
// `cap`); async-signal-safe. A number cut at a read boundary is re-read whole
// because the children file is read in one go per thread (4 KiB holds ~500 pids).
size_t list_children(pid_t* out, size_t cap) noexcept {
  size_t n = 0;
  int dir = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  alignas(8) char ents[4096];
  for (;;) {
    long got = ::syscall(SYS_getdents64, dir, ents, sizeof ents);
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[]
      unsigned short reclen;
      __builtin_memcpy(&reclen, ents + off + 16, sizeof reclen);
      const char* name = ents + off + 19;
      off += reclen;
      if (name[0] < '0' || name[0] > '9') continue;
      char path[64] = "/proc/self/task/";
      size_t p = 16;
      for (const char* c = name; *c && p < 40; ++c)
        path[p++] = *c;
      const char* tail = "/children";
      for (const char* c = tail; *c; ++c)
        path[p++] = *c;
      path[p] = 0;
      int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[8192];
      ssize_t len = 0, r;
      while (len < static_cast<ssize_t>(sizeof buf) &&
             (r = ::read(fd, buf + len, sizeof buf - static_cast<size_t>(len))) > 0)
        len += r;
      ::close(fd);
      n = parse_pids(buf, static_cast<size_t>(len > 0 ? len : 0), out, n, cap);
    }
  }
  ::close(dir);
  return n;
}

void nap_ms(long ms) noexcept {
  timespec ts{0, ms * 1000000L};
  ::nanosleep(&ts, nullptr);
}

} // namespace

namespace detail {
std::mutex& children_mutex() {
  static auto* m = new std::mutex; // never destroyed: spawn() may run during exit
  return *m;
}
void note_child(pid_t pid) {
  ++registry()[pid];
}
void forget_child(pid_t pid) {
  std::lock_guard<std::mutex> lock(children_mutex());
  auto it = registry().find(pid);
  if (it != registry().end() && --it->second <= 0) registry().erase(it);
}
} // namespace detail

bool become_subreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return false;
  g_subreaper.store(true);
  return true;
}

bool is_subreaper() {
  return g_subreaper.load();
}

int kill_orphans() {
  // Only a subreaper's unregistered children are orphans: in a process that
  // merely links kdet (the cache's C API inside Python), they are the host's own.
  if (!is_subreaper()) return 0;
  std::lock_guard<std::mutex> lock(detail::children_mutex());
  int killed = 0;
  constexpr size_t k_cap = 4096;
  static pid_t kids[k_cap]; // guarded by the mutex
  for (int round = 0; round < 2000; ++round) {
    size_t n = list_children(kids, k_cap), orphans = 0;
    for (size_t i = 0; i < n; ++i)
      if (!registry().count(kids[i])) kids[orphans++] = kids[i];
    if (orphans == 0) break;
    for (size_t i = 0; i < orphans; ++i)
      if (::kill(kids[i], SIGKILL) == 0) ++killed;
    // Reap them; each one's own children are adopted as it dies and come up next round.
    for (int tries = 0; tries < 200; ++tries) {
      size_t left = 0;
      for (size_t i = 0; i < orphans; ++i) {
        int st;
        pid_t r = ::waitpid(kids[i], &st, WNOHANG);
        if (r == 0) kids[left++] = kids[i];
      }
      orphans = left;
      if (orphans == 0) break;
      nap_ms(1);
    }
    if (orphans > 0) break; // stuck in the kernel (D state): give up rather than hang kdet
  }
  return killed;
}

void kill_all_children_now() noexcept {
  pid_t kids[1024];
  for (int round = 0; round < 2000; ++round) {
    size_t n = list_children(kids, 1024);
    for (size_t i = 0; i < n; ++i)
      ::kill(kids[i], SIGKILL);
    int st;
    pid_t r;
    while ((r = ::waitpid(-1, &st, WNOHANG)) > 0) {
    }
    if (r < 0 && errno == ECHILD) return;
    nap_ms(1);
  }
}

} // namespace kdet
