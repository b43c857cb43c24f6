//===- capture/preload/record.cpp - blob packs, record logs, library identity ===//
//
// Every function here is best effort: a failure to record is swallowed, never
// passed to the pipeline (the caller forwards the compile regardless).
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#define XXH_INLINE_ALL
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <xxhash.h>

namespace kdet_capture {

namespace {

constexpr char k_digits[] = "0123456789abcdef";

// Hashes already stored by this process (a fixed open-addressed set; when it
// is full, blobs are checked on disk instead).
constexpr size_t k_seen_slots = 4096;
char g_seen[k_seen_slots][33];
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
std::atomic<unsigned long long> g_seq{0};

// Library identities, keyed by mapping path (one per library file).
struct LibId {
  const void* base; // load base (dli_fbase): a later compile finds its identity without /proc
  char path[PATH_MAX];
  char hash[33];
  unsigned long long size;
};
constexpr int k_libs = 16;
LibId g_libs[k_libs];
int g_nlibs = 0;

OwnFile g_pack{"blobs", "pack", "its blob pack cannot be created"};
OwnFile g_log{"records", "log", "its record log cannot be created"};

// The capture folder, read once at load (a pipeline that clears its environment
// is still recorded; its children are not: docs/CAPTURE.md).
char g_dir[PATH_MAX];
std::atomic<int> g_dir_set{0}; // a constructor elsewhere may compile before ours ran

void on_fork_child() {
  pthread_mutex_init(&g_lock, nullptr);
  own_file_after_fork(g_pack);
  own_file_after_fork(g_log);
}

__attribute__((constructor)) void init() {
  set_capture_dir(std::getenv("KDET_CAPTURE_DIR"));
  pthread_atfork(nullptr, nullptr, on_fork_child);
}

// "KIND compile: WHY" or the like, as a note for kdet capture's summary.
void note_lost(const char* kind, const char* what, const char* why) {
  char text[512];
  int n = std::snprintf(text, sizeof text, "%s%s%s", what, why ? ": " : "", why ? why : "");
  if (n > 0 && write_note(kind, text, std::min(static_cast<size_t>(n), sizeof text - 1))) return;
  // Counted, or marked by what was lost (a compile's kind) and why: a blob's or a line's
  // own name would make a mark per blob or line.
  bool compile = std::strcmp(kind, "lost") == 0;
  if (!compile) std::snprintf(text, sizeof text, "%s", why ? why : "");
  count_lost(compile ? 0 : std::strcmp(kind, "lost-line") == 0 ? 1 : 2, text);
}

bool join(char* out, size_t cap, const char* a, const char* b, const char* c) {
  int n = std::snprintf(out, cap, "%s%s%s", a, b, c);
  return n > 0 && static_cast<size_t>(n) < cap;
}

// Marks `hash` as stored; false when it already was.
bool mark_seen(const char* hash) {
  size_t h = 0;
  for (int i = 0; i < 8; ++i)
    h = h * 16 + static_cast<size_t>(hash[i] <= '9' ? hash[i] - '0' : hash[i] - 'a' + 10);
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < k_seen_slots; ++i) {
    char* s = g_seen[(h + i) % k_seen_slots];
    if (s[0] == 0) {
      std::memcpy(s, hash, 33);
      pthread_mutex_unlock(&g_lock);
      return true;
    }
    if (std::memcmp(s, hash, 32) == 0) {
      pthread_mutex_unlock(&g_lock);
      return false;
    }
  }
  pthread_mutex_unlock(&g_lock);
  return true;
}

void remember_library(const void* base, const char* path, const char* hash,
                      unsigned long long size) {
  pthread_mutex_lock(&g_lock);
  if (g_nlibs < k_libs) {
    g_libs[g_nlibs].base = base;
    std::strcpy(g_libs[g_nlibs].path, path);
    std::memcpy(g_libs[g_nlibs].hash, hash, 33);
    g_libs[g_nlibs].size = size;
    ++g_nlibs;
  }
  pthread_mutex_unlock(&g_lock);
}

} // namespace

void Buf::add(const char* s, size_t n) {
  if (failed) return;
  if (size + n + 1 > cap) {
    size_t c = cap ? cap : 256;
    while (c < size + n + 1)
      c *= 2;
    char* d = static_cast<char*>(std::realloc(data, c));
    if (!d) {
      failed = true;
      return;
    }
    data = d;
    cap = c;
  }
  std::memcpy(data + size, s, n);
  size += n;
  data[size] = 0;
}

void Buf::add(const char* s) {
  add(s, std::strlen(s));
}

void Buf::add_u64(unsigned long long v) {
  char t[24];
  int n = std::snprintf(t, sizeof t, "%llu", v);
  add(t, static_cast<size_t>(n));
}

void Buf::add_text(const char* s, size_t n) {
  if (!s) {
    add("-", 1);
    return;
  }
  add("x", 1);
  char t[2];
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    t[0] = k_digits[c >> 4];
    t[1] = k_digits[c & 15];
    add(t, 2);
  }
}

