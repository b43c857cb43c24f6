//===- cache/store_fs.hpp - file helpers of the cache store -----------------===//
//
// Shared by cache/store.cpp (entries, variants) and cache/store_fs.cpp (the
// folder beneath v1/); not for use outside the store.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/fs.hpp"

#include <cstdint>
#include <string>

namespace kdet::cache::detail {

// CLOCK_REALTIME in nanoseconds.
int64_t now_ns();

// Reads a regular file of at most `max` bytes from `fd`; false on a read error, a non-file or
// (errno EFBIG) a file larger than `max`, whether by its size or by growing while read. With
// `cut`, a larger file gives its first `max` bytes and sets *cut. Nothing the cache reads is
// read whole without a bound: a member of a shared cache decides the size of what it plants.
bool slurp_fd(Fd fd, std::string& out, uint64_t max, bool* cut = nullptr);

// renameat() that never replaces an existing target. Returns 0, or errno.
int rename_noreplace(int from_dir, const std::string& from, int to_dir, const std::string& to);

} // namespace kdet::cache::detail
