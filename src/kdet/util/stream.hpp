//===- util/stream.hpp - bounded reads of files kdet did not write ----------===//
//
// A compiler's output can be huge, or not a file at all (a link to /dev/zero,
// a FIFO, a folder). These helpers read only regular files, in fixed-size
// chunks, up to a cap, so kdet's memory never depends on what a compiler wrote.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/tempdir.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace kdet {

// Size of the chunks the streaming helpers read and hand on.
constexpr size_t k_stream_chunk = 1 << 16;

// What a file type is, in words: "a character device", "a FIFO", "a folder"...
std::string describe_file_type(mode_t mode);

// How stream_regular_file() ended.
struct StreamResult {
  enum class Status { ok, not_regular, too_large, unreadable };
  Status status = Status::ok;
  uint64_t size = 0; // bytes handed to the sink (for too_large: the file's size when known)
  std::string what;  // not_regular: the file type in words; unreadable: the system's reason
};

// Reads `path` (a link to a regular file is followed) in k_stream_chunk pieces,
// handing each to `sink`. A device, FIFO, socket or folder is refused without
// reading from it; more than `max_size` bytes stops the read with too_large.
StreamResult stream_regular_file(const std::string& path, uint64_t max_size,
                                 const std::function<void(std::string_view)>& sink);

// Copies `src` to a temporary file beside `dest`, fsyncs it and renames it over
// `dest`, in bounded chunks; throws Error naming the file at fault.
void copy_file_atomic(const std::string& src, const std::string& dest);

// Parses a size: a number of bytes with an optional K, M, G or T suffix (powers of
// 1024, an optional trailing B); nullopt when malformed, zero or past 2^64 - 1.
std::optional<uint64_t> parse_byte_size(std::string_view text);

// A kdet temporary folder (util/tempdir: swept if a killed kdet leaves it)
// removed (rm -rf) when the last owner lets go.
class TempFolder {
public:
  // `tag` as for TempDir: what the folder is for, [a-z-] only.
  explicit TempFolder(const std::string& tag) : m_dir(tag) {}
  const std::string& path() const { return m_dir.path(); }

private:
  TempDir m_dir;
};

// A file removed when the last owner lets go (unless `remove` is false: then
// only a name for a file someone else removes); it keeps its folder alive.
class OwnedFile {
public:
  explicit OwnedFile(std::string path, std::shared_ptr<const TempFolder> folder = {},
                     bool remove = true)
      : m_path(std::move(path)), m_folder(std::move(folder)), m_remove(remove) {}
  ~OwnedFile();
  OwnedFile(const OwnedFile&) = delete;
  OwnedFile& operator=(const OwnedFile&) = delete;
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
  std::shared_ptr<const TempFolder> m_folder;
  bool m_remove = true;
};

} // namespace kdet
