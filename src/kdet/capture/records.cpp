//===- capture/records.cpp - record files in, compiles and bundles out ------===//
#include "kdet/capture/records.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string_view>
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
    c.call_mut().kind = w[1];
  else if (key == "ancestors") {
    c.ancestors.mut().clear();
    for (size_t i = 1; i < w.size() && to_u64(w[i], n); ++i)
      c.ancestors.mut().push_back(static_cast<long>(n));
  } else if ((key == "pid" || key == "ppid" || key == "thread") && w.size() == 2 && to_u64(w[1], n))
    (key == "pid" ? c.pid : key == "ppid" ? c.ppid : c.thread) = static_cast<long>(n);
  else if (key == "time_ns" && w.size() == 2 && to_u64(w[1], n))
    c.time_ns = n;
  else if (key == "lib" && w.size() == 2 && decode_text(w[1], text) && text)
    c.call_mut().lib = *text;
  else if (key == "lib_hash" && w.size() == 2 && is_hash(w[1]))
    c.call_mut().lib_hash = w[1];
  else if (key == "lib_size" && w.size() == 2 && to_u64(w[1], n))
    c.call_mut().lib_size = n;
  else if (key == "module" && w.size() == 5 && is_hash(w[1]) && to_u64(w[2], n) &&
           (w[3] == "0" || w[3] == "1") && decode_text(w[4], text))
    c.call_mut().inputs.push_back({key, w[1], n, w[3] == "1", text});
  else if (key == "jit_input" && w.size() == 5 && is_hash(w[1]) && to_u64(w[2], n) &&
           parse_u64(w[3]) && *parse_u64(w[3]) <= 255 && decode_text(w[4], text))
    c.call_mut().inputs.push_back({key, w[1], n, false, text, static_cast<int>(*parse_u64(w[3]))});
  else if ((key == "source" || key == "header" || key == "image") && w.size() == 4 &&
           is_hash(w[1]) && to_u64(w[2], n) && decode_text(w[3], text))
    c.call_mut().inputs.push_back({key, w[1], n, false, text});
  else if (key == "name_expr" && w.size() == 2 && decode_text(w[1], text))
    c.call_mut().inputs.push_back({key, "", 0, false, text});
  else if (key == "option" && w.size() == 2 && decode_text(w[1], text) && text)
    c.call_mut().options.push_back(*text);
  else if (key == "begin" && w.size() == 1)
    c.begun = true;
  else if (key == "result" && w.size() == 2 && to_u64(w[1], n) && n <= 0xffffffffu)
    c.result = static_cast<int>(static_cast<uint32_t>(n));
  else if (key == "output" && w.size() == 4 && is_hash(w[2]) && to_u64(w[3], n))
    c.outputs_mut().push_back({w[1], w[2], n});
  else if (key == "log" && w.size() == 3 && is_hash(w[1]) && to_u64(w[2], n))
    c.log = Output{"log", w[1], n};
  else if (key == "info_log" && w.size() == 3 && is_hash(w[1]) && to_u64(w[2], n))
    c.info_log = Output{"info_log", w[1], n};
  else if (c.kind() == "exec")
    return apply_exec_line(c, w);
  else
    return false;
  return true;
}

} // namespace

namespace {

// One copy of each distinct call and list of outputs among the compiles read: a compile's own is
// swapped for an equal one read before, so compiles alike share it. Its copies are never changed
// while it holds them (Compile::call_mut copies a shared one first).
class Shared {
public:
  // A command's call stays its own: its bundle is made of its environment too
  // (add_exec_identity), which is not in the call.
  void call(Compile& c) {
    if (c.call_ && c.kind() != "exec") c.call_ = *calls_.insert(c.call_).first;
  }
  void outputs(Compile& c) {
    if (c.outputs_) c.outputs_ = *outputs_.insert(c.outputs_).first;
  }

private:
  struct Less {
    template <class T>
    bool operator()(const std::shared_ptr<T>& a, const std::shared_ptr<T>& b) const {
      return *a < *b;
    }
  };
  std::set<std::shared_ptr<Call>, Less> calls_;
  std::set<std::shared_ptr<std::vector<Output>>, Less> outputs_;
};

// Which records a reading keeps.
enum class Keep { all, compiles, loads };

// Reads one record log a line at a time into `out` (see parse_log), keeping only the records
// `keep` asks for: a record of another kind is dropped at its "begin" line, so a reading of the
// loads never holds the compiles (nor a log's text).
class LogReader {
public:
  LogReader(const std::string& name, std::vector<std::string>& problems, Keep keep,
            std::vector<Compile>& out, Shared& shared)
      : name_(name), problems_(problems), keep_(keep), out_(out), shared_(shared) {}

