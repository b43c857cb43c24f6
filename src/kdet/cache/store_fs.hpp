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

// Reads a whole regular file from `fd`; false on a read error or a non-file.
bool slurp_fd(Fd fd, std::string& out);

// renameat() that never replaces an existing target. Returns 0, or errno.
int rename_noreplace(int from_dir, const std::string& from, int to_dir, const std::string& to);

} // namespace kdet::cache::detail
