//===- cache/maintain.cpp - report, stats, gc, verify ----------------------------===//
#include "kdet/cache/maintain.hpp"

#include "kdet/cache/compile.hpp"
#include "kdet/cache/identity.hpp"
#include "kdet/cache/key.hpp"
#include "kdet/engine/differences.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cache {

namespace fs = std::filesystem;

namespace {

// Removes a folder by first renaming it out of the live tree (readers see it whole or gone).
// When the rename fails (another file system, a link on the way) the folder is removed where it
// is: gc chose it, and keeping it would leave the cache over its limit. Returns "" when it is
// gone, else `rel`: what stayed (a folder of another member's that this user may not empty) is
// put back where it was, so the next gc meets it again and names it again.
std::string remove_atomically(const Store& store, const std::string& rel) {
  Staging stage = store.make_staging();
  std::string where = rel;
  if (store.move(rel, stage.rel() + "/gone")) where = stage.rel() + "/gone";
  store.remove(where);
  if (!store.exists(where)) {
    store.remove(stage.rel());
    return {};
  }
  // Put back unless a compile made the key anew meanwhile; then it stays in tmp/ (gc's
  // staging pass names it from there).
  if (where == rel || !store.move(where, rel)) return where == rel ? rel : stage.rel();
  store.remove(stage.rel());
  return rel;
}

// The warning for a folder gc could not remove.
std::string not_removed(const Store& store, const std::string& rel, const std::string& chosen) {
  return fmt::format("gc could not remove {}/{} ({}; {} bytes stay): a file or folder in it "
                     "that this user may not remove, such as another member's in a shared cache",
                     store.root(), rel, chosen, store.tree_bytes(rel));
}

// The largest artifact `kdet cache report` reads to describe a difference (docs/CACHE.md).
constexpr uint64_t k_report_artifact = uint64_t{256} << 20;

} // namespace

std::vector<MultiVariantKey> multi_variant_keys(const Store& store) {
  std::vector<MultiVariantKey> out;
  auto keys = store.keys();
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) {
    auto order = store.variant_order(k);
    if (order.size() <= 1) continue;
    MultiVariantKey m;
    m.key = k;
    store.read_key_json(k, m.key_json);
    std::vector<LoadedVariant> loaded;
    for (const auto& v : order) {
      LoadedVariant lv;
      std::string why;
      // The report reads no artifact past k_report_artifact: a member decides their sizes.
      if (!store.load_variant(k, v, lv, why, nullptr, k_report_artifact)) {
        lv.meta.id = v;
        lv.meta.how = "unreadable: " + why;
      }
      m.variants.push_back(lv.meta);
      loaded.push_back(std::move(lv));
    }
    for (size_t i = 1; i < loaded.size(); ++i)
      m.differences.push_back(loaded[0].artifacts.empty() || loaded[i].artifacts.empty()
                                  ? "unknown (a variant is unreadable)"
                                  : engine::describe(loaded[0].artifacts, loaded[i].artifacts));
    out.push_back(std::move(m));
  }
  return out;
}

nlohmann::json report_to_json(const Store& store, const std::vector<MultiVariantKey>& keys) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& m : keys) {
    nlohmann::json vs = nlohmann::json::array();
    for (size_t i = 0; i < m.variants.size(); ++i) {
      const auto& v = m.variants[i];
      uint64_t size = 0;
      for (const auto& a : v.artifacts)
        size += a.size;
      nlohmann::json j = {
          {"id", v.id},   {"created_at", v.created_at}, {"how", v.how},  {"host", v.host},
          {"pid", v.pid}, {"command", v.command},       {"bytes", size}, {"served", i == 0}};
      if (i > 0) j["difference"] = m.differences[i - 1];
      vs.push_back(j);
    }
    arr.push_back({{"key", m.key}, {"material", m.key_json}, {"variants", vs}});
  }
  return {{"schema", "kdet.cache.report/1"},
          {"cache", store.root()},
          {"keys_with_variants", keys.size()},
          {"keys", arr}};
}