  void line(std::string_view text) {
    std::vector<std::string> w = split(std::string(text), ' ');
    if (w.size() == 3 && w[0] == "kdet-capture-record" && w[1] == "1" && parse_u64(w[2])) {
      if (in_header_) problem("a compile's header is incomplete"); // left unbegun: dropped
      Compile c;
      c.record = fmt::format("{}#{}", name_, w[2]);
      by_id_[w[2]] = out_.size();
      out_.push_back(std::move(c));
      in_header_ = true;
      return;
    }
    bool ok = false;
    if (in_header_) {
      ok = !w.empty() && apply_line(out_.back(), w);
      if (ok && out_.back().begun) {
        in_header_ = false;
        if (!kept(out_.back())) {
          by_id_[id_of(out_.back())] = k_dropped;
          out_.pop_back();
        } else {
          shared_.call(out_.back());
        }
      }
      if (!ok) {
        // A damaged header is never believed, nor its id: the next record takes its place in
        // `out_`, and the damaged one's later lines must not land on it.
        by_id_.erase(id_of(out_.back()));
        out_.pop_back();
        in_header_ = false;
      }
    } else if (w.size() >= 2) {
      auto it = by_id_.find(w[0]);
      std::vector<std::string> rest(w.begin() + 1, w.end());
      if (it != by_id_.end() && it->second == k_dropped) {
        // A record not asked for: a load's line is still checked, as when it was kept (the
        // reading of the compiles names what cannot be read; that of the loads says nothing).
        if (keep_ != Keep::compiles) return;
        Compile load;
        load.call_mut().kind = "load";
        ok = apply_line(load, rest);
      } else {
        ok = it != by_id_.end() && it->second >= first_ && it->second < out_.size() &&
             apply_line(out_[it->second], rest);
        if (ok && rest[0] == "output") shared_.outputs(out_[it->second]);
      }
    }
    if (!ok) problem(fmt::format("unreadable line '{}'", text.substr(0, 80)));
  }

  // The log ended; `cut` when its last line had no newline.
  void end(bool cut) {
    if (cut) problem("cut short (last line incomplete)");
    if (in_header_) { // the log ends inside a compile's header: that compile is dropped, said
      problem("a compile's header is incomplete (the log ends inside it)");
      out_.pop_back();
    }
    in_header_ = false;
    if (noted_ > 5)
      problems_.push_back(fmt::format("{}: {} more unreadable lines", name_, noted_ - 5));
  }

private:
  static constexpr size_t k_dropped = SIZE_MAX;
  bool kept(const Compile& c) const {
    return keep_ == Keep::all || (keep_ == Keep::loads) == (c.kind() == "load");
  }
  std::string id_of(const Compile& c) const { return c.record.substr(name_.size() + 1); }
  void problem(const std::string& why) {
    if (noted_++ < 5) problems_.push_back(fmt::format("{}: {}", name_, why));
  }
  const std::string& name_;
  std::vector<std::string>& problems_;
  Keep keep_;
  std::vector<Compile>& out_;
  Shared& shared_;
  size_t first_ = out_.size();          // this log's first record in `out_`
  std::map<std::string, size_t> by_id_; // record id -> index in `out_`
  bool in_header_ = false;              // between "kdet-capture-record 1 ID" and "begin"
  size_t noted_ = 0;                    // at most 5 notes per log, then a count
};

} // namespace

std::vector<Compile> parse_log(const std::string& text, const std::string& name,
                               std::vector<std::string>& problems) {
  std::vector<Compile> got;
  Shared shared;
  LogReader reader(name, problems, Keep::all, got, shared);
  size_t pos = 0;
  bool cut = false;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      cut = true;
      break;
    }
    reader.line(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
  }
  reader.end(cut);
  return got;
}

