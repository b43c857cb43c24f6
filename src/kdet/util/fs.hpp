//===- util/fs.hpp - files and folders --------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace kdet {

// Whole file as bytes; throws Error naming the file when it cannot be read.
std::string read_file(const std::string& path);

// Creates `path` (failing if it exists when `exclusive`), writes `data` and
// fsyncs it; throws Error naming the file. A failed write leaves no file.
void write_file_synced(const std::string& path, std::string_view data, bool exclusive);

// Writes `data` to a temporary file beside `path`, fsyncs it and renames it
// over `path`, so a reader never sees a half-written file.
void write_file_atomic(const std::string& path, std::string_view data);

// mkdir -p; throws Error naming the folder on failure.
void make_dirs(const std::string& path);

// A fresh private folder under $TMPDIR (or /tmp) named prefix-XXXXXX.
std::string make_temp_dir(const std::string& prefix);

// rm -rf, best effort (never throws).
void remove_tree(const std::string& path) noexcept;

// Path of the running kdet executable (/proc/self/exe resolved).
std::string self_exe();

// Last path component's extension without the dot, lower-cased ("ll", "cu").
std::string file_extension(const std::string& path);

// Absolute, normalized form of `path` (the file need not exist).
std::string absolute_path(const std::string& path);

} // namespace kdet
