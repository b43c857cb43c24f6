//===- util/file_lock.hpp - one writer per file, whatever name it is given ----===//
//
// A lock keyed by a path lets two writers in through two names of one file (a
// hardlink, a symlink, a bind mount, "./" spellings). These lock the file itself:
// an exclusive flock on a descriptor of it, which the kernel keeps per inode.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <sys/types.h>

namespace kdet {

// Who holds a flock on the file (dev, ino), from /proc/locks: its pid (0 when
// unknown) and the name under which that process has the file open (empty when
// it cannot be read).
struct LockHolder {
  long pid = 0;
  std::string path;
};
LockHolder flock_holder(dev_t dev, ino_t ino);

// True when `a` and `b` both exist and are one file (device and inode).
bool same_file(const std::string& a, const std::string& b);

} // namespace kdet
