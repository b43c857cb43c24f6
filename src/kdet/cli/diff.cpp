//===- cli/diff.cpp - `kdet diff`: name the real change between two outputs -===//
//
//   kdet diff A B                       two files (either may be `-`, standard input),
//                                       or two folders (same-named files)
//   kdet diff DIR VARIANT_A VARIANT_B   two variants of a `kdet run --out DIR` folder
//   kdet diff --run-dir DIR [A B]       the same; without A B, the two most common
// Exit 0 identical, 1 different, 2 unreadable input or bad options.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/diff.hpp"

#include "kdet/capture/bundle_pack.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/diff/impact.hpp"
#include "kdet/store/run_dir.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/stream.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

namespace fs = std::filesystem;

// The bounds of a folder comparison (kdet diff -r and diffoscope have none; kdet's reports
// must end): past them the walk stops and says so, and the folders are not called identical.
constexpr int k_max_depth = 64;
constexpr size_t k_default_max_files = 100000;

struct DiffArgs {
  std::vector<std::string> paths;
  std::string run_dir;
  std::string format;
  OutputArgs output; // --json and --color
  std::string html_path;
  std::string max_size; // past it: compared by hash and size only
  std::string nvdisasm; // a path, "none", or "" to look for it
  double nvdisasm_timeout = 60;
  bool canonical = false;  // hunks in canonical names rather than the files' own text
  bool full_names = false; // --full-names: kernel names never cut in the text report
  size_t max_files = k_default_max_files;
};

// What one side holds at a path: nothing, a regular file, a symbolic link (never followed:
// compared by its target), a folder (kept only where diff -r would name it: on one side
// with nothing under it, or against a file) or something else (a FIFO, a device).
struct Node {
  enum class Kind { missing, file, link, folder, other } kind = Kind::missing;
  std::string path;
  std::string what; // link: its target; other: its type ("a FIFO")
};

// One pair to compare: two files, or the same relative path under two folders.
struct Pair {
  std::string name; // the path relative to both folders, or "" for a plain two-file diff
  Node a, b;
};

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

struct FolderSet {
  std::vector<Pair> pairs;
  std::vector<std::string> notes; // where the walk stopped
};

// Every file, link, folder and other entry under `root`, by its path relative to it, into
// `nodes` (.a or .b). Never follows a link (one to a folder is a link, not a folder).
void walk(const std::string& root, bool side_b, size_t max_files,
          std::map<std::string, Pair>& nodes, std::vector<std::string>& notes) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  if (ec) throw Error::format("cannot read the folder {}: {}", root, ec.message());
  size_t seen = 0;
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw Error::format("cannot read the folder {}: {}", root, ec.message());
    const fs::path& path = it->path();
    std::string rel = path.lexically_relative(root).generic_string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
      throw Error::format("cannot read {}: {}", path.string(), std::strerror(errno));
    if (S_ISDIR(st.st_mode)) {
      if (it.depth() + 1 >= k_max_depth) {
        it.disable_recursion_pending();
        notes.push_back(
            fmt::format("{}/{}: deeper than {} folders, not compared", root, rel, k_max_depth));
        continue; // not walked: not known to be empty
      }
      Pair& p = nodes[rel];
      p.name = rel;
      (side_b ? p.b : p.a) = Node{Node::Kind::folder, path.string(), ""};
      continue;
    }
    if (++seen > max_files) {
      notes.push_back(fmt::format("{}: more than {} files (--max-files); the rest is not compared",
                                  root, max_files));
      return;
    }
    Node n{Node::Kind::file, path.string(), ""};
    if (S_ISLNK(st.st_mode)) {
      n.kind = Node::Kind::link;
      n.what = fs::read_symlink(path, ec).string();
    } else if (!S_ISREG(st.st_mode)) {
      n.kind = Node::Kind::other;
      n.what = describe_file_type(st.st_mode);
    }
    Pair& p = nodes[rel];
    p.name = rel;
    (side_b ? p.b : p.a) = std::move(n);
  }
  if (ec) throw Error::format("cannot read the folder {}: {}", root, ec.message());
}