std::string key_title(const MultiVariantKey& m) {
  // A name where the writer recorded one, else what identifies it (C API keys: the
  // compiler-id string, the input's hash).
  auto pick = [&](const char* part, std::initializer_list<const char*> fields) -> std::string {
    if (!m.key_json.is_object() || !m.key_json.contains(part)) return "?";
    for (const char* f : fields) {
      std::string v = m.key_json[part].value(f, "");
      if (!v.empty()) return std::string(f) == "hash" ? "input " + v.substr(0, 12) : v;
    }
    return "?";
  };
  std::string input = pick("input", {"name", "hash"});
  std::string compiler = pick("compiler", {"version", "path", "content_hash"});
  std::string options;
  if (m.key_json.is_object() && m.key_json.contains("options"))
    options = shell_join(m.key_json["options"].get<std::vector<std::string>>());
  return fmt::format("{}  ({}; {})", input, compiler, options);
}

std::string report_to_text(const std::vector<MultiVariantKey>& keys) {
  if (keys.empty()) return "no key holds more than one variant\n";
  std::string s = fmt::format("{} key{} hold{} more than one variant:\n", keys.size(),
                              keys.size() == 1 ? "" : "s", keys.size() == 1 ? "s" : "");
  for (const auto& m : keys) {
    s += fmt::format("\n{}  {}\n", m.key, key_title(m));
    for (size_t i = 0; i < m.variants.size(); ++i) {
      const auto& v = m.variants[i];
      s += fmt::format("  {} {}  {}  {} on {} pid {}{}\n", i == 0 ? "*" : " ", v.id.substr(0, 16),
                       v.created_at, v.how, v.host, v.pid, i == 0 ? "  (served)" : "");
      if (i > 0) s += fmt::format("      vs first: {}\n", m.differences[i - 1]);
    }
  }
  return s;
}

nlohmann::json cache_stats(const Store& store) {
  uint64_t variants = 0, multi = 0, matches = 0, mismatches = 0, damaged_events = 0;
  auto keys = store.keys();
  for (const auto& k : keys) {
    auto order = store.variant_order(k);
    variants += order.size();
    if (order.size() > 1) ++multi;
    for (const auto& e : store.events(k)) {
      if (e.value("event", "") == "verify")
        (e.value("result", "") == "match" ? matches : mismatches)++;
      if (e.value("event", "") == "damaged") ++damaged_events;
    }
  }
  auto damaged = store.list("damaged");
  // Served compiles since the last zeroing: one byte per event in v1/counters (Store::count),
  // counted a piece at a time (the file grows with every compile).
  const std::string codes = k_counter_codes;
  std::vector<uint64_t> tally(codes.size(), 0);
  store.scan("counters", [&](std::string_view piece) {
    for (size_t i = 0; i < codes.size(); ++i)
      tally[i] += static_cast<uint64_t>(std::count(piece.begin(), piece.end(), codes[i]));
  });
  nlohmann::json counters = nlohmann::json::object();
  const char* names[] = {"hit",    "miss",    "verified_match", "verified_mismatch",
                         "failed", "refused", "uncacheable"};
  for (size_t i = 0; i < codes.size(); ++i)
    counters[names[i]] = tally[i];
  std::string limit_text;
  nlohmann::json limit = nullptr;
  if (store.read("limit", limit_text, 4096)) {
    try {
      limit = parse_size(trim(limit_text), "limit");
    } catch (const Error&) {
    }
  }
  return {{"schema", "kdet.cache.stats/1"},
          {"counters", counters},
          {"limit", limit},
          {"cache", store.root()},
          {"keys", keys.size()},
          {"variants", variants},
          {"keys_with_variants", multi},
          {"bytes", store.tree_bytes("")},
          {"entry_bytes", store.tree_bytes("entries")},
          {"damaged",
           std::count_if(damaged.begin(), damaged.end(),
                         [](const std::string& p) { return !p.ends_with(".why") && p[0] != '.'; })},
          {"damaged_events", damaged_events},
          {"staging", store.list("tmp").size()},
          {"verifications", {{"match", matches}, {"mismatch", mismatches}}}};
}

uint64_t parse_size(const std::string& text, const std::string& option) {
  std::string t = trim(text);
  unsigned shift = 0;
  if (t.size() > 1 && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
  if (!t.empty()) {
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
    auto pos = std::string("KMGTP").find(c);
    if (pos != std::string::npos) {
      shift = 10 * static_cast<unsigned>(pos + 1);
      t.pop_back();
    }
  }
  auto v = parse_u64(t);
  if (!v)
    throw Error::format("{} {}: expected a size such as 500M, 2G, 64K or a number of bytes", option,
                        text);
  if (shift > 0 && *v > (UINT64_MAX >> shift))
    throw Error::format("{} {}: too large (the largest size is {} bytes, about 16 EiB)", option,
                        text, UINT64_MAX);
  return *v << shift;
}

double check_staging_age(double seconds, const std::string& option) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw Error::format("{} {}: expected a number of seconds, 0 or more", option, seconds);
  return seconds;
}

