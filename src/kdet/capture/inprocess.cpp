//===- capture/inprocess.cpp - compilers inside the pipeline's own processes ===//
//
// Each distinct mapped file is scanned once (a memo by device, inode, size and
// modification time, so the same libtriton.so in every build of `capture --builds`
// costs one scan) for the strings a GPU compiler cannot do without:
//
//   "NVIDIA PTX 64-bit"               LLVM's NVPTX target registration (libtriton,
//                                     jaxlib, libLLVM under llvmlite, libNVVM itself)
//   "NVVM_ERROR_IR_VERSION_MISMATCH"  libNVVM's error strings (nvvmGetErrorString)
//   "Used %d registers"               the PTX compiler's report (ptxas, nvJitLink,
//                                     NVRTC, the driver's JIT)
//
// and its dynamic symbols: a file that exports nvvmCompileProgram,
// nvrtcCompileProgram or nvJitLinkComplete is reached through the API the preload
// wraps, so its compiles are seen. API names as plain strings prove nothing (a
// library that dlopens NVRTC holds "nvrtcCompileProgram" too).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/inprocess.hpp"

#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace kdet::capture {

namespace {

struct Markers {
  std::vector<std::string> inside;
  bool exports_api = false;
};

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// True when the ELF file `fd` exports (defines in .dynsym) one of the compile entry points
// the preload wraps.
bool exports_compile_api(int fd) {
  static std::once_flag once;
  std::call_once(once, [] { elf_version(EV_CURRENT); });
  Elf* e = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!e) return false;
  bool found = false;
  Elf_Scn* scn = nullptr;
  while (!found && (scn = elf_nextscn(e, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n && !found; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(e, sh.sh_link, sym.st_name);
      if (!name) continue;
      std::string_view s(name);
      found = s == "nvvmCompileProgram" || s == "nvrtcCompileProgram" || s == "nvJitLinkComplete" ||
              starts_with(std::string(s), "__nvJitLinkComplete_");
    }
  }
  elf_end(e);
  return found;
}

Markers scan_file(const std::string& path, const struct stat& st) {
  Markers m;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return m;
  struct stat now {};
  if (::fstat(fd, &now) != 0 || !S_ISREG(now.st_mode) || now.st_ino != st.st_ino ||
      now.st_size == 0) {
    ::close(fd);
    return m;
  }
  size_t size = static_cast<size_t>(now.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p != MAP_FAILED) {
    static const std::pair<const char*, const char*> k_markers[] = {
        {"NVIDIA PTX 64-bit", "an NVPTX back end"},
        {"NVVM_ERROR_IR_VERSION_MISMATCH", "libNVVM"},
        {"Used %d registers", "a PTX compiler"},
    };
    for (auto [marker, what] : k_markers)
      if (::memmem(p, size, marker, std::strlen(marker))) m.inside.emplace_back(what);
    ::munmap(p, size);
  }
  if (!m.inside.empty()) m.exports_api = exports_compile_api(fd);
  ::close(fd);
  return m;
}

// Each file's markers, by (device, inode, size, mtime), for the life of the kdet process.
const Markers& markers_of(const std::string& path, const struct stat& st) {
  static std::mutex mutex;
  static std::map<std::tuple<dev_t, ino_t, off_t, long, long>, Markers> memo;
  auto key = std::make_tuple(st.st_dev, st.st_ino, st.st_size, static_cast<long>(st.st_mtim.tv_sec),
                             st.st_mtim.tv_nsec);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = memo.find(key);
  if (it == memo.end()) it = memo.emplace(key, scan_file(path, st)).first;
  return it->second;
}

bool driver_file(const std::string& base) {
  return starts_with(base, "libcuda.so") || starts_with(base, "libnvidia-ptxjitcompiler.so");
}

} // namespace

const char* to_string(Seam s) {
  switch (s) {
  case Seam::interposed:
    return "interposed";
  case Seam::command:
    return "command";
  case Seam::driver:
    return "driver";
  case Seam::blind:
    return "blind";
  }
  return "blind";
}