// Two folders, compared as `diff -r` does: the union of the paths under both (sorted), each
// file, link or other entry paired with the one at the same relative path.
FolderSet folder_pairs(const std::string& a, const std::string& b, size_t max_files) {
  std::map<std::string, Pair> nodes;
  FolderSet out;
  walk(a, false, max_files, nodes, out.notes);
  walk(b, true, max_files, nodes, out.notes);
  using Kind = Node::Kind;
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    Pair& p = it->second;
    bool folder_a = p.a.kind == Kind::folder, folder_b = p.b.kind == Kind::folder;
    if (folder_a && folder_b) continue; // matched: what is under them is compared
    if ((folder_a && p.b.kind == Kind::missing) || (folder_b && p.a.kind == Kind::missing)) {
      // A folder on one side is named by the entries under it; only an empty one, which
      // nothing else would name, is listed itself. ("x-y" sorts between "x" and "x/y".)
      std::string under = it->first + "/";
      auto first = nodes.lower_bound(under);
      if (first != nodes.end() && first->first.rfind(under, 0) == 0) continue;
    }
    out.pairs.push_back(std::move(p));
  }
  if (out.pairs.empty()) throw Error::format("{} and {}: no files to compare", a, b);
  return out;
}

// "a link to T", "a regular file", "a FIFO": one side of a pair that is not two files.
std::string describe(const Node& n) {
  switch (n.kind) {
  case Node::Kind::file:
    return "a regular file";
  case Node::Kind::link:
    return "a link to " + n.what;
  case Node::Kind::folder:
    return "a folder";
  case Node::Kind::other:
    return n.what;
  case Node::Kind::missing:
    break;
  }
  return "nothing";
}

// The size of `path`, which must be a regular file (or a link to one): a device
// such as /dev/zero or a FIFO would be read without end.
uint64_t regular_file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error::format("cannot read {}: {}", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error::format("{}: is {}; kdet diff compares regular files", path,
                        describe_file_type(st.st_mode));
  return static_cast<uint64_t>(st.st_size);
}

// Reads `path` whole (at most `limit` bytes) or, with `hash`, only hashes it.
std::string read_bounded(const std::string& path, uint64_t limit, Hasher* hash,
                         std::string* head = nullptr) {
  std::string data;
  auto sr = stream_regular_file(path, limit, [&](std::string_view chunk) {
    if (hash)
      hash->add_raw(chunk);
    else
      data.append(chunk);
    if (head && head->size() < k_stream_chunk)
      head->append(chunk.substr(0, k_stream_chunk - head->size()));
  });
  switch (sr.status) {
  case StreamResult::Status::ok:
    return data;
  case StreamResult::Status::not_regular:
    throw Error::format("{}: is {}; kdet diff compares regular files", path, sr.what);
  case StreamResult::Status::too_large:
    throw Error::format("{}: grew while kdet read it", path);
  case StreamResult::Status::unreadable:
    break;
  }
  throw Error::format("cannot read {}: {}", path, sr.what);
}

// One side of a two-file comparison: its size, then its bytes (within the limit) or, when
// either side is past the limit, only its hash and first chunk.
struct Side {
  uint64_t size = 0;
  bool from_stdin = false;
  bool hashed = false; // `hash` and `head` are set, `data` is not
  std::string data, hash, head;
};

// Standard input, read once in chunks: kept while within `limit`, hashed past it.
Side read_stdin(uint64_t limit) {
  Side s;
  s.from_stdin = true;
  Hasher h;
  std::string buf(k_stream_chunk, '\0');
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error::format("cannot read standard input (-): {}", std::strerror(errno));
    if (n == 0) break;
    std::string_view chunk(buf.data(), static_cast<size_t>(n));
    s.size += chunk.size();
    if (s.hashed) {
      h.add_raw(chunk);
      continue;
    }
    s.data.append(chunk);
    if (s.data.size() > limit) { // from here on, only its hash: memory stays bounded
      s.hashed = true;
      h.add_raw(s.data);
      s.head = s.data.substr(0, k_stream_chunk);
      std::string().swap(s.data);
    }
  }
  if (s.hashed) s.hash = h.hex();
  return s;
}

// Fills `s` for the comparison: the bytes, or (when `summary`) the hash and first chunk.
void load(Side& s, const std::string& path, uint64_t limit, bool summary) {
  if (s.from_stdin) {
    if (summary && !s.hashed) {
      Hasher h;
      h.add_raw(s.data);
      s.hash = h.hex();
      s.head = s.data.substr(0, k_stream_chunk);
      s.hashed = true;
      std::string().swap(s.data);
    }
    return;
  }
  if (!summary) {
    s.data = read_bounded(path, limit, nullptr);
    return;
  }
  Hasher h;
  read_bounded(path, s.size, &h, &s.head);
  s.hash = h.hex();
  s.hashed = true;
}