namespace {

// Hands each whole line of `fd` (from its start, a block at a time) to `line`; true when the
// last line had no newline (cut short). -1 in `err` with errno when a read failed.
template <class F> bool for_each_line(int fd, F&& line, int& err) {
  std::string pending; // the part of a line read so far
  char buf[1 << 16];
  off_t at = 0;
  ssize_t r;
  err = 0;
  while ((r = ::pread(fd, buf, sizeof buf, at)) > 0 || (r < 0 && errno == EINTR)) {
    if (r <= 0) continue;
    at += r;
    std::string_view block(buf, static_cast<size_t>(r));
    size_t nl;
    while ((nl = block.find('\n')) != std::string_view::npos) {
      if (pending.empty()) {
        line(block.substr(0, nl));
      } else {
        pending.append(block.substr(0, nl));
        line(std::string_view(pending));
        pending.clear();
      }
      block.remove_prefix(nl + 1);
    }
    pending.append(block);
  }
  if (r < 0) err = errno;
  return !pending.empty();
}

// The records under `raw`/records that `keep` asks for, in time order. Each log is read a
// block at a time, twice: its records are counted first, so that their vector is made once, at
// their number (not grown by doubling, nor copied from another container).
std::vector<Compile> read_all_records(const std::string& raw, std::vector<std::string>& problems,
                                      Keep keep) {
  std::string dir = raw + "/records";
  // A log opened non-blocking, and only a regular file: a FIFO planted there is named, never
  // waited on. Opened once a pass (a build may leave thousands of logs: never all open at once).
  auto open_log = [&](const std::string& n, bool say) {
    Fd fd(::open((dir + "/" + n).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st {};
    if (!fd.ok()) {
      if (say)
        problems.push_back(fmt::format("records/{}: cannot read: {}", n, std::strerror(errno)));
    } else if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      if (say)
        problems.push_back(fmt::format("records/{}: not a regular file (a FIFO, device or "
                                       "folder): not a record log of the preload; skipped",
                                       n));
      fd = Fd();
    }
    return fd;
  };
  std::vector<std::string> names;
  size_t records = 0;
  int err = 0;
  for (auto& n : list_raw_folder(raw, "records", problems)) {
    if (n.size() <= 4 || n.compare(n.size() - 4, 4, ".log") != 0) continue;
    Fd fd = open_log(n, false);
    if (fd.ok())
      for_each_line(
          fd.get(), [&](std::string_view l) { records += starts_with(l, "kdet-capture-record "); },
          err);
    names.push_back(std::move(n));
  }
  std::vector<Compile> out;
  out.reserve(records);
  Shared shared;
  for (const auto& n : names) {
    Fd fd = open_log(n, true);
    if (!fd.ok()) continue;
    LogReader reader(n, problems, keep, out, shared);
    bool cut = for_each_line(
        fd.get(), [&](std::string_view l) { reader.line(l); }, err);
    if (err)
      problems.push_back(
          fmt::format("records/{}: read failed: {}; the rest is ignored", n, std::strerror(err)));
    reader.end(cut);
  }
  std::erase_if(out, [](const Compile& c) { return !c.begun || c.kind().empty(); });
  std::sort(out.begin(), out.end(), [](const Compile& a, const Compile& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.record < b.record;
  });
  return out;
}

} // namespace

std::vector<Compile> read_records(const std::string& raw, std::vector<std::string>& problems) {
  return read_all_records(raw, problems, Keep::compiles);
}

std::vector<Compile> read_load_records(const std::string& raw) {
  std::vector<std::string> problems; // read_records said them
  return read_all_records(raw, problems, Keep::loads);
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
  // Each shared call and list of outputs once: its compiles see it named alike.
  std::set<const void*> done;
  for (auto& c : compiles) {
    if (c.call_ && done.insert(c.call_.get()).second)
      for (auto& in : c.call_->inputs) {
        if (in.tag == "name_expr") continue;
        std::string name = blobs.artifact_hash_of(in.hash, input_form(in));
        if (name != in.hash) in.stored = std::exchange(in.hash, name);
      }
    if (c.outputs_ && done.insert(c.outputs_.get()).second)
      for (auto& o : *c.outputs_) {
        std::string name = blobs.artifact_hash_of(o.hash, output_form(o.kind));
        if (name != o.hash) o.stored = std::exchange(o.hash, name);
      }
  }
}

std::string bundle_id(const Compile& c) {
  Hasher h;
  // The id's salt: kept at schema 1, so that a bundle without PTX inputs keeps its id.
  h.add("kdet.capture.bundle/1").add(c.kind()).add(c.lib_hash()).add_u64(c.inputs().size());
  for (const auto& i : c.inputs()) {
    h.add(i.tag).add(i.hash).add_u64(i.lazy ? 1 : 0).add_u64(i.name ? 1 : 0);
    // A command's input is named by its path as given: where the file is does not
    // make another compile (its place in argv is in the options, as {input}).
    h.add(c.kind() == "exec" ? "" : i.name.value_or(""));
    if (i.tag == "jit_input") h.add_u64(static_cast<uint64_t>(i.type));
  }
  h.add_u64(c.options().size());
  for (const auto& o : c.options())
    h.add(o);
  if (c.kind() == "exec") add_exec_identity(h, c);
  return h.hex().substr(0, 16);
}

std::vector<Bundle> group_bundles(std::vector<Compile>& compiles) {
  // The ids first, so that the bundles' vector is made at its size (not grown by doubling). A
  // call shared by several compiles is given its id once (a command's call is its own: its id
  // is made of its environment too, which is not in the call).
  std::map<std::string, size_t> index;
  std::set<const Call*> done;
  for (auto& c : compiles) {
    if (!c.call_ || c.kind() == "exec")
      c.call_mut().bundle = bundle_id(c);
    else if (done.insert(c.call_.get()).second)
      c.call_->bundle = bundle_id(c);
    index.emplace(c.bundle(), index.size());
  }
  std::vector<Bundle> bundles;
  bundles.reserve(index.size());
  for (auto& c : compiles) {
    auto it = index.find(c.bundle());
    if (it->second == bundles.size()) {
      Bundle b;
      b.id = c.bundle();
      b.kind = c.kind();
      b.lib = c.lib();
      b.lib_hash = c.lib_hash();
      b.lib_size = c.lib_size();
      b.inputs = c.inputs();
      b.options = c.options();
      bundles.push_back(std::move(b));
    }
    Bundle& b = bundles[it->second];
    ++b.compiles;
    if (c.kind() == "exec") {
      std::string place = c.exec->cwd;
      for (const auto& i : c.inputs())
        place += '\n' + i.name.value_or("");
      b.places.insert(place);
    }
    if (!c.result)
      ++b.unfinished;
    else
      ++b.results[*c.result];
    for (const auto& o : c.outputs()) {
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
