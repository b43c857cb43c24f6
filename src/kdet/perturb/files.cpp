//===- perturb/files.cpp - the files an input names, for the mtime factor ----===//
#include "kdet/perturb/files.hpp"

#include "kdet/util/fs.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::perturb {

namespace {

constexpr size_t k_max_header = 16u << 20; // headers larger than this are not read for includes

bool is_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string_view skip_space(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  return s;
}

// The text of the first "..." in `s` (backslash escapes kept as the next byte), or nullopt.
std::optional<std::string> quoted(std::string_view s, char open = '"', char close = '"') {
  auto b = s.find(open);
  if (b == std::string_view::npos) return std::nullopt;
  std::string out;
  for (size_t i = b + 1; i < s.size(); ++i) {
    if (s[i] == '\\' && open == '"' && i + 1 < s.size()) {
      out += s[++i];
    } else if (s[i] == close) {
      return out;
    } else {
      out += s[i];
    }
  }
  return std::nullopt;
}

// The value of `key: "..."` inside `s`, or "".
std::string field(std::string_view s, std::string_view key) {
  auto k = s.find(key);
  if (k == std::string_view::npos) return {};
  return quoted(s.substr(k + key.size())).value_or("");
}

// A name as the input gave it, with where to look for it.
struct Name {
  std::string text;
  std::vector<std::string> folders; // tried in order for a relative name
  bool header = false;              // read it for its own includes
};

// The names one text gives, in order.
void scan_text(std::string_view text, const std::string& own_folder,
               const std::vector<std::string>& include_dirs, const std::string& cwd,
               std::vector<Name>& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = skip_space(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.starts_with(".file")) {
      if (auto q = quoted(line)) out.push_back({*q, {cwd}, false});
    } else if (line.starts_with("#")) {
      std::string_view d = skip_space(line.substr(1));
      if (d.starts_with("include")) {
        d = skip_space(d.substr(7));
        if (d.starts_with("\"")) {
          if (auto q = quoted(d)) {
            std::vector<std::string> f = {own_folder};
            f.insert(f.end(), include_dirs.begin(), include_dirs.end());
            out.push_back({*q, f, true});
          }
        } else if (d.starts_with("<")) {
          if (auto q = quoted(d, '<', '>')) out.push_back({*q, include_dirs, true});
        }
      } else if (d.starts_with("line") || (!d.empty() && d.front() >= '0' && d.front() <= '9')) {
        if (auto q = quoted(d)) out.push_back({*q, {own_folder, cwd}, false});
      }
    } else if (auto di = line.find("!DIFile("); di != std::string_view::npos) {
      std::string_view args = line.substr(di);
      std::string name = field(args, "filename:");
      std::string dir = field(args, "directory:");
      if (!name.empty()) {
        std::string folder = dir.empty() ? cwd : dir.front() == '/' ? dir : cwd + "/" + dir;
        out.push_back({name, {folder}, false});
      }
    }
  }
}

// -I DIR, -IDIR, --include-path DIR, --include-path=DIR (nvcc, NVRTC), relative to `cwd`.
std::vector<std::string> include_dirs(const std::vector<std::string>& options,
                                      const std::string& cwd) {
  std::vector<std::string> dirs;
  auto add = [&](const std::string& d) {
    if (!d.empty()) dirs.push_back(d.front() == '/' ? d : cwd + "/" + d);
  };
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    for (const std::string flag : {"-I", "--include-path"}) {
      if (o == flag && i + 1 < options.size()) {
        add(options[++i]);
      } else if (o.starts_with(flag + "=")) {
        add(o.substr(flag.size() + 1));
      } else if (flag == "-I" && o.starts_with(flag) && o.size() > 2) {
        add(o.substr(2));
      }
    }
  }
  return dirs;
}

bool looks_binary(std::string_view text) {
  return text.substr(0, 4096).find('\0') != std::string_view::npos;
}

} // namespace

std::vector<std::string> named_files(const std::string& input, const std::string& input_path,
                                     const std::vector<std::string>& options,
                                     const std::string& cwd, size_t limit,
                                     std::vector<std::string>* cwd_names) {
  std::vector<std::string> found;
  if (looks_binary(input)) return found;
  const std::vector<std::string> dirs = include_dirs(options, cwd);
  std::vector<Name> names;
  scan_text(input, folder_of(input_path), dirs, cwd, names);
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size() && found.size() < limit; ++i) {
    const Name n = names[i];                                     // names grows below
    std::vector<std::pair<std::string, std::string>> candidates; // (path, name in cwd)
    if (!n.text.empty() && n.text.front() == '/')
      candidates.emplace_back(n.text, "");
    else
      for (const auto& f : n.folders)
        candidates.emplace_back(f + "/" + n.text, f == cwd ? n.text : "");
    for (const auto& [c, in_cwd] : candidates) {
      std::string path = std::filesystem::path(c).lexically_normal().string();
      if (!is_regular(path)) continue;
      if (seen.insert(path).second) {
        found.push_back(path);
        if (cwd_names) cwd_names->push_back(in_cwd);
        if (n.header) {
          try {
            std::string text = read_file(path);
            if (text.size() <= k_max_header && !looks_binary(text))
              scan_text(text, folder_of(path), dirs, cwd, names);
          } catch (const std::exception&) {
            // An unreadable header is still a file whose time the compiler may see.
          }
        }
      }
      break;
    }
  }
  return found;
}

namespace {

// Copies `from` (bytes and mode) to a new file `to`; "" or why not.
std::string copy_file(const std::string& from, const std::string& to) {
  // O_NOATIME: reading the user's file must not move its access time (root or its owner).
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
  if (in < 0 && errno == EPERM) in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return "cannot read " + from + ": " + std::strerror(errno);
  struct stat st {};
  std::string bytes;
  char buf[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(in, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) bytes.append(buf, static_cast<size_t>(n));
  const int read_errno = errno;
  const bool ok = n == 0 && ::fstat(in, &st) == 0;
  ::close(in);
  if (!ok) return "cannot read " + from + ": " + std::strerror(read_errno);
  int out =
      ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777);
  if (out < 0) return "cannot create " + to + ": " + std::strerror(errno);
  const bool written = write_all(out, bytes);
  const int write_errno = errno;
  ::close(out);
  if (!written) return "cannot write " + to + ": " + std::strerror(write_errno);
  return {};
}

} // namespace

std::string place_file_times(const std::vector<FileTime>& files) {
  for (const auto& f : files) {
    const std::string& target = f.copy.empty() ? f.path : f.copy;
    if (!f.copy.empty()) {
      if (std::string why = copy_file(f.path, f.copy); !why.empty()) return why;
    } else if (!f.source.empty()) {
      try {
        make_dirs(folder_of(f.path));
      } catch (const std::exception& e) {
        return e.what();
      }
      if (std::string why = copy_file(f.source, f.path); !why.empty()) return why;
    }
    struct timespec times[2] = {{f.seconds, 0}, {f.seconds, 0}};
    if (::utimensat(AT_FDCWD, target.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
      return "cannot set the time of " + target + ": " + std::strerror(errno);
  }
  return {};
}

} // namespace kdet::perturb
