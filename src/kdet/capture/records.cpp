//===- capture/records.cpp - record files in, compiles and bundles out ------===//
#include "kdet/capture/records.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace kdet::capture {

namespace {

bool is_hash(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool to_u64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 19 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::stoull(s);
  return true;
}

// "-" is absent; "x" + hex pairs is the bytes.
bool decode_text(const std::string& s, std::optional<std::string>& out) {
  if (s == "-") {
    out.reset();
    return true;
  }
  if (s.empty() || s[0] != 'x' || s.size() % 2 != 1) return false;
  std::string v;
  for (size_t i = 1; i < s.size(); i += 2) {
    auto nib = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = nib(s[i]), lo = nib(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    v.push_back(static_cast<char>(hi * 16 + lo));
  }
  out = std::move(v);
  return true;
}

// One line of a record into `c`; false when it is not a line kdet writes.
bool apply_line(Compile& c, const std::vector<std::string>& w) {
  const std::string& key = w[0];
  uint64_t n = 0;
  std::optional<std::string> text;
  if (key == "kind" && w.size() == 2 &&
      (w[1] == "nvvm" || w[1] == "nvrtc" || w[1] == "nvjitlink" || w[1] == "exec" ||
       w[1] == "load"))
    c.kind = w[1];
  else if (key == "ancestors") {
    c.ancestors.clear();
    for (size_t i = 1; i < w.size() && to_u64(w[i], n); ++i)
      c.ancestors.push_back(static_cast<long>(n));
  } else if ((key == "pid" || key == "ppid" || key == "thread") && w.size() == 2 && to_u64(w[1], n))
    (key == "pid" ? c.pid : key == "ppid" ? c.ppid : c.thread) = static_cast<long>(n);
  else if (key == "time_ns" && w.size() == 2 && to_u64(w[1], n))
    c.time_ns = n;
  else if (key == "lib" && w.size() == 2 && decode_text(w[1], text) && text)
    c.lib = *text;
  else if (key == "lib_hash" && w.size() == 2 && is_hash(w[1]))
    c.lib_hash = w[1];
  else if (key == "lib_size" && w.size() == 2 && to_u64(w[1], n))
    c.lib_size = n;
  else if (key == "module" && w.size() == 5 && is_hash(w[1]) && to_u64(w[2], n) &&
           (w[3] == "0" || w[3] == "1") && decode_text(w[4], text))
    c.inputs.push_back({key, w[1], n, w[3] == "1", text});
  else if (key == "jit_input" && w.size() == 5 && is_hash(w[1]) && to_u64(w[2], n) &&
           parse_u64(w[3]) && *parse_u64(w[3]) <= 255 && decode_text(w[4], text))
    c.inputs.push_back({key, w[1], n, false, text, static_cast<int>(*parse_u64(w[3]))});
  else if ((key == "source" || key == "header" || key == "image") && w.size() == 4 &&
           is_hash(w[1]) && to_u64(w[2], n) && decode_text(w[3], text))
    c.inputs.push_back({key, w[1], n, false, text});
  else if (key == "name_expr" && w.size() == 2 && decode_text(w[1], text))
    c.inputs.push_back({key, "", 0, false, text});
  else if (key == "option" && w.size() == 2 && decode_text(w[1], text) && text)
    c.options.push_back(*text);
  else if (key == "begin" && w.size() == 1)
    c.begun = true;
  else if (key == "result" && w.size() == 2 && to_u64(w[1], n) && n <= 0xffffffffu)
    c.result = static_cast<int>(static_cast<uint32_t>(n));
  else if (key == "output" && w.size() == 4 && is_hash(w[2]) && to_u64(w[3], n))
    c.outputs.push_back({w[1], w[2], n});
  else if (key == "log" && w.size() == 3 && is_hash(w[1]) && to_u64(w[2], n))
    c.log = Output{"log", w[1], n};
  else if (key == "info_log" && w.size() == 3 && is_hash(w[1]) && to_u64(w[2], n))
    c.info_log = Output{"info_log", w[1], n};
  else if (c.kind == "exec")
    return apply_exec_line(c, w);
  else
    return false;
  return true;
}

} // namespace

std::vector<Compile> parse_log(const std::string& text, const std::string& name,
                               std::vector<std::string>& problems) {
  std::vector<Compile> out;
  std::map<std::string, size_t> by_id; // record id -> index in `out`
  bool in_header = false;              // between "kdet-capture-record 1 ID" and "begin"
  size_t pos = 0;
  size_t noted = 0; // at most 5 notes per log, then a count
  auto problem = [&](const std::string& why) {
    if (noted++ < 5) problems.push_back(fmt::format("{}: {}", name, why));
  };
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      problem("cut short (last line incomplete)");
      break;
    }
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::vector<std::string> w = split(line, ' ');
    if (w.size() == 3 && w[0] == "kdet-capture-record" && w[1] == "1" && parse_u64(w[2])) {
      if (in_header) problem("a compile's header is incomplete");
      Compile c;
      c.record = fmt::format("{}#{}", name, w[2]);
      by_id[w[2]] = out.size();
      out.push_back(std::move(c));
      in_header = true;
      continue;
    }
    bool ok = false;
    if (in_header) {
      ok = !w.empty() && apply_line(out.back(), w);
      if (ok && out.back().begun) in_header = false;
      if (!ok) {
        out.pop_back(); // a damaged header is never believed
        in_header = false;
      }
    } else if (w.size() >= 2) {
      auto it = by_id.find(w[0]);
      std::vector<std::string> rest(w.begin() + 1, w.end());
      ok = it != by_id.end() && it->second < out.size() && apply_line(out[it->second], rest);
    }
    if (!ok) problem(fmt::format("unreadable line '{}'", line.substr(0, 80)));
  }
  if (in_header) out.pop_back(); // the header was cut short
  if (noted > 5) problems.push_back(fmt::format("{}: {} more unreadable lines", name, noted - 5));
  return out;
}

