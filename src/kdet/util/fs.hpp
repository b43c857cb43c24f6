//===- util/fs.hpp - files and folders --------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kdet {

// Whole file as bytes; throws Error naming the file when it cannot be read.
std::string read_file(const std::string& path);

// Creates `path` (failing if it exists when `exclusive`), writes `data` and
// fsyncs it; throws Error naming the file. A failed write leaves no file.
void write_file_synced(const std::string& path, std::string_view data, bool exclusive);

// Writes `data` to a temporary file beside `path`, fsyncs it and renames it
// over `path`, so a reader never sees a half-written file.
void write_file_atomic(const std::string& path, std::string_view data);

// Writes an output option's file (`option` names it in errors): "-" is stdout;
// an existing target that is not a regular file (device, FIFO, socket, tty, or
// a link to one) is opened without O_CREAT and written in place, never
// replaced; a link to a regular file writes through to that file (truncated,
// in place, as the shell's `>` does); a target that is kdet's own stdout or
// stderr (/dev/stdout, /proc/self/fd/1) is written to that descriptor;
// anything else is written atomically
// (a temporary file in the same folder, renamed over `path`).
void write_output(const std::string& path, std::string_view data, const std::string& option);
// The same, with the content written by `fill` to the open descriptor (false with errno set on
// failure), for content that is streamed rather than held.
void write_output(const std::string& path, const std::function<bool(int fd)>& fill,
                  const std::string& option);

// Writes all of `data` to `fd` (EINTR retried); false with errno on failure.
bool write_all(int fd, std::string_view data);

// Reads `n` bytes of `fd` from `offset` into `out` (pread, retried on short reads); false when
// fewer were there (`out` then holds what was read).
bool read_at(int fd, uint64_t offset, std::string& out, size_t n);

// Throws (exit 2, naming `option`) when write_output(path) could not write there: a folder,
// a link to nothing, or a missing parent folder. Checked before a long run, not after it.
void check_output_path(const std::string& path, const std::string& option);

// True when `path` is "-" or names this process's stdout: the same file as fd 1
// (/dev/stdout, /proc/self/fd/1, or a file stdout is redirected to), so that a
// report written there would be mixed with what goes to stdout.
bool names_stdout(const std::string& path);

// mkdir -p; throws Error naming the folder on failure.
void make_dirs(const std::string& path);

// A fresh private folder under $TMPDIR (or /tmp) named prefix-XXXXXX.
std::string make_temp_dir(const std::string& prefix);

// What tells a file's content apart without reading it: its device, inode, size, mtime and
// ctime. A file replaced (renamed over) or rewritten in place gets another stamp; ctime also
// moves on a chmod or a new hard link, which a caller can tell apart by hashing.
struct FileStamp {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  auto operator<=>(const FileStamp&) const = default;
};
// The stamp of the file at `path` (links followed); nullopt when it cannot be stat'ed or is no
// regular file (a FIFO put there must not be opened and waited on).
std::optional<FileStamp> file_stamp(const std::string& path);

// rm -rf, best effort (never throws).
void remove_tree(const std::string& path) noexcept;
// Removes the file `path` from its folder, never through a link: when the folder's own name is a
// link now (a compiler replaced its folder), nothing is removed. Best effort.
void unlink_in_folder(const std::string& path) noexcept;

// The current working folder; throws Error (exit 2) when it no longer exists (removed after the
// shell entered it) or cannot be read.
std::string current_folder();

// Path of the running kdet executable (/proc/self/exe resolved once; " (deleted)" follows it
// when the file has been replaced since kdet started).
std::string self_exe();
// The link that executes this very kdet binary, whatever has become of its path.
inline constexpr const char* k_self_exe_link = "/proc/self/exe";

// A library kdet preloads into compilers (libkdet_chaos.so, libkdet_capture.so): beside the kdet
// executable (build tree), else in the installed private folder (lib/kdet, found relative to the
// executable, so an installed tree can be moved); empty when neither has it.
std::string find_kdet_library(const std::string& file);

// Last path component's extension without the dot, lower-cased ("ll", "cu").
std::string file_extension(const std::string& path);

// Absolute, normalized form of `path` (the file need not exist).
std::string absolute_path(const std::string& path);

} // namespace kdet

// ---- kdet's own trees (cache, --out folder): never follow a link ----------

namespace kdet {

// An owned file descriptor, closed on destruction (-1: none).
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  ~Fd();
  Fd(Fd&& o) noexcept : m_fd(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  bool ok() const { return m_fd >= 0; }
  int release() {
    int f = m_fd;
    m_fd = -1;
    return f;
  }

private:
  int m_fd = -1;
};

// Opens `rel` (plain components: no "..", no leading "/") beneath the folder
// `dir_fd`, never following a link in any component (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, else a walk with O_NOFOLLOW). -1 with
// errno on failure: ELOOP (or EXDEV) when a component is a link. Files (not
// folders) are opened O_NONBLOCK, so a FIFO in their place never blocks the open.
int open_beneath(int dir_fd, const std::string& rel, int flags, unsigned mode = 0);

// mkdir -p of `rel` beneath `dir_fd` without following links; new folders get
// `mode` exactly (umask not applied). Returns the last folder opened, or -1 with errno.
int make_dirs_beneath(int dir_fd, const std::string& rel, unsigned mode);

// Removes `rel` beneath `dir_fd` and everything under it, never following a
// link (a link is removed; what it points to is untouched). Best effort.
void remove_tree_beneath(int dir_fd, const std::string& rel) noexcept;

// Writes `rel` beneath `dir_fd` atomically (an O_EXCL temporary beside it, then
// renameat), making its folders (0755 less nothing) without following links;
// throws Error naming `shown` (the path for messages) on failure.
void write_file_beneath(int dir_fd, const std::string& rel, std::string_view data,
                        const std::string& shown);
// The same, with the content written by `fill` to the open temporary (false
// with errno set on failure), for content that is streamed rather than held.
void write_file_beneath(int dir_fd, const std::string& rel, const std::function<bool(int fd)>& fill,
                        const std::string& shown);

// Splits "a/b/c" into ("a/b", "c"); ("", "c") for a single component.
std::pair<std::string, std::string> split_parent(const std::string& rel);

// Describes errno from a *_beneath call for an error message ("is a link (refused)" for ELOOP).
std::string beneath_error(int err);

} // namespace kdet
