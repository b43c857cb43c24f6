//===- perturb/files.hpp - the files an input names, for the mtime factor ----===//
//
// ptxas and nvJitLink write the modification time and size of each file a PTX
// `.file` directive names into the cubin's line table (DWARF), with or without
// -lineinfo. So the same PTX gives another cubin after a `touch` of a source it
// names. The mtime factor pins or varies those times without touching the
// files: each run gets kdet's copies (same bytes, the run's time), which the
// worker binds over the named paths in its private mount namespace for that
// compile (backend/slot_namespace.hpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kdet::perturb {

// The regular files `input` names that exist here, as absolute paths in first-seen order,
// without repeats: PTX `.file N "path"`, C/C++ `#include "x"` / `<x>` (the input's folder, then
// the -I folders of `options`), `#line N "path"` and `# N "path"` markers, and NVVM IR
// `!DIFile(filename: ..., directory: ...)`. Headers found are read for their own includes.
// Relative names resolve against `cwd` (.file, #line, !DIFile without a directory) or the
// input's folder. Binary inputs name nothing. At most `limit` files.
// `cwd_names` (optional) gets, for each file, the relative name it was found by in `cwd`, or "".
std::vector<std::string> named_files(const std::string& input, const std::string& input_path,
                                     const std::vector<std::string>& options,
                                     const std::string& cwd, size_t limit = 256,
                                     std::vector<std::string>* cwd_names = nullptr);

// One file whose modification time a run sets: `path` is where the compiler looks; `copy` is
// kdet's copy to bind over it (empty: `path` is kdet's own file, set in place, first copied
// there from `source` when that is given: a relative name in the run's own working folder).
struct FileTime {
  std::string path;
  std::string copy;
  int64_t seconds = 0; // the modification (and access) time, seconds since the epoch
  std::string source;
};

// Makes each copy (the original's bytes and mode, read with O_NOATIME where allowed so the
// original's access time stays) and sets the time on it, or on `path` where there is no copy.
// "" on success, else why not.
std::string place_file_times(const std::vector<FileTime>& files);

} // namespace kdet::perturb