void Buf::add_text(const char* s) {
  add_text(s, s ? std::strlen(s) : 0);
}

void Buf::release() {
  std::free(data);
  data = nullptr;
  size = cap = 0;
}

void hash_hex(const void* data, size_t size, char out[33]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(data, size));
  for (size_t i = 0; i < 16; ++i) {
    out[2 * i] = k_digits[c.digest[i] >> 4];
    out[2 * i + 1] = k_digits[c.digest[i] & 15];
  }
  out[32] = 0;
}

void set_capture_dir(const char* dir) {
  bool usable = dir && *dir == '/' && std::strlen(dir) < sizeof g_dir;
  std::strcpy(g_dir, usable ? dir : "");
  g_dir_set.store(1, std::memory_order_release);
}

const char* capture_dir() {
  if (g_dir_set.load(std::memory_order_acquire) == 0)
    set_capture_dir(std::getenv("KDET_CAPTURE_DIR"));
  return g_dir[0] ? g_dir : nullptr;
}

long thread_id() {
  return static_cast<long>(::syscall(SYS_gettid));
}

void add_record_header(Buf& b, const char* kind) {
  b.add("kind ");
  b.add(kind);
  b.add("\npid ");
  b.add_u64(static_cast<unsigned long long>(::getpid()));
  b.add("\nppid ");
  b.add_u64(static_cast<unsigned long long>(::getppid()));
  b.add("\nthread ");
  b.add_u64(static_cast<unsigned long long>(thread_id()));
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  b.add("\ntime_ns ");
  b.add_u64(static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
            static_cast<unsigned long long>(ts.tv_nsec));
  b.add("\n");
}

void store_blob(const void* data, size_t size, char out[33]) {
  hash_hex(data, size, out);
  const char* dir = capture_dir();
  if (!dir || !mark_seen(out)) return;
  // A kill leaves at most the last entry short, which the reader drops (it
  // checks every blob against its hash).
  char head[96];
  int n = std::snprintf(head, sizeof head, "kdet-blob %s %zu\n", out, size);
  iovec iov[2] = {{head, static_cast<size_t>(n)}, {const_cast<void*>(data), size}};
  const char* why = nullptr;
  if (!own_append(g_pack, dir, iov, 2, static_cast<size_t>(n) + size, &why)) {
    char what[96];
    std::snprintf(what, sizeof what, "blob %s (%zu bytes)", out, size);
    note_lost("lost-blob", what, why);
  }
}

bool create_record(const Buf& text, unsigned long long* id) {
  const char* dir = capture_dir();
  if (!dir) return false;
  // The header starts with "kind K\n": the note names the kind of the compile lost.
  char what[64] = "a compile";
  if (text.data && std::strncmp(text.data, "kind ", 5) == 0)
    std::snprintf(what, sizeof what, "%.*s compile",
                  static_cast<int>(std::strcspn(text.data + 5, "\n")), text.data + 5);
  if (text.failed) {
    note_lost("lost", what, "out of memory");
    return false;
  }
  *id = g_seq.fetch_add(1) + 1;
  char head[64];
  int n = std::snprintf(head, sizeof head, "kdet-capture-record 1 %llu\n", *id);
  iovec iov[2] = {{head, static_cast<size_t>(n)}, {text.data, text.size}};
  const char* why = nullptr;
  if (own_append(g_log, dir, iov, 2, static_cast<size_t>(n) + text.size, &why)) return true;
  note_lost("lost", what, why);
  return false;
}

void append_record(unsigned long long id, const char* line, size_t n) {
  const char* dir = capture_dir();
  if (!dir || !id) return;
  char head[32];
  int h = std::snprintf(head, sizeof head, "%llu ", id);
  iovec iov[2] = {{head, static_cast<size_t>(h)}, {const_cast<char*>(line), n}};
  const char* why = nullptr;
  if (!own_append(g_log, dir, iov, 2, static_cast<size_t>(h) + n, &why)) {
    char what[128];
    std::snprintf(what, sizeof what, "line \"%.*s\" of compile %llu",
                  static_cast<int>(std::min<size_t>(std::strcspn(line, " \n"), 40)), line, id);
    note_lost("lost-line", what, why);
  }
}

