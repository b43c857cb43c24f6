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

#include <cstddef>

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

// The capture folder ($KDET_CAPTURE_DIR) or null when capture is off.
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

// The calling thread's kernel id.
long thread_id();

} // namespace kdet_capture
