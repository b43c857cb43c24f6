//===- capture/taps.cpp - a build's own intermediate files as stages --------===//
//
// The framework table (one row per framework), the fresh folders each build's
// dumps go to, and keeping the files a build wrote (taps.hpp).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/taps.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::capture {

namespace {

std::string base_of(const std::string& rel) {
  size_t slash = rel.find_last_of('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

// The file's name up to its first dot, with the folder it is in: Triton's
// HASH/softmax_kernel.ttir belongs to "HASH/softmax_kernel".
std::string stem_group(const std::string& rel) {
  std::string base = base_of(rel);
  std::string folder = rel.size() > base.size() ? rel.substr(0, rel.size() - base.size() - 1) : "";
  std::string stem = base.substr(0, base.find('.'));
  return folder.empty() ? stem : folder + "/" + stem;
}

// XLA names its dumps module_NNNN.NAME.WHAT: the module is the kernel group.
std::string xla_group(const std::string& rel) {
  std::string base = base_of(rel);
  size_t a = base.find('.');
  size_t b = a == std::string::npos ? a : base.find('.', a + 1);
  return b == std::string::npos ? base.substr(0, a) : base.substr(0, b);
}

std::vector<std::string> cute_env(const std::string& folder) {
  // CUTE_DSL_KEEP names what to keep in CuTe DSL 4.4 and later; the CUTE_DSL_KEEP_* switches
  // are the earlier releases' (both are set: a variable a release does not read is inert).
  // Keeping files turns the DSL's own cache off, so every build compiles.
  return {"CUTE_DSL_KEEP=ir-debug,ir,ptx,cubin", "CUTE_DSL_KEEP_IR=1", "CUTE_DSL_KEEP_PTX=1",
          "CUTE_DSL_KEEP_CUBIN=1", "CUTE_DSL_DUMP_DIR=" + folder};
}

std::vector<std::string> xla_env(const std::string& folder) {
  const char* user = std::getenv("XLA_FLAGS");
  std::string flags = user && *user ? std::string(user) + " " : "";
  // With a dump folder XLA's GPU compiler also writes each module's LLVM IR (.ll) and PTX.
  return {"XLA_FLAGS=" + flags + "--xla_dump_to=" + folder + " --xla_dump_hlo_as_text"};
}

// One row per framework (taps.hpp says how to add one).
const std::vector<FrameworkTap> k_frameworks = {
    {"triton", "Triton", "triton", nullptr, stem_group,
     ".source .ttir .ttgir .llir .ptx .cubin .json", nullptr},
    {"inductor", "TorchInductor", "inductor", nullptr, stem_group, ".py", nullptr},
    {"cute-dsl", "CuTe DSL", nullptr, cute_env, stem_group, ".mlir .ptx .cubin", "CUTE_DSL_ARCH"},
    {"xla", "XLA", nullptr, xla_env, xla_group, "optimizations.txt .ll .ptx", nullptr},
};

bool kept(const FrameworkTap& f, const std::string& name) {
  for (const auto& end : split(f.kept, ' '))
    if (!end.empty() && name.ends_with(end)) return true;
  return false;
}

// Every regular file under `root` (links are not followed), as paths relative to it.
void walk(const std::string& root, const std::string& rel, std::vector<std::string>& out,
          int depth) {
  if (depth > 16) return;
  std::string dir = rel.empty() ? root : root + "/" + rel;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    std::string sub = rel.empty() ? n : rel + "/" + n;
    struct stat st {};
    if (::lstat((root + "/" + sub).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      walk(root, sub, out, depth + 1);
    else if (S_ISREG(st.st_mode))
      out.push_back(sub);
  }
}

// A name kdet can keep in its tab-separated index.
bool plain_name(const std::string& s) {
  return std::none_of(s.begin(), s.end(),
                      [](char c) { return c == '\t' || c == '\n' || c == '\r'; });
}

std::vector<std::string> glob_files(const std::string& pattern, const std::string& cwd) {
  glob_t g{};
  std::vector<std::string> out;
  if (::glob((cwd + "/" + pattern).c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      struct stat st {};
      if (::lstat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode)) out.emplace_back(g.gl_pathv[i]);
    }
  ::globfree(&g);
  return out;
}

void keep_one(int build_fd, const std::string& build_dir, TapFile t, std::vector<TapFile>& out,
              std::vector<std::string>& problems) {
  std::string data;
  try {
    data = read_file(t.origin);
  } catch (const Error& e) {
    problems.push_back(fmt::format("stage tap {}: {}", t.origin, e.what()));
    return;
  }
  int rank = 0;
  t.cls = stage_class(t.rel, rank);
  t.rank = rank;
  t.hash = artifact_hash(t.cls == StageClass::ptx ? ArtifactForm::ptx : ArtifactForm::bytes, data);
  t.size = data.size();
  try {
    write_file_beneath(build_fd, "taps/" + t.rel, data, build_dir + "/taps/" + t.rel);
  } catch (const Error& e) {
    problems.push_back(e.what());
    return;
  }
  out.push_back(std::move(t));
}

} // namespace

const std::vector<FrameworkTap>& framework_taps() {
  return k_frameworks;
}

const char* to_string(StageClass c) {
  switch (c) {
  case StageClass::source:
    return "source";
  case StageClass::hlo:
    return "hlo";
  case StageClass::mlir:
    return "mlir";
  case StageClass::llvm:
    return "llvm";
  case StageClass::ptx:
    return "ptx";
  case StageClass::cubin:
    return "cubin";
  case StageClass::none:
    return "none";
  }
  return "none";
}

StageClass stage_class(const std::string& name, int& rank) {
  static const struct {
    const char* end;
    StageClass cls;
    int rank;
  } k_ends[] = {
      {".source", StageClass::source, 0},
      {".py", StageClass::source, 0},
      {".cu", StageClass::source, 0},
      {".cpp", StageClass::source, 0},
      {".c", StageClass::source, 0},
      {".src", StageClass::source, 0},
      {"before_optimizations.txt", StageClass::hlo, 10},
      {"after_optimizations.txt", StageClass::hlo, 11},
      {".mlir", StageClass::mlir, 20},
      {".ttir", StageClass::mlir, 21},
      {".ttgir", StageClass::mlir, 22},
      {"ir-no-opt.ll", StageClass::llvm, 30},
      {"ir-with-opt.ll", StageClass::llvm, 31},
      {".ll", StageClass::llvm, 30},
      {".llir", StageClass::llvm, 30},
      {".bc", StageClass::llvm, 30},
      {".ptx", StageClass::ptx, 40},
      {".cubin", StageClass::cubin, 50},
  };
  for (const auto& e : k_ends)
    if (name.ends_with(e.end)) {
      rank = e.rank;
      return e.cls;
    }
  rank = 99;
  return StageClass::none;
}

std::vector<std::string> fresh_tap_folders(int dir_fd, const std::string& abs_dir,
                                           std::vector<std::string>& recorded) {
  std::vector<std::string> env;
  for (const auto& f : k_frameworks) {
    if (f.recorded) {
      const char* v = std::getenv(f.recorded);
      recorded.push_back(fmt::format("{}={}", f.recorded, v ? v : "(unset)"));
    }
    if (f.cache) continue; // a known cache: fresh already (or kept with --warm)
    std::string rel = std::string("caches/tap-") + f.name;
    remove_tree_beneath(dir_fd, rel);
    Fd made(make_dirs_beneath(dir_fd, rel, 0700));
    if (!made.ok())
      throw Error::format("cannot create {}/{}: {}", abs_dir, rel, beneath_error(errno));
    for (auto& e : f.env(abs_dir + "/" + rel))
      env.push_back(std::move(e));
  }
  return env;
}

size_t clear_artifacts(const std::vector<std::string>& globs, const std::string& cwd) {
  size_t n = 0;
  for (const auto& g : globs)
    for (const auto& path : glob_files(g, cwd))
      n += ::unlink(path.c_str()) == 0;
  return n;
}

std::vector<TapFile> keep_taps(int build_fd, const std::string& build_dir,
                               const std::string& abs_dir, const std::vector<std::string>& globs,
                               const std::string& cwd, std::vector<std::string>& problems) {
  std::vector<TapFile> out;
  for (const auto& f : k_frameworks) {
    std::string root = abs_dir + "/caches/" + (f.cache ? f.cache : std::string("tap-") + f.name);
    std::vector<std::string> files;
    walk(root, "", files, 0);
    for (const auto& rel : files) {
      if (!kept(f, rel) || !plain_name(rel)) continue;
      TapFile t;
      t.framework = f.name;
      t.display = f.display;
      t.rel = std::string(f.name) + "/" + rel;
      t.origin = root + "/" + rel;
      t.group = f.group(rel);
      std::string base = base_of(rel);
      std::string stem = base_of(t.group);
      t.label = base.size() > stem.size() + 1 ? base.substr(stem.size() + 1) : base;
      keep_one(build_fd, build_dir, std::move(t), out, problems);
    }
  }
  std::vector<std::string> seen;
  for (const auto& g : globs)
    for (const auto& path : glob_files(g, cwd)) {
      std::string rel = path.substr(cwd.size() + 1);
      if (std::find(seen.begin(), seen.end(), rel) != seen.end() || !plain_name(rel)) continue;
      seen.push_back(rel);
      TapFile t;
      t.framework = "artifacts";
      t.display = "--artifacts";
      t.rel = "artifacts/" + rel;
      t.origin = path;
      t.group = stem_group(rel);
      std::string base = base_of(rel);
      t.label = base.find('.') == std::string::npos ? base : base.substr(base.find('.') + 1);
      keep_one(build_fd, build_dir, std::move(t), out, problems);
    }
  std::string index;
  for (const auto& t : out)
    index += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", t.framework, t.display, t.rel,
                         t.origin, t.hash, t.size, t.group, t.label);
  if (!out.empty())
    write_file_beneath(build_fd, "taps/index.tsv", index, build_dir + "/taps/index.tsv");
  return out;
}

std::vector<TapFile> read_taps(const std::string& build_dir, std::vector<std::string>& problems) {
  std::vector<TapFile> out;
  std::string text;
  struct stat st {};
  std::string path = build_dir + "/taps/index.tsv";
  if (::lstat(path.c_str(), &st) != 0) return out;
  if (!S_ISREG(st.st_mode)) {
    problems.push_back(path + ": not a regular file; its stage taps are not read");
    return out;
  }
  try {
    text = read_file(path);
  } catch (const Error& e) {
    problems.push_back(e.what());
    return out;
  }
  for (const auto& line : split(text, '\n')) {
    auto f = split(line, '\t');
    if (f.size() != 8) continue;
    TapFile t;
    t.framework = f[0];
    t.display = f[1];
    t.rel = f[2];
    if (t.rel.find("..") != std::string::npos || t.rel.empty() || t.rel[0] == '/') continue;
    t.origin = f[3];
    t.hash = f[4];
    t.size = std::strtoull(f[5].c_str(), nullptr, 10);
    t.group = f[6];
    t.label = f[7];
    int rank = 0;
    t.cls = stage_class(t.rel, rank);
    t.rank = rank;
    out.push_back(std::move(t));
  }
  return out;
}

} // namespace kdet::capture