// The pairs the command line names: two files, two folders, or two variants of a run folder.
FolderSet collect_pairs(const DiffArgs& args, std::string& label_a, std::string& label_b) {
  FolderSet set;
  auto from_run_dir = [&](const std::string& dir, std::vector<std::string> ids) {
    if (ids.empty()) {
      auto [x, y] = store::two_most_common_variants(dir);
      ids = {x, y};
    }
    std::string da = store::resolve_variant(dir, ids[0]), db = store::resolve_variant(dir, ids[1]);
    label_a = fs::path(da).filename().string();
    label_b = fs::path(db).filename().string();
    set = folder_pairs(da, db, args.max_files);
  };
  const auto& p = args.paths;
  if (!args.run_dir.empty()) {
    if (p.size() != 0 && p.size() != 2)
      throw Error("--run-dir takes no variant or two variants (VARIANT_A VARIANT_B)");
    from_run_dir(args.run_dir, p);
  } else if (p.size() == 3) {
    from_run_dir(p[0], {p[1], p[2]});
  } else if (p.size() == 1 && is_dir(p[0])) {
    from_run_dir(p[0], {});
  } else if (p.size() == 2) {
    label_a = p[0];
    label_b = p[1];
    if (p[0] == "-" && p[1] == "-")
      throw Error("- -: standard input can be only one side; give a file for the other");
    // A path in a packed bundle (DIR/bundles/ID/inputs, as capture's reports print) is read
    // from a copy of that bundle made from its pack.
    std::string a = p[0] == "-" ? p[0] : capture::resolve_bundle_path(p[0]);
    std::string b = p[1] == "-" ? p[1] : capture::resolve_bundle_path(p[1]);
    if ((a == "-" && is_dir(b)) || (b == "-" && is_dir(a)))
      throw Error::format("{}: is a folder; standard input (-) is compared with a file",
                          a == "-" ? p[1] : p[0]);
    if (a != "-" && b != "-" && is_dir(a) && is_dir(b))
      set = folder_pairs(a, b, args.max_files);
    else
      set.pairs.push_back({"", {Node::Kind::file, a, ""}, {Node::Kind::file, b, ""}});
  } else {
    throw Error("give two files (A B), a run folder and two variants (DIR A B), or --run-dir DIR");
  }
  return set;
}

// The resources and occupancy of each kernel whose SASS or resources differ, and the
// registers and stack of such a device function (kdet impact's measures, docs/IMPACT.md).
std::string impact_text(const diff::ImpactReport& r) {
  std::string out = fmt::format("reach: {}\n", diff::reach_line(r));
  auto regs = [](const diff::KernelResources& x) {
    return x.registers ? std::to_string(*x.registers) : std::string("?");
  };
  for (const auto& k : r.kernels) {
    if (k.reach < diff::Reach::sass || !k.only_in.empty()) continue;
    auto occ = [](const std::optional<diff::Occupancy>& o) {
      return o ? fmt::format("{} blocks/{} warps", o->blocks_per_sm, o->warps_per_sm)
               : std::string("?");
    };
    out +=
        fmt::format("  {}: registers {} -> {}, stack {} -> {}, shared {} -> {}, barriers {} -> "
                    "{}; occupancy at {} threads ({}) {} -> {} per SM\n",
                    k.name, regs(k.a), regs(k.b), k.a.stack_frame.value_or(0),
                    k.b.stack_frame.value_or(0), k.a.shared, k.b.shared, k.a.barriers, k.b.barriers,
                    k.block_size, k.block_from, occ(k.occupancy_a), occ(k.occupancy_b));
  }
  for (const auto& k : r.functions) { // launched by no one: no occupancy
    if (k.reach < diff::Reach::sass || !k.only_in.empty()) continue;
    out +=
        fmt::format("  {} (device function): registers {} -> {}, stack {} -> {}\n", k.name,
                    regs(k.a), regs(k.b), k.a.stack_frame.value_or(0), k.b.stack_frame.value_or(0));
  }
  return out;
}

// What `kdet diff` has found so far, in each rendering asked for.
struct Findings {
  bool all_identical = true;
  std::string text, html;
  nlohmann::json artifacts = nlohmann::json::array();
  nlohmann::json single;
};