bool library_identity(const void* addr, char* path, size_t path_size, char hash[33],
                      unsigned long long* size) {
  Dl_info where{};
  const void* base = dladdr(addr, &where) ? where.dli_fbase : nullptr;
  if (base) {
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nlibs; ++i)
      if (g_libs[i].base == base && std::strlen(g_libs[i].path) < path_size) {
        std::strcpy(path, g_libs[i].path);
        std::memcpy(hash, g_libs[i].hash, 33);
        *size = g_libs[i].size;
        pthread_mutex_unlock(&g_lock);
        return true;
      }
    pthread_mutex_unlock(&g_lock);
  }
  // The kernel's name of the mapping is the resolved file, whatever path or
  // soname the pipeline gave dlopen and whatever its working folder is now.
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (!maps) return false;
  struct stat mst {};
  bool have_mst = ::fstat(fileno(maps), &mst) == 0;
  char line[PATH_MAX + 128];
  bool found = false;
  auto a = reinterpret_cast<unsigned long>(addr);
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long lo = 0, hi = 0;
    int off = 0;
    if (std::sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || off == 0) continue;
    if (a < lo || a >= hi) continue;
    char* p = line + off;
    p[std::strcspn(p, "\n")] = 0;
    if (*p == '/' && std::strlen(p) < path_size) {
      std::strcpy(path, p);
      found = true;
    }
    break;
  }
  // Not closed when its number has become the pipeline's (the FILE is left, a few KiB).
  bool still = have_mst && write_checked(fileno(maps), mst, "", 0);
  if (!still) return false; // what was read may be another file's
  std::fclose(maps);
  if (!found) {
    Dl_info info{};
    if (!dladdr(addr, &info) || !info.dli_fname || !realpath(info.dli_fname, path)) return false;
  }
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < g_nlibs; ++i)
    if (std::strcmp(g_libs[i].path, path) == 0) {
      std::memcpy(hash, g_libs[i].hash, 33);
      *size = g_libs[i].size;
      pthread_mutex_unlock(&g_lock);
      return true;
    }
  pthread_mutex_unlock(&g_lock);
  if (!file_identity(path, hash, size)) return false;
  remember_library(base, path, hash, *size);
  return true;
}

bool file_identity(const char* path, char hash[33], unsigned long long* size) {
  // Another process of this capture may have hashed this very file already
  // (multiprocessing pools, one process per compile): its hash is kept under
  // libs/, keyed by device, inode, size and modification time.
  char cached[PATH_MAX] = {};
  struct stat lst {};
  const char* dir = capture_dir();
  if (dir && ::stat(path, &lst) == 0 &&
      std::snprintf(cached, sizeof cached, "%s/libs/%llx-%llx-%llx-%llx.%09ld", dir,
                    static_cast<unsigned long long>(lst.st_dev),
                    static_cast<unsigned long long>(lst.st_ino),
                    static_cast<unsigned long long>(lst.st_size),
                    static_cast<unsigned long long>(lst.st_mtim.tv_sec), lst.st_mtim.tv_nsec) > 0) {
    int cfd = ::open(cached, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    char text[33] = {};
    struct stat cst {};
    bool ok = cfd >= 0 && ::fstat(cfd, &cst) == 0 && ::read(cfd, text, 32) == 32;
    if (cfd >= 0) {
      ok = ok && write_checked(cfd, cst, "", 0); // still the cached file after the read
      close_checked(cfd, cst);
    }
    for (int i = 0; ok && i < 32; ++i)
      ok = (text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f');
    if (ok) {
      std::memcpy(hash, text, 33);
      *size = static_cast<unsigned long long>(lst.st_size);
      return true;
    }
  }
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  struct stat fst {};
  if (fd < 0) return false;
  if (::fstat(fd, &fst) != 0) {
    ::close(fd);
    return false;
  }
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  static thread_local char chunk[1 << 16];
  unsigned long long total = 0;
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    XXH3_128bits_update(&st, chunk, static_cast<size_t>(n));
    total += static_cast<unsigned long long>(n);
  }
  // A number the pipeline took over mid-read would give another file's hash: none, rather.
  bool whole =
      write_checked(fd, fst, "", 0) && total == static_cast<unsigned long long>(fst.st_size);
  close_checked(fd, fst);
  if (!whole) return false;
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
  for (size_t i = 0; i < 16; ++i) {
    hash[2 * i] = k_digits[c.digest[i] >> 4];
    hash[2 * i + 1] = k_digits[c.digest[i] & 15];
  }
  hash[32] = 0;
  *size = total;
  if (cached[0] && fits_size_limit(32)) {
    char libs[PATH_MAX], tmp[PATH_MAX + 64];
    if (join(libs, sizeof libs, dir, "/libs", "")) {
      ::mkdir(libs, 0755);
      std::snprintf(tmp, sizeof tmp, "%s.tmp-%d-%ld", cached, static_cast<int>(::getpid()),
                    thread_id());
      SignalsHeld held;
      int tfd = ::open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
      struct stat tst {};
      if (tfd >= 0 && opened_as(tfd, tmp, tst)) {
        // Checked: a thread of the pipeline may have put its own file on this number.
        bool ok = write_checked(tfd, tst, hash, 32);
        close_checked(tfd, tst);
        if (!ok || ::rename(tmp, cached) != 0) ::unlink(tmp);
      } else if (tfd >= 0) {
        ::unlink(tmp); // its number is the pipeline's now: never written, never closed
      }
    }
  }
  return true;
}

} // namespace kdet_capture