namespace {

// Every record under `raw`/records, compiles and loads, in time order.
std::vector<Compile> read_all_records(const std::string& raw, std::vector<std::string>& problems) {
  std::vector<Compile> out;
  std::string dir = raw + "/records";
  std::vector<std::string> names;
  for (auto& n : list_raw_folder(raw, "records", problems))
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".log") == 0) names.push_back(std::move(n));
  for (const auto& n : names) {
    // Non-blocking, and only a regular file: a FIFO planted there is named, never waited on.
    int fd = ::open((dir + "/" + n).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      problems.push_back(fmt::format("records/{}: cannot read: {}", n, std::strerror(errno)));
      continue;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      problems.push_back(fmt::format("records/{}: not a regular file (a FIFO, device or "
                                     "folder): not a record log of the preload; skipped",
                                     n));
      ::close(fd);
      continue;
    }
    std::string text;
    char buf[1 << 16];
    ssize_t r;
    while ((r = ::read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
      if (r > 0) text.append(buf, static_cast<size_t>(r));
    if (r < 0)
      problems.push_back(
          fmt::format("records/{}: read failed: {}; the rest is ignored", n, std::strerror(errno)));
    ::close(fd);
    for (auto& c : parse_log(text, n, problems))
      if (c.begun && !c.kind.empty()) out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Compile& a, const Compile& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.record < b.record;
  });
  return out;
}

} // namespace

std::vector<Compile> read_records(const std::string& raw, std::vector<std::string>& problems) {
  std::vector<Compile> out = read_all_records(raw, problems);
  std::erase_if(out, [](const Compile& c) { return c.kind == "load"; });
  return out;
}

std::vector<Compile> read_load_records(const std::string& raw) {
  std::vector<std::string> problems; // read_records said them
  std::vector<Compile> out = read_all_records(raw, problems);
  std::erase_if(out, [](const Compile& c) { return c.kind != "load"; });
  return out;
}

