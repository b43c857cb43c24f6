//===- util/hash_memo.hpp - content hashes of large files, remembered ---------===//
//
// Every kdet command hashes the compiler it loads (libNVVM is 60 MiB: about
// 11 ms of CPU, more than kdet's whole per-run cost over 20 runs). Like
// ccache's inode cache, the hash is remembered per file in a folder of small
// entries keyed by device and inode, and trusted only while size, mtime and
// ctime (which no user can set back) are what they were when it was computed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace kdet {

// The folder of remembered hashes: $KDET_HASH_MEMO if set ("" or "off": none),
// else $XDG_CACHE_HOME/kdet/file-hashes, else $HOME/.cache/kdet/file-hashes;
// "" when none applies.
std::string hash_memo_dir();

// hash_file(path), remembered in `memo_dir` ("" = not remembered). An entry is
// used only when it is a regular file (never a link) owned by this user, and
// written only when the file did not change while it was hashed and was last
// changed over two seconds ago (a change within the timestamps' granularity
// could otherwise go unseen). Throws Error as hash_file does.
std::string remembered_file_hash(const std::string& path, const std::string& memo_dir);

// The same, judged at `now_ns` (CLOCK_REALTIME, nanoseconds since the epoch) instead of the
// clock: a test gives a later time rather than wait for a file to settle.
std::string remembered_file_hash(const std::string& path, const std::string& memo_dir,
                                 int64_t now_ns);

} // namespace kdet