std::string CompilerInside::words() const {
  std::string what;
  for (size_t i = 0; i < inside.size(); ++i)
    what += (i == 0 ? "" : i + 1 == inside.size() ? " and " : ", ") + inside[i];
  return fmt::format("{} has {}", base_name(path), what);
}

MappedFiles read_maps(const std::string& raw, std::vector<std::string>& problems) {
  MappedFiles out;
  std::string dir = raw + "/maps";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".maps") == 0) names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    int fd = ::open((dir + "/" + n).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    std::string text;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (64 << 20)) {
      text.resize(static_cast<size_t>(st.st_size));
      ssize_t got = ::read(fd, text.data(), text.size());
      text.resize(got > 0 ? static_cast<size_t>(got) : 0);
    } else {
      problems.push_back(fmt::format("{}/{}: not a maps file kdet wrote; skipped", dir, n));
    }
    ::close(fd);
    auto lines = split(text, '\n');
    if (lines.empty() || !starts_with(lines[0], "kdet-maps 1 ")) continue;
    long pid = std::strtol(lines[0].c_str() + 12, nullptr, 10);
    auto& files = out[pid];
    for (size_t i = 1; i < lines.size(); ++i) {
      // "MAJ:MIN INODE PATH"
      size_t a = lines[i].find(' ');
      size_t b = a == std::string::npos ? a : lines[i].find(' ', a + 1);
      if (b == std::string::npos || b + 1 >= lines[i].size() || lines[i][b + 1] != '/') continue;
      std::string path = lines[i].substr(b + 1);
      if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
    }
  }
  return out;
}

std::vector<CompilerInside> compilers_inside(const MappedFiles& maps,
                                             const std::vector<Compile>& compiles) {
  std::set<std::string> programs;
  for (const auto& c : compiles)
    if (c.kind() == "exec" && !c.lib().empty()) programs.insert(c.lib());
  std::map<std::string, CompilerInside> found;
  for (const auto& [pid, files] : maps)
    for (const auto& path : files) {
      std::string base = base_name(path);
      if (starts_with(base, "libkdet_capture.so") || base == "kdet-exec-shim") continue;
      auto it = found.find(path);
      if (it == found.end()) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        const Markers& m = markers_of(path, st);
        if (m.inside.empty()) continue;
        CompilerInside ci;
        ci.path = path;
        ci.inside = m.inside;
        ci.seam = driver_file(base)      ? Seam::driver
                  : programs.count(path) ? Seam::command
                  : m.exports_api        ? Seam::interposed
                                         : Seam::blind;
        it = found.emplace(path, std::move(ci)).first;
      }
      it->second.pids.push_back(pid);
    }
  std::vector<CompilerInside> out;
  out.reserve(found.size());
  for (auto& [path, ci] : found)
    out.push_back(std::move(ci));
  std::stable_sort(out.begin(), out.end(), [](const CompilerInside& a, const CompilerInside& b) {
    return (a.seam == Seam::blind) > (b.seam == Seam::blind);
  });
  return out;
}

std::vector<const CompilerInside*> unseen_makers(const std::vector<CompilerInside>& inside,
                                                 const Compile& c) {
  std::vector<long> line = {c.pid};
  line.insert(line.end(), c.ancestors->begin(), c.ancestors->end());
  if (c.ppid) line.push_back(c.ppid);
  bool any_maps = false;
  for (long pid : line) {
    std::vector<const CompilerInside*> out;
    for (const auto& ci : inside) {
      bool here = std::find(ci.pids.begin(), ci.pids.end(), pid) != ci.pids.end();
      any_maps = any_maps || here;
      if (here && ci.seam == Seam::blind) out.push_back(&ci);
    }
    if (!out.empty()) return out;
  }
  std::vector<const CompilerInside*> out;
  if (!any_maps)
    for (const auto& ci : inside)
      if (ci.seam == Seam::blind) out.push_back(&ci);
  return out;
}

std::string makers_words(const std::vector<const CompilerInside*>& makers) {
  std::string s;
  for (const auto* m : makers)
    s += (s.empty() ? "" : "; ") + m->words();
  return s;
}

} // namespace kdet::capture
