//===- scan/manifest_bundles.cpp - bundle folders as scan jobs -----------------===//
#include "kdet/scan/manifest_bundles.hpp"

#include "kdet/backend/python_stage.hpp"
#include "kdet/capture/bundle_pack.hpp"
#include "kdet/capture/replay.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fnmatch.h>
#include <glob.h>
#include <map>
#include <set>
#include <sys/stat.h>

namespace kdet::scan {

namespace {

// "captured-libnvvm.so.4", with -2, -3 ... when another library or a [[compiler]] has the name.
std::string captured_name(const Manifest& m, const std::string& lib) {
  std::string base = "captured-" + lib.substr(lib.find_last_of('/') + 1);
  std::string name = base;
  for (int n = 2;; ++n) {
    bool taken = std::any_of(m.compilers.begin(), m.compilers.end(),
                             [&](const CompilerSpec& c) { return c.name == name; });
    if (!taken) return name;
    name = fmt::format("{}-{}", base, n);
  }
}

// What a bundle compiles with: the arguments apply_replay gives kdet run, so a bundle
// reaches a scan job exactly as it reaches run, explain and cache compile.
struct Replay {
  std::string input, kind, lib, command;
  std::string py, python; // a tapped stage's recipe ("FILE:FUNCTION") and interpreter
  std::vector<std::string> options;
};

// The captured compiler for this library (one per kind, path and content hash), or for this
// command (an exec bundle: one per program and command template, as a template is a compiler's).
size_t captured_compiler(Manifest& m, const Replay& r, const std::string& program,
                         const std::string& lib_hash, std::map<std::string, size_t>& known,
                         int line) {
  std::string key =
      r.kind + '\n' + program + '\n' + lib_hash + '\n' + r.command + '\n' + r.py + '\n' + r.python;
  if (auto it = known.find(key); it != known.end()) return it->second;
  CompilerSpec c;
  c.name = captured_name(m, program);
  c.config.kind = *backend::parse_kind(r.kind);
  c.config.lib = r.lib;
  c.config.command = r.command;
  if (c.config.kind == backend::Kind::python) {
    std::string file, fn;
    backend::split_python_spec(r.py, file, fn);
    if (std::string why = backend::python_stage_config(file, fn, r.python, c.config); !why.empty())
      throw Error(fmt::format("{}:{}: bundle's Python stage {}: {}", m.path, line, r.py, why));
  }
  c.line = line;
  c.captured = true;
  m.compilers.push_back(std::move(c));
  known.emplace(key, m.compilers.size() - 1);
  return m.compilers.size() - 1;
}

// A pattern of bundles packed by kdet capture (capture/bundle_pack.hpp): "bundles/ID" names no
// folder, and "bundles/*" matches the index and the pack. Each id the index lists that the
// pattern matches becomes a hit; the index and pack files are none.
void add_packed_hits(const std::string& full, std::vector<std::string>& hits) {
  auto parts = split_parent(full);
  const std::string &dir = parts.first, &leaf = parts.second;
  if (dir.empty() || !capture::has_bundle_index(dir)) return;
  std::erase_if(hits, [&](const std::string& h) {
    return h == dir + "/" + capture::k_bundle_index || h == dir + "/bundles.pack";
  });
  for (const auto& id : capture::packed_bundle_ids(dir)) {
    std::string path = dir + "/" + id;
    struct stat st {};
    if (::fnmatch(leaf.c_str(), id.c_str(), 0) == 0 && ::lstat(path.c_str(), &st) != 0)
      hits.push_back(path);
  }
  std::sort(hits.begin(), hits.end());
}

} // namespace

void add_bundles(Manifest& m, const std::vector<std::pair<std::string, int>>& patterns) {
  auto fail = [&](int line, const std::string& message) {
    throw Error(fmt::format("{}:{}: {}", m.path, line, message));
  };
  std::set<std::string> seen;
  std::map<std::string, size_t> known;
  for (const auto& [pat, line] : patterns) {
    std::string full = pat.starts_with("/") ? pat : m.dir + "/" + pat;
    glob_t g{};
    std::vector<std::string> hits;
    if (::glob(full.c_str(), GLOB_ERR, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i)
        hits.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
    add_packed_hits(full, hits);
    if (hits.empty())
      fail(line, fmt::format("bundle '{}' matches no folder (looked for {}); name bundle folders "
                             "of kdet capture, e.g. \"bundles/ID\" or \"bundles/*\"",
                             pat, full));
    for (const auto& h : hits) {
      std::string abs = absolute_path(h);
      if (!seen.insert(abs).second) continue;
      std::optional<capture::ReplayPlan> p;
      try {
        p = capture::bundle_replay_plan(abs);
      } catch (const Error& e) {
        fail(line, fmt::format("bundle {}: {}", pat, e.what()));
      }
      if (!p)
        fail(line, fmt::format("bundle {}: {} is not a bundle folder of kdet capture (a folder "
                               "holding bundle.json)",
                               pat, abs));
      Replay r;
      capture::apply_replay(*p, r.input, r.kind, r.lib, r.options, r.command, &r.py, &r.python);
      if (!backend::parse_kind(r.kind))
        fail(line, fmt::format("bundle {}: a {} bundle cannot be a scan job yet", pat, r.kind));
      BundleJob b;
      b.id = p->id;
      b.input.path = r.input;
      b.input.name = abs.starts_with(m.dir + "/") ? abs.substr(m.dir.size() + 1) : abs;
      // bundle_replay_plan checked the library against this hash.
      // p->lib: the library, or an exec bundle's program (r.lib is then empty).
      b.compiler = captured_compiler(m, r, p->lib, backend::cached_file_hash(p->lib), known, line);
      b.options = r.options;
      b.kernels = p->kernels;
      b.parts = p->parts;
      b.line = line;
      m.bundles.push_back(std::move(b));
    }
  }
  std::sort(m.bundles.begin(), m.bundles.end(),
            [](const BundleJob& a, const BundleJob& b) { return a.input.name < b.input.name; });
}

} // namespace kdet::scan