void zero_counters(const Store& store) {
  store.write_atomic("counters", "");
}

GcResult gc(Store& store, uint64_t max_size, double staging_age_s) {
  // The limit `kdet cache stats` shows the size against: the one gc last kept to.
  store.write_atomic("limit", std::to_string(max_size) + "\n");
  GcResult r;
  r.bytes_before = store.tree_bytes("");
  int64_t now = ::time(nullptr);
  for (const auto& name : store.list("tmp")) {
    std::string rel = "tmp/" + name;
    int64_t age = now - store.mtime(rel);
    // Age 0 takes every folder: a folder's time may be a second ahead of time() (the file
    // system's clock, another host's over NFS), which would make its age negative.
    if (staging_age_s > 0 && static_cast<double>(age) < staging_age_s) continue;
    // A dot name is a folder being born (made, locked, renamed into view) or one whose writer
    // died being born; its writer retries when gc takes it first.
    if (!store.remove_staging(rel)) continue; // its writer lives: a write in progress
    if (store.exists(rel)) {
      ++r.not_removed;
      r.warnings.push_back(not_removed(store, rel, "a stale staging folder"));
      continue;
    }
    ++r.staging_removed;
  }
  uint64_t total = store.tree_bytes("");
  if (total > max_size) {
    for (const auto& name : store.list("damaged")) {
      if (total <= max_size) break;
      uint64_t b = store.tree_bytes("damaged/" + name);
      store.remove("damaged/" + name);
      if (store.exists("damaged/" + name)) {
        ++r.not_removed;
        r.warnings.push_back(not_removed(store, "damaged/" + name, "damaged evidence"));
        uint64_t left = store.tree_bytes("damaged/" + name);
        b = b > left ? b - left : 0;
      } else {
        ++r.damaged_removed;
      }
      total = total > b ? total - b : 0;
    }
  }
  if (total > max_size) {
    struct Candidate {
      bool evidence;
      int64_t used;
      std::string key;
      uint64_t bytes;
    };
    std::vector<Candidate> cands;
    for (const auto& k : store.keys()) {
      std::string e = "entries/" + k.substr(0, 2) + "/" + k;
      int64_t used = std::max(store.mtime(e + "/log"), store.mtime(e + "/key.json"));
      cands.push_back({store.variant_order(k).size() > 1, used, k, store.tree_bytes(e)});
    }
    std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.evidence, a.used, a.key) < std::tie(b.evidence, b.used, b.key);
    });
    for (const auto& c : cands) {
      if (total <= max_size) break;
      std::string left = remove_atomically(store, "entries/" + c.key.substr(0, 2) + "/" + c.key);
      uint64_t b = c.bytes;
      if (!left.empty()) {
        ++r.not_removed;
        r.warnings.push_back(not_removed(store, left, "key " + c.key));
        uint64_t stay = store.tree_bytes(left);
        b = b > stay ? b - stay : 0;
      } else {
        ++r.keys_removed;
      }
      total = total > b ? total - b : 0;
    }
  }
  r.bytes_after = store.tree_bytes("");
  for (auto& w : store.take_warnings())
    r.warnings.push_back(std::move(w));
  return r;
}

