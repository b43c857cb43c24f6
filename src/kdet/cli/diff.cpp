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

#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
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
#include <memory>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

namespace fs = std::filesystem;

struct DiffArgs {
  std::vector<std::string> paths;
  std::string run_dir;
  std::string format;
  OutputArgs output; // --json and --color
  std::string html_path;
  std::string max_size; // past it: compared by hash and size only
  std::string nvdisasm; // a path, "none", or "" to look for it
  double nvdisasm_timeout = 60;
  bool canonical = false; // hunks in canonical names rather than the files' own text
};

// One pair of files to compare; a side may be missing (path empty).
struct Pair {
  std::string name; // artifact name, or "" for a plain two-file diff
  std::string a, b;
};

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Same-named regular files of two folders (union, sorted).
std::vector<Pair> folder_pairs(const std::string& a, const std::string& b) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& dir : {a, b})
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file()) names.insert(e.path().filename().string());
  std::vector<Pair> out;
  for (const auto& n : names) {
    Pair p{n, a + "/" + n, b + "/" + n};
    if (!fs::exists(p.a, ec)) p.a.clear();
    if (!fs::exists(p.b, ec)) p.b.clear();
    out.push_back(std::move(p));
  }
  if (out.empty()) throw Error::format("{} and {}: no files to compare", a, b);
  return out;
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
  std::vector<Pair> pairs;
  auto from_run_dir = [&](const std::string& dir, std::vector<std::string> ids) {
    if (ids.empty()) {
      auto [x, y] = store::two_most_common_variants(dir);
      ids = {x, y};
    }
    std::string da = store::resolve_variant(dir, ids[0]), db = store::resolve_variant(dir, ids[1]);
    label_a = fs::path(da).filename().string();
    label_b = fs::path(db).filename().string();
    pairs = folder_pairs(da, db);
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
    if ((p[0] == "-" && is_dir(p[1])) || (p[1] == "-" && is_dir(p[0])))
      throw Error::format("{}: is a folder; standard input (-) is compared with a file",
                          p[0] == "-" ? p[1] : p[0]);
    if (p[0] != "-" && p[1] != "-" && is_dir(p[0]) && is_dir(p[1]))
      pairs = folder_pairs(p[0], p[1]);
    else
      pairs.push_back({"", p[0], p[1]});
  } else {
    throw Error("give two files (A B), a run folder and two variants (DIR A B), or --run-dir DIR");
  }

  // With --json - the text report is not printed at all: stdout is the JSON's.
  Output output(args.output);
  bool json_stdout = output.json_to_stdout();
  bool color = output.color();
  bool all_identical = true;
  std::string text, html;
  nlohmann::json artifacts = nlohmann::json::array();
  nlohmann::json single;
  for (const auto& pr : pairs) {
    std::string na = pr.name.empty() ? label_a : label_a + "/" + pr.name;
    std::string nb = pr.name.empty() ? label_b : label_b + "/" + pr.name;
    if (pr.a.empty() || pr.b.empty()) {
      all_identical = false;
      std::string side = pr.a.empty() ? "B" : "A";
      text += fmt::format("{}: only in {}\n", pr.name, side);
      html += fmt::format("<p class=\"kdet-diff-only\">{}: only in {}</p>\n", pr.name, side);
      artifacts.push_back({{"name", pr.name}, {"only_in", side}});
      continue;
    }
    // `-` is standard input (only in a plain two-file diff): read first, as it can be read
    // only once, then the files' sizes say whether both sides are compared in detail.
    Side sa = pr.name.empty() && pr.a == "-" ? read_stdin(limit) : Side{};
    Side sb = pr.name.empty() && pr.b == "-" ? read_stdin(limit) : Side{};
    if (!sa.from_stdin) sa.size = regular_file_size(pr.a);
    if (!sb.from_stdin) sb.size = regular_file_size(pr.b);
    bool summary = std::max(sa.size, sb.size) > limit;
    load(sa, pr.a, limit, summary);
    load(sb, pr.b, limit, summary);
    diff::Report r;
    if (summary) {
      // Past the limit: identical or not by content hash, never read whole into memory.
      diff::Format f = force ? *force : diff::detect_format(sa.head);
      r = diff::summary_report(f, sa.size, sb.size, sa.size == sb.size && sa.hash == sb.hash,
                               limit);
    } else {
      try {
        r = diff::compare(sa.data, sb.data, options);
      } catch (const Error& e) {
        throw Error::format("{} vs {}: {}", pr.a, pr.b, e.what());
      }
    }
    all_identical &= diff::identical(r);
    text += diff::to_text(r, color, na, nb);
    // JSON and HTML only when asked for: a JSON tree costs far more memory than the report.
    if (!args.html_path.empty())
      html += pr.name.empty()
                  ? diff::to_html(r)
                  : fmt::format("<section class=\"kdet-diff-artifact\"><h3>{}</h3>\n{}</section>\n",
                                pr.name, diff::to_html(r));
    if (args.output.json_path.empty()) continue;
    nlohmann::json j = diff::to_json(r);
    j["a"] = pr.a;
    j["b"] = pr.b;
    if (pr.name.empty()) {
      single = std::move(j);
      continue;
    }
    nlohmann::json entry = nlohmann::json::object();
    entry["name"] = pr.name;
    entry["report"] = std::move(j);
    artifacts.push_back(std::move(entry));
  }

  nlohmann::json out = std::move(single);
  if (out.is_null())
    out = {{"schema", "kdet.diff-set/1"},
           {"a", label_a},
           {"b", label_b},
           {"identical", all_identical},
           {"artifacts", std::move(artifacts)}};
  // Inputs may hold invalid UTF-8: such bytes are shown as U+0080..U+00FF (util/strings).
  output.write_json(out);
  if (!args.html_path.empty()) write_output(args.html_path, html, "--html");
  if (!json_stdout) fmt::print("{}", text);
  return all_identical ? k_exit_deterministic : k_exit_nondeterministic;
}

} // namespace

void add_diff(CLI::App& root, Action& action) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = root.add_subcommand(
      "diff", "Compare two compiler outputs and name the real change (PTX, cubin, text, binary)");
  cmd->footer("Exit codes: 0 identical, 1 different, 2 unreadable input or bad options.");
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
  cmd->add_flag("--canonical", args->canonical,
                "Show hunks in canonical names (PTX registers and labels, SASS registers and "
                "branch targets renamed by first use; B's mapped to A's). Default: each file's "
                "own statements with its own line numbers, a line the same in both up to "
                "renaming shown as a `~` pair (A's, then B's)");
  add_color_option(cmd, args->output);
  cmd->callback([args, &action] { action = [args] { return do_diff(*args); }; });
}

} // namespace kdet::cli