// A pair that is not two regular files: a side missing, a link or another kind of file.
void compare_kinds(const Pair& pr, Findings& f) {
  if (pr.a.kind == Node::Kind::missing || pr.b.kind == Node::Kind::missing) {
    f.all_identical = false;
    std::string side = pr.a.kind == Node::Kind::missing ? "B" : "A";
    const Node& present = pr.a.kind == Node::Kind::missing ? pr.b : pr.a;
    std::string what = present.kind == Node::Kind::folder ? " (an empty folder)" : "";
    f.text += fmt::format("{}: only in {}{}\n", pr.name, side, what);
    f.html += fmt::format("<p class=\"kdet-diff-only\">{}: only in {}{}</p>\n", xml_text(pr.name),
                          side, what);
    f.artifacts.push_back({{"name", pr.name}, {"only_in", side}});
    return;
  }
  bool same = pr.a.kind == pr.b.kind && pr.a.what == pr.b.what;
  f.all_identical &= same;
  std::string line =
      same ? fmt::format("{}: {} in both\n", pr.name, describe(pr.a))
           : fmt::format("{}: {} in A, {} in B\n", pr.name, describe(pr.a), describe(pr.b));
  f.text += line;
  f.html += fmt::format("<p class=\"kdet-diff-kind\">{}</p>\n", xml_text(line));
  f.artifacts.push_back(
      {{"name", pr.name}, {"a", describe(pr.a)}, {"b", describe(pr.b)}, {"identical", same}});
}

int do_diff(const DiffArgs& args) {
  uint64_t limit = diff::k_max_detailed_size;
  if (!args.max_size.empty()) {
    auto v = parse_byte_size(args.max_size);
    if (!v)
      throw Error::format(
          "--max-size {}: expected a size above zero such as 64M, 1G or a number of bytes",
          args.max_size);
    limit = *v;
  }
  diff::CompareOptions options;
  if (!args.format.empty()) options.force = diff::parse_format(args.format);
  const std::optional<diff::Format>& force = options.force;
  options.sass = diff::find_sass_options(args.nvdisasm, "--nvdisasm");
  options.sass->timeout =
      std::chrono::milliseconds(static_cast<long long>(args.nvdisasm_timeout * 1000));
  options.canonical_hunks = args.canonical;

  std::string label_a, label_b;
  FolderSet set = collect_pairs(args, label_a, label_b);

  // With --json - the text report is not printed at all: stdout is the JSON's.
  Output output(args.output);
  bool json_stdout = output.json_to_stdout();
  bool color = output.color();
  Findings f;
  for (const auto& pr : set.pairs) {
    if (pr.a.kind != Node::Kind::file || pr.b.kind != Node::Kind::file) {
      compare_kinds(pr, f);
      continue;
    }
    std::string na = pr.name.empty() ? label_a : label_a + "/" + pr.name;
    std::string nb = pr.name.empty() ? label_b : label_b + "/" + pr.name;
    // `-` is standard input (only in a plain two-file diff): read first, as it can be read
    // only once, then the files' sizes say whether both sides are compared in detail.
    const std::string &pa = pr.a.path, &pb = pr.b.path;
    Side sa = pr.name.empty() && pa == "-" ? read_stdin(limit) : Side{};
    Side sb = pr.name.empty() && pb == "-" ? read_stdin(limit) : Side{};
    if (!sa.from_stdin) sa.size = regular_file_size(pa);
    if (!sb.from_stdin) sb.size = regular_file_size(pb);
    bool summary = std::max(sa.size, sb.size) > limit;
    load(sa, pa, limit, summary);
    load(sb, pb, limit, summary);
    diff::Report r;
    if (summary) {
      // Past the limit: identical or not by content hash, never read whole into memory.
      diff::Format format = force ? *force : diff::detect_format(sa.head);
      r = diff::summary_report(format, sa.size, sb.size, sa.size == sb.size && sa.hash == sb.hash,
                               limit);
    } else {
      try {
        r = diff::compare(sa.data, sb.data, options);
      } catch (const Error& e) {
        throw Error::format("{} vs {}: {}", pa, pb, e.what());
      }
    }
    f.all_identical &= diff::identical(r);
    f.text += diff::to_text(r, color, na, nb, args.full_names ? 0 : k_name_width);
    // Two cubins that differ: what each changed kernel asks of the GPU, and its occupancy.
    std::optional<diff::ImpactReport> reach;
    if (r.format == diff::Format::cubin && !summary && !diff::identical(r)) {
      try {
        reach = diff::impact_cubins(sa.data, sb.data, diff::ImpactOptions{});
        f.text += impact_text(*reach);
      } catch (const Error&) {
        // compare() read both as cubins; a resource read that fails adds nothing
      }
    }
    // JSON and HTML only when asked for: a JSON tree costs far more memory than the report.
    if (!args.html_path.empty())
      f.html +=
          pr.name.empty()
              ? diff::to_html(r)
              : fmt::format("<section class=\"kdet-diff-artifact\"><h3>{}</h3>\n{}</section>\n",
                            xml_text(pr.name), diff::to_html(r));
    if (args.output.json_path.empty()) continue;
    nlohmann::json j = diff::to_json(r, pa, pb, reach ? &*reach : nullptr);
    if (pr.name.empty()) {
      f.single = std::move(j);
      continue;
    }
    nlohmann::json entry = nlohmann::json::object();
    entry["name"] = pr.name;
    entry["report"] = std::move(j);
    f.artifacts.push_back(std::move(entry));
  }
  // A walk cut short compared only part of the folders: they are not called identical.
  for (const auto& n : set.notes)
    f.text += "note: " + n + "\n";
  bool partial = !set.notes.empty();

  nlohmann::json out = std::move(f.single);
  if (out.is_null()) {
    out = {{"schema", "kdet.diff-set/1"},
           {"a", label_a},
           {"b", label_b},
           {"identical", f.all_identical && !partial},
           {"artifacts", std::move(f.artifacts)}};
    if (partial) out["incomplete"] = set.notes;
  }
  // Inputs may hold invalid UTF-8: such bytes are shown as U+0080..U+00FF (util/strings).
  output.write_json(out);
  if (!args.html_path.empty()) write_output(args.html_path, f.html, "--html");
  if (!json_stdout) fmt::print("{}", f.text);
  if (!f.all_identical) return k_exit_nondeterministic;
  if (partial) {
    for (const auto& n : set.notes)
      fmt::print(stderr, "kdet diff: {}\n", n);
    fmt::print(stderr, "kdet diff: what was compared is identical, but not all was compared "
                       "(exit 2)\n");
    return k_exit_usage;
  }
  return k_exit_deterministic;
}

} // namespace