VerifyResult verify_all(Store& store, double fraction, const std::string& command_line,
                        const std::function<void(uint64_t, uint64_t)>& progress) {
  VerifyResult r;
  auto keys = store.keys();
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> chosen;
  for (const auto& k : keys)
    if (sample(fraction)) chosen.push_back(k);
  const TempDir temp("cache-verify");
  const std::string& tmp = temp.path();
  uint64_t i = 0;
  for (const auto& k : chosen) {
    if (progress) progress(i++, chosen.size());
    auto skip = [&](const std::string& why) {
      ++r.skipped;
      r.lines.push_back(fmt::format("skipped   {}  {}", k, why));
    };
    nlohmann::json kj;
    uid_t owner = 0;
    bool sole_writer = false;
    if (!store.read_key_json(k, kj, &owner, &sole_writer)) {
      skip("key.json missing or unreadable");
      continue;
    }
    // Recompiling runs the program (or loads the library) that key.json names. In a shared
    // cache anyone in the group can write one, so only its owner's kdet may run it: a root
    // `cache verify` must never become a way to run another user's command as root.
    if (owner != ::geteuid()) {
      skip(fmt::format("key.json belongs to uid {}, not to this user (uid {}): only its owner "
                       "recompiles it",
                       owner, ::geteuid()));
      continue;
    }
    if (!sole_writer) {
      skip("key.json is writable by other users: another member could have "
           "written the command it names");
      continue;
    }
    KeyMaterial km;
    try {
      km = key_material_from_json(kj);
    } catch (const Error& e) {
      skip(e.what());
      continue;
    }
    if (std::string other = compute_key(km); other != k) {
      // Either key.json came from another key's folder (a member can move files in a shared
      // cache), or it shows bytes that are not UTF-8 mapped (util/strings) and cannot rebuild
      // the key. The first is certain when it describes a key this cache holds.
      skip(std::find(keys.begin(), keys.end(), other) != keys.end()
               ? fmt::format("key.json describes another key of this cache ({}): moved or "
                             "copied here from that key's folder",
                             other)
               : fmt::format("key.json describes key {}, not this one: moved or copied here from "
                             "another key's folder, or it shows a name, option or value that is "
                             "not UTF-8",
                             other));
      continue;
    }
    if (km.backend == "capi") {
      skip("stored through the C API: only its caller can recompile it");
      continue;
    }
    std::string input;
    if (!store.read_input(k, km.input_hash, km.input_size, input)) {
      skip("stored input missing or fails its hash check");
      continue;
    }
    auto kind = backend::parse_kind(km.backend);
    if (!kind) {
      skip(fmt::format("backend '{}' is not one kdet can recompile", km.backend));
      continue;
    }
    backend::BackendConfig cfg;
    cfg.kind = *kind;
    if (*kind == backend::Kind::exec) {
      std::vector<std::string> argv = {km.compiler.path};
      argv.insert(argv.end(), km.command.begin(), km.command.end());
      cfg.command = shell_join(argv);
      cfg.output_ext = km.output_ext;
    } else {
      cfg.lib = km.compiler.path;
    }
    backend::Identity now_id;
    try {
      now_id = compiler_identity(store, cfg);
    } catch (const Error& e) {
      skip(fmt::format("compiler unavailable: {}", e.what()));
      continue;
    }
    if (now_id.content_hash != km.compiler.content_hash || now_id.version != km.compiler.version) {
      skip(fmt::format("compiler {} changed since the entry was stored", km.compiler.path));
      continue;
    }
    std::vector<std::string> env;
    for (const auto& [name, value] : km.env)
      if (value) env.push_back(name + "=" + *value);
    std::string name =
        km.input_name.empty() ? "input" : fs::path(km.input_name).filename().string();
    std::string dir = fmt::format("{}/{}", tmp, k);
    make_dirs(dir);
    std::string path = dir + "/" + name;
    write_file_atomic(path, input);
    Recompiled rc = compile_once(cfg, path, km.options, std::chrono::milliseconds(300000), env);
    Lookup l = store.lookup(k, false, true); // compared with the first stored, whoever stored it
    if (!rc.ok) {
      ++r.failed;
      r.lines.push_back(fmt::format("failed    {}  {}  {}", k, km.input_name, rc.detail));
      continue;
    }
    ++r.checked;
    std::string vid = variant_id(rc.artifacts);
    if (l.hit && vid == l.first.meta.id) {
      ++r.matched;
      store.log_event(k, {{"event", "verify"}, {"result", "match"}, {"variant", vid}});
      r.lines.push_back(fmt::format("match     {}  {}", k, km.input_name));
      continue;
    }
    ++r.mismatched;
    Origin o;
    o.how = "verify-all";
    o.command = command_line;
    PutResult p = store.put(k, kj, input, rc.artifacts, o);
    store.log_event(k, {{"event", "verify"},
                        {"result", "mismatch"},
                        {"recompiled", vid},
                        {"served", l.hit ? l.first.meta.id : ""}});
    r.lines.push_back(fmt::format(
        "MISMATCH  {}  {}  recompile gave {} ({}), {} variants; {}", k, km.input_name,
        vid.substr(0, 12), p.added ? "new" : "known", p.variants,
        l.hit ? engine::describe(l.first.artifacts, rc.artifacts) : "served variant unreadable"));
  }
  if (progress) progress(chosen.size(), chosen.size());
  for (auto& w : store.take_warnings())
    r.lines.push_back("warning   " + w);
  return r;
}

} // namespace kdet::cache