ArtifactForm input_form(const Input& in) {
  constexpr int k_jit_ptx = 2; // NVJITLINK_INPUT_PTX
  bool ptx = (in.tag == "jit_input" && in.type == k_jit_ptx) ||
             (in.tag == "file" && in.name && file_extension(*in.name) == "ptx");
  return ptx ? ArtifactForm::ptx : ArtifactForm::bytes;
}

ArtifactForm output_form(const std::string& kind) {
  bool ptx = kind == "nvvm" || kind == "ptx" || starts_with(kind, "ptx-");
  return ptx ? ArtifactForm::ptx : ArtifactForm::bytes;
}

void name_by_artifact_hash(std::vector<Compile>& compiles, const BlobStore& blobs) {
  for (auto& c : compiles) {
    for (auto& in : c.inputs) {
      if (in.tag == "name_expr") continue;
      std::string name = blobs.artifact_hash_of(in.hash, input_form(in));
      if (name != in.hash) in.stored = std::exchange(in.hash, name);
    }
    for (auto& o : c.outputs) {
      std::string name = blobs.artifact_hash_of(o.hash, output_form(o.kind));
      if (name != o.hash) o.stored = std::exchange(o.hash, name);
    }
  }
}

std::string bundle_id(const Compile& c) {
  Hasher h;
  // The id's salt: kept at schema 1, so that a bundle without PTX inputs keeps its id.
  h.add("kdet.capture.bundle/1").add(c.kind).add(c.lib_hash).add_u64(c.inputs.size());
  for (const auto& i : c.inputs) {
    h.add(i.tag).add(i.hash).add_u64(i.lazy ? 1 : 0).add_u64(i.name ? 1 : 0);
    // A command's input is named by its path as given: where the file is does not
    // make another compile (its place in argv is in the options, as {input}).
    h.add(c.kind == "exec" ? "" : i.name.value_or(""));
    if (i.tag == "jit_input") h.add_u64(static_cast<uint64_t>(i.type));
  }
  h.add_u64(c.options.size());
  for (const auto& o : c.options)
    h.add(o);
  if (c.kind == "exec") add_exec_identity(h, c);
  return h.hex().substr(0, 16);
}

std::vector<Bundle> group_bundles(std::vector<Compile>& compiles) {
  std::vector<Bundle> bundles;
  std::map<std::string, size_t> index;
  for (auto& c : compiles) {
    c.bundle = bundle_id(c);
    auto [it, fresh] = index.emplace(c.bundle, bundles.size());
    if (fresh) {
      Bundle b;
      b.id = c.bundle;
      b.kind = c.kind;
      b.lib = c.lib;
      b.lib_hash = c.lib_hash;
      b.lib_size = c.lib_size;
      b.inputs = c.inputs;
      b.options = c.options;
      bundles.push_back(std::move(b));
    }
    Bundle& b = bundles[it->second];
    ++b.compiles;
    if (c.kind == "exec") {
      std::string place = c.exec.cwd;
      for (const auto& i : c.inputs)
        place += '\n' + i.name.value_or("");
      b.places.insert(place);
    }
    if (!c.result)
      ++b.unfinished;
    else
      ++b.results[*c.result];
    for (const auto& o : c.outputs) {
      auto key = std::make_pair(o.kind, o.hash);
      if (b.counts[key]++ == 0) b.outputs.push_back(key);
      if (b.sizes.emplace(o.hash, o.size).second && !o.stored.empty()) b.stored[o.hash] = o.stored;
    }
  }
  for (auto& b : bundles) {
    std::set<std::string> kinds;
    for (const auto& [kind, hash] : b.outputs)
      if (!kinds.insert(kind).second) b.varies = true;
    if (b.results.size() > 1) b.varies = true;
  }
  return bundles;
}

std::vector<Bundle> bundle_records(std::vector<Compile>& compiles, const BlobStore& blobs) {
  name_by_artifact_hash(compiles, blobs);
  return group_bundles(compiles);
}

} // namespace kdet::capture
