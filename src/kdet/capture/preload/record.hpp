//===- capture/preload/record.hpp - the preload's recording side -----------===//
//
// What libkdet_capture.so writes under $KDET_CAPTURE_DIR (format in
// docs/CAPTURE.md): the bytes of inputs and outputs, appended to one pack per
// process (blobs/PID-NONCE.pack) and the compiles, appended to one record log
// per process (records/PID-NONCE.log), each entry one write on an O_APPEND
// file, so a pipeline killed at any moment leaves every entry it finished. No C++ runtime:
// plain libc, so the library can be preloaded into any process.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <climits>
#include <csignal>
#include <cstddef>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

namespace kdet_capture {

// A growable byte buffer on malloc (no exceptions: a failed growth sets `failed`).
struct Buf {
  char* data = nullptr;
  size_t size = 0;
  size_t cap = 0;
  bool failed = false;
  void add(const char* s, size_t n);
  void add(const char* s);
  void add_u64(unsigned long long v);
  // "-" for null, else "x" followed by the bytes as hex: one token, any bytes.
  void add_text(const char* s, size_t n);
  void add_text(const char* s);
  void release();
};

// 32 lower-case hex digits of XXH3-128 (as kdet's hash_bytes) plus NUL.
void hash_hex(const void* data, size_t size, char out[33]);

// The capture folder (absolute) or null when capture is off.
const char* capture_dir();

// Appends `data` to this process's blob pack unless it stored that hash already;
// writes its hash to `out` (also when capture is off or the write fails).
void store_blob(const void* data, size_t size, char out[33]);

// Appends a compile's header block (`text`, ending with "begin") to this
// process's record log in one write, under a new id (set in `id`, never 0).
// False when capture is off or the write failed.
bool create_record(const Buf& text, unsigned long long* id);

// Appends one line ("ID " + `line`) for the compile `id` (best effort; 0: none).
void append_record(unsigned long long id, const char* line, size_t n);

// Identity of the library mapped at `addr`: its path from /proc/self/maps
// (resolved by the kernel) and content hash, cached per mapping base. False when unknown.
bool library_identity(const void* addr, char* path, size_t path_size, char hash[33],
                      unsigned long long* size);

// Content hash and size of the file at `path`, through the RAW/libs cache shared
// by the processes of a capture. False when it cannot be read.
bool file_identity(const char* path, char hash[33], unsigned long long* size);

// A file this process appends to (its blob pack, its record log), created on first
// use as SUB/PID-NONCE.EXT under the capture folder and checked before and
// after every write (own_file.cpp): the descriptor's number may be the
// pipeline's by then. A child after fork makes its own.
struct OwnFile {
  const char* sub;           // "blobs" or "records"
  const char* ext;           // "pack" or "log"
  const char* cannot_create; // why, for a note, when it cannot be created
  int fd = -1;
  pid_t pid = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  bool broken = false; // a write failed or was cut short: the next entry starts a new file
  char path[PATH_MAX] = {};
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
};

// Appends one entry (one writev of `want` bytes) to `f`; true when it is verified to
// have landed in f's file. False with `why` when it could not be written.
bool own_append(OwnFile& f, const char* dir, const iovec* iov, int n, size_t want,
                const char** why);

// Call in a child after fork (the lock may have been held by a thread that is gone).
void own_file_after_fork(OwnFile& f);

// True when the descriptor just opened for `path` names the file at `path` (`st` gets its
// status). A number that another thread or a signal handler of the pipeline put a file of
// its own on meanwhile is not adopted, nor closed: it is the pipeline's now.
bool opened_as(int fd, const char* path, struct stat& st);

// Blocks the calling thread's signals while it lives, so that no signal handler of the
// pipeline (which may dup2 over any descriptor) runs between opening a file and writing it.
// Stack only.
struct SignalsHeld {
  sigset_t old;
  SignalsHeld() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
  }
  ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;
};

// For a file this process just opened (`st`: its fstat): writes all of `p`,
// checking before each write that `fd` still names that file (false when not),
// and closes `fd` only while it does. Stack only.
bool write_checked(int fd, const struct stat& st, const char* p, size_t n);
void close_checked(int fd, const struct stat& st);

// Appends "kdet-note 1 KIND PID PPID xHEX(text)" to RAW/notes/PID.note (best
// effort; stack only, safe in a vfork child). kdet capture's summary reports them.
// False when it could not be written.
bool write_note(const char* kind, const char* text, size_t n);

// Counts one loss that could not even be noted (no descriptor free, no room for the
// note) in the page RAW/notes/PID-NONCE.lost, mapped when the process first recorded;
// without a page (no room to reserve one), marks it by name, with `text` (what was lost,
// for a compile, and why): RAW/notes/PID-KIND-xHEX.unnoted. Kinds: 0 a compile, 1 a record
// line, 2 a blob.
inline constexpr int k_lost_kinds = 3;
void count_lost(int kind, const char* text);

// True when a regular file may grow to `end` bytes under the file size limit the
// pipeline runs under (RLIMIT_FSIZE, ulimit -f): a write past it raises SIGXFSZ, which
// kills the process. Every file the preload writes is checked first.
bool fits_size_limit(unsigned long long end);

// Sets the capture folder (the shim gets it in argv); otherwise it is
// $KDET_CAPTURE_DIR as the process started, whatever the pipeline does to its
// environment later.
void set_capture_dir(const char* dir);

// The calling thread's kernel id.
long thread_id();

// A record's first lines: kind, pid, ppid, thread and time_ns (docs/CAPTURE.md, the record format).
void add_record_header(Buf& b, const char* kind);

// Writes the files this process has mapped executable to RAW/maps/PID-N.maps (maps.cpp),
// for kdet to find the compilers built into them. Stack only; best effort.
void write_maps();
// The same, once per process: at its first recorded compile.
void write_maps_at_first_compile();

} // namespace kdet_capture
