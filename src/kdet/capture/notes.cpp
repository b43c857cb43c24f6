//===- capture/notes.cpp - what the preload could not record, and what ran on -===//
#include "kdet/capture/notes.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace kdet::capture {

namespace {

constexpr size_t k_max_notes = 100000; // a runaway pipeline's notes are counted, not kept

std::optional<std::string> unhex(const std::string& s) {
  if (s.empty() || s[0] != 'x' || s.size() % 2 != 1) return std::nullopt;
  std::string out;
  for (size_t i = 1; i < s.size(); i += 2) {
    auto val = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = val(s[i]), lo = val(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// Reads a regular file in full, never blocking (a FIFO planted there is refused).
bool read_regular(const std::string& path, std::string& out, std::string& why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    why = "not a regular file";
    return false;
  }
  char buf[1 << 16];
  ssize_t r;
  while ((r = ::read(fd, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(r));
  int e = errno;
  ::close(fd);
  if (r < 0) why = std::strerror(e);
  return r == 0;
}

// A note's kind in the summary's words.
struct Group {
  std::string kind;
  long pid;
  std::string text;
  bool operator<(const Group& o) const {
    return std::tie(kind, pid, text) < std::tie(o.kind, o.pid, o.text);
  }
};

std::map<Group, size_t> grouped(const std::vector<Note>& notes) {
  std::map<Group, size_t> g;
  for (const auto& n : notes) {
    // "nvvm compile: WHY" groups by what and why; a blob's or line's own name is dropped.
    std::string text = n.text;
    if (n.kind == "lost-blob" || n.kind == "lost-line") {
      size_t colon = text.find(": ");
      if (colon != std::string::npos) text = text.substr(colon + 2);
    }
    g[{n.kind, n.pid, text}] += n.count;
  }
  return g;
}

std::string line_for(const Group& g, size_t count) {
  std::string what = g.text;
  std::string why;
  if (size_t colon = what.find(": "); colon != std::string::npos) {
    why = what.substr(colon + 2);
    what = what.substr(0, colon);
  }
  if (g.kind == "lost")
    return fmt::format("  LOST       {} {}{} of process {} could not be recorded: {}\n", count,
                       what, count == 1 ? "" : "s", g.pid, why.empty() ? "unknown" : why);
  if (g.kind == "lost-blob")
    return fmt::format("  LOST       {} input or output{} of process {} could not be stored: {} "
                       "(their bundles lack those bytes)\n",
                       count, count == 1 ? "" : "s", g.pid, g.text);
  if (g.kind == "lost-line")
    return fmt::format("  LOST       {} record line{} (results, outputs) of process {}: {}\n",
                       count, count == 1 ? "" : "s", g.pid, g.text);
  if (g.kind == "stray")
    return fmt::format("  WARNING    process {}: {} (x{}; the entry was then recorded)\n", g.pid,
                       g.text, count);
  if (g.kind == "exec-uncaptured")
    return fmt::format("  not seen   process {} ran {} without LD_PRELOAD (exec, x{}): its "
                       "compiles are not captured\n",
                       g.pid, g.text, count);
  if (g.kind == "spawn-uncaptured")
    return fmt::format("  not seen   process {} started {} without LD_PRELOAD (x{}): its compiles "
                       "are not captured\n",
                       g.pid, g.text, count);
  if (g.kind == "spawn-unresolved")
    return fmt::format("  not seen   process {} spawned {} with file actions, and no {} is in "
                       "its folder (x{}): the actions may change the folder first, so which "
                       "program ran, and its compile, are not recorded\n",
                       g.pid, g.text, g.text, count);
  return fmt::format("  note       process {}: {} {} (x{})\n", g.pid, g.kind, g.text, count);
}

// The names among `all` that end in `ext`, in order.
std::vector<std::string> names_with(const std::vector<std::string>& all, const std::string& ext) {
  std::vector<std::string> names;
  for (const auto& n : all)
    if (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0)
      names.push_back(n);
  return names;
}

// A .lost page: "kdet-lost 1\n" (16 bytes), the pid, then the counts of compiles,
// record lines and blobs lost without a note (u64 each, this machine's byte order).
void read_lost_pages(const std::string& dir, const std::vector<std::string>& names,
                     std::vector<Note>& notes, std::vector<std::string>& problems) {
  static const char* const k_what[] = {
      "compile: no note could be written to say why (no descriptor was free, no room in the "
      "capture folder, or the file size limit)",
      "no note could be written to say why (no descriptor was free, no room in the capture "
      "folder, or the file size limit)",
      "no note could be written to say why (no descriptor was free, no room in the capture "
      "folder, or the file size limit)"};
  static const char* const k_kind[] = {"lost", "lost-line", "lost-blob"};
  for (const auto& n : names) {
    std::string text, why;
    if (!read_regular(dir + "/" + n, text, why)) {
      problems.push_back(fmt::format("notes/{}: cannot read: {}", n, why));
      continue;
    }
    if (text.size() < 16 + 8 * 4 || text.compare(0, 12, "kdet-lost 1\n") != 0) continue;
    uint64_t v[4];
    std::memcpy(v, text.data() + 16, sizeof v);
    for (int k = 0; k < 3; ++k)
      if (v[k + 1] > 0)
        notes.push_back(
            {k_kind[k], static_cast<long>(v[0]), 0, k_what[k], static_cast<size_t>(v[k + 1])});
  }
}

// PID-KIND-xHEX.unnoted: an empty file a process made (no descriptor, no room for data
// needed) when it could neither record, note nor count a loss of KIND; HEX is why (for a
// compile, "WHAT: WHY"). At least one loss; how many is unknown.
void read_unnoted(const std::vector<std::string>& names, std::vector<Note>& notes) {
  static const char* const k_more =
      "; not even a note could be written, so there may have been more";
  for (const auto& n : names) {
    std::vector<std::string> w = split(n.substr(0, n.size() - std::strlen(".unnoted")), '-');
    if (w.size() < 3) continue;
    auto pid = parse_u64(w[0]);
    auto why = unhex(w[2]); // at most 96 bytes of it: a file name's room
    if (!pid || !why) continue;
    std::string kind = w[1] == "compile" ? "lost" : "lost-" + w[1];
    if (kind != "lost" && kind != "lost-line" && kind != "lost-blob") continue;
    if (kind == "lost" && why->find(": ") == std::string::npos) *why = "compile: " + *why;
    notes.push_back({kind, static_cast<long>(*pid), 0, *why + k_more});
  }
}

} // namespace

std::vector<Note> read_notes(const std::string& raw, std::vector<std::string>& problems) {
  std::vector<Note> notes;
  std::string dir = raw + "/notes";
  std::vector<std::string> all = list_raw_folder(raw, "notes", problems);
  std::vector<std::string> names = names_with(all, ".note");
  size_t dropped = 0;
  for (const auto& n : names) {
    std::string text, why;
    if (!read_regular(dir + "/" + n, text, why)) {
      problems.push_back(fmt::format("notes/{}: cannot read: {}", n, why));
      continue;
    }
    for (const std::string& line : split(text, '\n')) {
      std::vector<std::string> w = split(line, ' ');
      if (w.size() != 6 || w[0] != "kdet-note" || w[1] != "1") continue; // a cut-short last line
      auto body = unhex(w[5]);
      auto pid = parse_u64(w[3]), ppid = parse_u64(w[4]);
      if (!body || !pid || !ppid) continue;
      if (notes.size() >= k_max_notes) {
        ++dropped;
        continue;
      }
      notes.push_back({w[2], static_cast<long>(*pid), static_cast<long>(*ppid), *body});
    }
  }
  read_lost_pages(dir, names_with(all, ".lost"), notes, problems);
  read_unnoted(names_with(all, ".unnoted"), notes);
  if (dropped)
    problems.push_back(
        fmt::format("notes: {} more notes were not read (over {})", dropped, k_max_notes));
  return notes;
}

void note_missing_blobs(const BlobStore& blobs, const std::vector<Bundle>& bundles,
                        std::vector<std::string>& problems) {
  for (const auto& b : bundles) {
    size_t inputs = 0, outputs = 0;
    for (const auto& in : b.inputs)
      inputs += in.tag != "name_expr" && !blobs.get(in.blob());
    for (const auto& out : b.outputs)
      outputs += !blobs.get(b.blob(out.second));
    if (inputs + outputs > 0)
      problems.push_back(fmt::format(
          "bundle {}: the bytes of {} input{} and {} output{} are in no blob pack under "
          "raw/blobs (a pack missing, unreadable or cut short); its folder lacks them",
          b.id, inputs, inputs == 1 ? "" : "s", outputs, outputs == 1 ? "" : "s"));
  }
}

std::string notes_summary(const std::vector<Note>& notes, const ChildrenWait& children) {
  std::string s;
  // Interrupted, kdet ended what the pipeline left at once: the bound is not why.
  const bool stopped = children.report.stopped;
  if (children.seen && children.report.received && children.report.waited_for > 0 &&
      (!stopped || children.report.waited_s >= 0.001))
    s += fmt::format("  waited     {} for {} process{} the pipeline left that carried the "
                     "preload{}\n",
                     human_seconds(children.report.waited_s), children.report.waited_for,
                     children.report.waited_for == 1 ? "" : "es",
                     stopped ? ", until kdet was interrupted"
                             : fmt::format(" (--wait-children {:g})", children.limit_s));
  const auto& left = children.report.left;
  size_t n_left = left.size() + children.report.left_unlisted;
  if (n_left > 0) {
    s += fmt::format("  KILLED     {} process{} the pipeline left{}; compiles they had not made "
                     "are missing:\n",
                     n_left, n_left == 1 ? "" : "es",
                     stopped ? ", ended because kdet was interrupted"
                             : fmt::format(" still running when kdet stopped waiting "
                                           "(--wait-children {:g})",
                                           children.limit_s));
    for (size_t i = 0; i < left.size() && i < 10; ++i)
      s += fmt::format("             pid {}{}: {}\n", left[i].pid,
                       left[i].marked ? "" : " (without the preload)",
                       left[i].command.empty() ? "?" : left[i].command);
    if (n_left > 10)
      s += fmt::format("             and {} more (JSON children.left)\n", n_left - 10);
  }
  auto groups = grouped(notes);
  size_t shown = 0;
  for (const auto& [g, count] : groups) {
    if (shown++ == 20) {
      s += fmt::format("  note       and {} more notes (JSON notes)\n", groups.size() - 20);
      break;
    }
    s += line_for(g, count);
  }
  return s;
}

nlohmann::json notes_json(const std::vector<Note>& notes) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [g, count] : grouped(notes))
    j.push_back({{"kind", g.kind}, {"pid", g.pid}, {"text", g.text}, {"count", count}});
  return j;
}

nlohmann::json children_json(const ChildrenWait& c) {
  if (!c.seen) return nullptr;
  nlohmann::json left = nlohmann::json::array();
  for (const auto& p : c.report.left)
    left.push_back({{"pid", p.pid}, {"command", p.command}, {"preload", p.marked}});
  return {{"wait_limit_seconds", c.limit_s},         {"waited_seconds", c.report.waited_s},
          {"waited_for", c.report.waited_for},       {"left", left},
          {"left_unlisted", c.report.left_unlisted}, {"interrupted", c.report.stopped}};
}

} // namespace kdet::capture