void add_diff(CLI::App& root, Action& action) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = root.add_subcommand(
      "diff", "Compare two compiler outputs and name the real change (PTX, cubin, text, binary)");
  cmd->footer(
      "Two folders are compared as diff -r does: every file under both, by its path\n"
      "relative to each (\"only in A\" where one side lacks it, an empty folder too); links\n"
      "are never followed (compared by their targets); a folder against a file is named;\n"
      "at most 64 folders deep and --max-files files a side.\n"
      "Exit status: 0 identical, 1 different, 2 unreadable input, bad options, or folders\n"
      "compared only in part (a bound reached) and identical so far.");
  cmd->add_option("paths", args->paths,
                  "A B (files, `-` for standard input on one side, or folders), or DIR VARIANT_A "
                  "VARIANT_B");
  cmd->add_option(
      "--run-dir", args->run_dir,
      "A `kdet run --out` folder; compares VARIANT_A VARIANT_B, or the two most common");
  cmd->add_option("--format", args->format,
                  "Read both inputs as this format instead of detecting it")
      ->check(CLI::IsMember({"ptx", "cubin", "text", "binary"}));
  add_json_option(cmd, args->output, "the report", "kdet.diff/1, or kdet.diff-set/1 for folders");
  cmd->add_option("--html", args->html_path,
                  "Write an HTML fragment (for embedding in reports) to FILE");
  cmd->add_option(
      "--max-size", args->max_size,
      "Inputs larger than SIZE (e.g. 64M, 1G; K/M/G/T are powers of 1024) are compared by hash "
      "and size only (default 64M): a detailed diff needs memory in proportion to its inputs");
  cmd->add_option("--nvdisasm", args->nvdisasm,
                  "Cubins: compare SASS as canonical listings of this nvdisasm (registers and "
                  "branch targets renamed by first use), or `none` for 16-byte instruction words. "
                  "Default: $KDET_NVDISASM, else nvdisasm from PATH, $CUDA_HOME/bin or "
                  "/usr/local/cuda/bin when found; a crash, hang or unreadable listing falls back "
                  "to the words, and the report's notes say which was used")
      ->type_name("PATH|none");
  cmd->add_option("--nvdisasm-timeout", args->nvdisasm_timeout,
                  "Seconds one nvdisasm run may take (default 60)")
      ->type_name("SECONDS")
      ->check(real_option({0.001, 1e6, false}));
  cmd->add_flag("--full-names", args->full_names,
                "Name kernels in full (by default a name past 72 characters is cut, with a "
                "hash of the whole; --json and --html always hold the full names)");
  cmd->add_flag("--canonical", args->canonical,
                "Show hunks in canonical names (PTX registers and labels, SASS registers and "
                "branch targets renamed by first use; B's mapped to A's). Default: each file's "
                "own statements with its own line numbers, a line the same in both up to "
                "renaming shown as a `~` pair (A's, then B's)");
  cmd->add_option("--max-files", args->max_files,
                  "Folders: compare at most N files a side (default 100000); past it the "
                  "report says where it stopped and the folders are not called identical")
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, size_t{100000000}));
  add_color_option(cmd, args->output);
  cmd->callback([args, &action] { action = [args] { return do_diff(*args); }; });
}

} // namespace kdet::cli
