//===- cli/diff.cpp - `kdet diff`: name the real change between two outputs -===//
//
//   kdet diff A B                       two files, or two folders (same-named files)
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

// Two inputs past the size limit: identical or not by content hash, never read into memory.
diff::Report summary_only(const Pair& pr, uint64_t size_a, uint64_t size_b,
                          std::optional<diff::Format> force, uint64_t limit) {
  Hasher ha, hb;
  std::string head;
  read_bounded(pr.a, size_a, &ha, &head);
  read_bounded(pr.b, size_b, &hb);
  diff::Format f = force ? *force : diff::detect_format(head);
  return diff::summary_report(f, size_a, size_b, size_a == size_b && ha.hex() == hb.hex(), limit);
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
    if (is_dir(p[0]) && is_dir(p[1]))
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
    uint64_t size_a = regular_file_size(pr.a), size_b = regular_file_size(pr.b);
    diff::Report r;
    if (std::max(size_a, size_b) > limit) {
      r = summary_only(pr, size_a, size_b, force, limit);
    } else {
      std::string da = read_bounded(pr.a, limit, nullptr), db = read_bounded(pr.b, limit, nullptr);
      try {
        r = diff::compare(da, db, options);
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
  cmd->add_option("paths", args->paths, "A B (files or folders), or DIR VARIANT_A VARIANT_B");
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
  add_color_option(cmd, args->output);
  cmd->callback([args, &action] { action = [args] { return do_diff(*args); }; });
}

} // namespace kdet::cli
