//===- cache/store.cpp - atomic, hash-checked, never-overwriting entries -----===//
//
// Writers stage a variant in tmp/ (each file fsynced, then the folder), then
// renameat2(RENAME_NOREPLACE) it to entries/.../variants/<id>: a reader sees a
// whole variant or none, a process killed mid-write leaves only a stale
// staging folder (gc removes it), and two writers of the same variant race
// harmlessly (the second finds it present). Variants are ordered by the key's
// append-only log (one O_APPEND write per line, after the rename). Every path
// below v1/ is opened relative to a folder fd without following links
// (cache/store_fs.cpp: the folder primitives these are built from).
//
//===----------------------------------------------------------------------===//
#include "kdet/cache/store.hpp"

#include "kdet/cache/store_fs.hpp"
#include "kdet/cache/trust.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace kdet::cache {

using detail::now_ns;
using detail::rename_noreplace;
using detail::slurp_fd;

namespace {

std::string iso_now() {
  auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

VariantMeta meta_from_json(const nlohmann::json& j) {
  VariantMeta m;
  m.id = j.at("id").get<std::string>();
  m.created_at = j.value("created_at", "");
  m.created_ns = j.value("created_ns", int64_t{0});
  m.how = j.value("how", "");
  m.host = j.value("host", "");
  m.pid = j.value("pid", 0);
  m.kdet_version = j.value("kdet_version", "");
  m.command = j.value("command", "");
  m.extra = j.value("extra", nlohmann::json::object());
  for (const auto& a : j.at("artifacts"))
    m.artifacts.push_back({a.at("name").get<std::string>(), a.at("file").get<std::string>(),
                           a.at("hash").get<std::string>(), a.at("size").get<uint64_t>(),
                           a.value("sha256", "")});
  return m;
}

nlohmann::json meta_to_json(const std::string& key, const VariantMeta& m) {
  nlohmann::json arts = nlohmann::json::array();
  for (const auto& a : m.artifacts)
    arts.push_back({{"name", a.name},
                    {"file", a.file},
                    {"hash", a.hash},
                    {"size", a.size},
                    {"sha256", a.sha256}});
  // v2 adds the key and each artifact's SHA-256: what makes it a record of trust (trust.cpp).
  return {{"schema", "kdet.cache.variant/2"},
          {"key", key},
          {"id", m.id},
          {"created_at", m.created_at},
          {"created_ns", m.created_ns},
          {"how", m.how},
          {"host", m.host},
          {"pid", m.pid},
          {"kdet_version", m.kdet_version},
          {"command", m.command},
          {"extra", m.extra},
          {"artifacts", arts}};
}

} // namespace

std::string variant_id(const std::vector<backend::Artifact>& artifacts) {
  Hasher h;
  h.add("kdet.cache.variant/1").add_u64(artifacts.size());
  for (const auto& a : artifacts)
    h.add(a.name).add(hash_bytes(a.data));
  return h.hex();
}

Store::Store(const std::string& dir)
    : m_dir(dir), m_root(absolute_path(dir) + "/v1"), m_owner(::geteuid()) {
  struct stat st {};
  if (::stat(m_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
  m_owner = st.st_uid;
  if (st.st_mode & S_IWGRP) {
    m_shared = true;
    m_dir_mode = 02775;
    m_append_mode = 0664; // the log and counters; every file written once stays 0644
  }
}

void Store::warn(std::string w) const {
  std::lock_guard lock(m_mu);
  if (std::find(m_warnings.begin(), m_warnings.end(), w) == m_warnings.end())
    m_warnings.push_back(std::move(w));
}

std::vector<std::string> Store::take_warnings() const {
  std::lock_guard lock(m_mu);
  return std::exchange(m_warnings, {});
}

std::string Store::entry_rel(const std::string& key) const {
  if (key.size() < 3 || key.find('/') != std::string::npos || key.find('.') == 0)
    throw Error::format("cache: malformed key '{}'", key);
  return "entries/" + key.substr(0, 2) + "/" + key;
}

std::string Store::entry_dir(const std::string& key) const {
  return m_root + "/" + entry_rel(key);
}

bool Store::load_variant(const std::string& key, const std::string& id, LoadedVariant& out,
                         std::string& why, const TrustRecord* record, uint64_t max_artifact) const {
  std::string vrel = entry_rel(key) + "/variants/" + id;
  std::string text;
  if (!read(vrel + "/meta.json", text, k_max_record)) {
    why = errno == EFBIG ? fmt::format("too large: meta.json is over {} bytes", k_max_record)
                         : "missing";
    return false;
  }
  try {
    out.meta = meta_from_json(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    why = fmt::format("meta.json unreadable ({})", e.what());
    return false;
  }
  if (out.meta.id != id) {
    why = fmt::format("meta.json names variant {}", out.meta.id);
    return false;
  }
  out.artifacts.clear();
  for (const auto& a : out.meta.artifacts) {
    // The most read of the file: the size its record of trust names (meta.json may have been
    // swapped since the record was read), else meta.json's within `max_artifact`.
    uint64_t bound = a.size;
    if (record && !record->size.empty()) {
      auto it = std::find_if(record->size.begin(), record->size.end(),
                             [&](const auto& r) { return r.first == a.name; });
      if (it == record->size.end() || it->second != a.size) {
        why = fmt::format("artifact {} ({}) is not the size its record of trust names", a.name,
                          a.file);
        return false;
      }
    } else if (a.size > max_artifact) {
      why = fmt::format("too large: artifact {} ({}) is {} bytes, more than kdet reads without a "
                        "record of its size ({} bytes)",
                        a.name, a.file, a.size, max_artifact);
      return false;
    }
    backend::Artifact art{a.name, {}};
    errno = 0;
    if (a.file.empty() || a.file.find('/') != std::string::npos || a.file[0] == '.' ||
        !read(vrel + "/" + a.file, art.data, bound)) {
      const int e = a.file.empty() ? 0 : errno;
      if (e == EFBIG)
        why = fmt::format("artifact {} ({}) fails its size check (over the {} bytes recorded)",
                          a.name, a.file, bound);
      else if (e == ENOMEM)
        why = fmt::format("too large: artifact {} ({}) of {} bytes does not fit in memory", a.name,
                          a.file, bound);
      else
        why = fmt::format("artifact {} ({}) missing", a.name, a.file);
      return false;
    }
    if (art.data.size() != a.size ||
        artifact_hash(backend::artifact_form(a.name), art.data) != a.hash) {
      why = fmt::format("artifact {} ({}) fails its hash check ({} bytes, expected {})", a.name,
                        a.file, art.data.size(), a.size);
      return false;
    }
    out.artifacts.push_back(std::move(art));
  }
  if (variant_id(out.artifacts) != id) {
    why = "artifacts do not give the variant id";
    return false;
  }
  // meta.json may have been swapped since the record was read: the bytes answer to the record.
  if (record && !matches_record(*record, out.artifacts, why)) return false;
  return true;
}

std::string Store::quarantine(const std::string& key, const std::string& id,
                              const std::string& why) {
  std::string name = fmt::format("{}.{}.{}.{}", key, id, now_ns(), ::getpid());
  try {
    open_dir("damaged", true);
  } catch (const Error& e) {
    warn(e.what());
    return {};
  }
  if (!move(entry_rel(key) + "/variants/" + id, "damaged/" + name)) return {};
  std::string to = m_root + "/damaged/" + name;
  write_atomic("damaged/" + name + ".why", fmt::format("{}\n", why));
  log_event(key, {{"event", "damaged"}, {"variant", id}, {"why", why}, {"moved_to", to}});
  return to;
}

std::vector<std::string> Store::variant_order(const std::string& key) const {
  std::string erel = entry_rel(key);
  std::vector<std::string> present;
  for (auto& n : list(erel + "/variants"))
    if (n[0] != '.') present.push_back(std::move(n));
  if (present.size() <= 1) return present;
  std::vector<std::string> order;
  for (const auto& ev : events(key)) {
    if (ev.value("event", "") != "variant") continue;
    std::string v = ev.value("variant", "");
    if (std::find(present.begin(), present.end(), v) != present.end() &&
        std::find(order.begin(), order.end(), v) == order.end())
      order.push_back(v);
  }
  // Present but not logged (the writer died between rename and log): by creation time.
  std::vector<std::pair<int64_t, std::string>> rest;
  for (const auto& v : present) {
    if (std::find(order.begin(), order.end(), v) != order.end()) continue;
    int64_t t = INT64_MAX;
    std::string text;
    if (read(erel + "/variants/" + v + "/meta.json", text, k_max_record)) {
      auto j = nlohmann::json::parse(text, nullptr, false);
      if (j.is_object()) t = j.value("created_ns", INT64_MAX);
    }
    rest.emplace_back(t, v);
  }
  std::sort(rest.begin(), rest.end());
  for (auto& [t, v] : rest)
    order.push_back(v);
  return order;
}

std::vector<std::string> Lookup::trusted_variants() const {
  std::vector<std::string> ids;
  for (const auto& v : variants)
    if (std::find(untrusted.begin(), untrusted.end(), v) == untrusted.end()) ids.push_back(v);
  return ids;
}

Lookup Store::lookup(const std::string& key, bool touch, bool any_owner) {
  Lookup r;
  r.variants = variant_order(key);
  // The earliest variant this user trusts; the others are passed over, never served.
  size_t pick = r.variants.size();
  std::optional<TrustRecord> record;
  for (size_t i = 0; i < r.variants.size(); ++i) {
    std::optional<TrustRecord> t = any_owner ? std::nullopt : trust(key, r.variants[i]);
    if (any_owner || t) {
      if (i < pick) record = std::move(t);
      pick = std::min(pick, i);
    } else {
      r.untrusted.push_back(r.variants[i]);
    }
  }
  if (pick == r.variants.size()) {
    r.warnings = take_warnings();
    return r;
  }
  std::string why = record ? record->damaged : "";
  if (!why.empty() ||
      !load_variant(key, r.variants[pick], r.first, why, record ? &*record : nullptr)) {
    if (why == "missing") { // removed under us (gc): a plain miss
      r.variants.clear();
      r.warnings = take_warnings();
      return r;
    }
    std::string moved = quarantine(key, r.variants[pick], why);
    r.warnings.push_back(fmt::format(
        "cache entry {} variant {} is damaged ({}); treated as a miss{}", key,
        r.variants[pick].substr(0, 12), why, moved.empty() ? "" : ", moved to " + moved));
    r.variants.clear();
    for (auto& w : take_warnings())
      r.warnings.push_back(std::move(w));
    return r;
  }
  r.hit = true;
  if (touch) {
    auto [parent, leaf] = split_parent(entry_rel(key) + "/log");
    Fd root = open_root(false);
    Fd e(root.ok() ? open_beneath(root.get(), parent, O_RDONLY | O_DIRECTORY) : -1);
    if (e.ok()) ::utimensat(e.get(), leaf.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  }
  for (auto& w : take_warnings())
    r.warnings.push_back(std::move(w));
  return r;
}

PutResult Store::put(const std::string& key, const nlohmann::json& key_json, std::string_view input,
                     const std::vector<backend::Artifact>& artifacts, const Origin& origin) {
  PutResult r;
  r.variant = variant_id(artifacts);
  std::string erel = entry_rel(key);

  VariantMeta m;
  m.id = r.variant;
  m.created_at = iso_now();
  m.created_ns = now_ns();
  m.how = origin.how;
  m.host = host_name();
  m.pid = static_cast<int>(::getpid());
  m.kdet_version = k_version;
  m.command = origin.command;
  m.extra = origin.extra.is_null() ? nlohmann::json::object() : origin.extra;

  Staging stage = make_staging();
  struct Cleanup {
    const Store& store;
    std::string rel;
    // Best effort (a destructor must not throw): gc removes a staging folder left behind.
    ~Cleanup() {
      try {
        store.remove(rel);
      } catch (...) {
      }
    }
  } cleanup{*this, stage.rel()};
  Fd sdir = open_dir(stage.rel(), false);
  if (!sdir.ok()) throw Error::format("cache: staging folder {} vanished", stage.path());
  if (::mkdirat(sdir.get(), "v", 0700) != 0)
    throw Error::format("cache: cannot create {}/v: {}", stage.path(), std::strerror(errno));
  Fd vstage(::openat(sdir.get(), "v", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!vstage.ok())
    throw Error::format("cache: cannot open {}/v: {}", stage.path(), std::strerror(errno));
  ::fchmod(vstage.get(), m_dir_mode);
  for (size_t i = 0; i < artifacts.size(); ++i) {
    ArtifactMeta am{artifacts[i].name, fmt::format("a{}", i),
                    artifact_hash(backend::artifact_form(artifacts[i].name), artifacts[i].data),
                    artifacts[i].data.size(), sha256_hex(artifacts[i].data)};
    write_new(vstage.get(), am.file, artifacts[i].data, stage.rel() + "/v/" + am.file);
    m.artifacts.push_back(am);
  }
  write_new(vstage.get(), "meta.json", json_text(meta_to_json(key, m)) + "\n",
            stage.rel() + "/v/meta.json");
  ::fsync(vstage.get());

  // The entry's fixed files: same content from every writer, so a replace is harmless.
  for (int attempt = 0;; ++attempt) {
    Fd edir = open_dir(erel, true);
    Fd vars = open_dir(erel + "/variants", true);
    struct stat st {};
    if (::fstatat(edir.get(), "key.json", &st, AT_SYMLINK_NOFOLLOW) != 0) {
      ::unlinkat(sdir.get(), "key.json", 0);
      write_new(sdir.get(), "key.json", json_text(key_json) + "\n", stage.rel() + "/key.json");
      ::renameat(sdir.get(), "key.json", edir.get(), "key.json");
    }
    if (!input.empty() && ::fstatat(edir.get(), "input", &st, AT_SYMLINK_NOFOLLOW) != 0) {
      ::unlinkat(sdir.get(), "input", 0);
      write_new(sdir.get(), "input", input, stage.rel() + "/input");
      ::renameat(sdir.get(), "input", edir.get(), "input");
    }
    int e = rename_noreplace(sdir.get(), "v", vars.get(), r.variant);
    if (e == 0) {
      r.added = true;
      ::fsync(vars.get());
      break;
    }
    if (e == EEXIST) { // the same variant is already there: this compile verified it
      mark_trusted(key, r.variant, artifacts);
      break;
    }
    if (e == ENOENT && attempt < 3) continue; // gc removed the entry under us: recreate it
    throw Error::format("cache: cannot move {}/v to {}/{}/variants/{}: {}", stage.path(), m_root,
                        erel, r.variant, std::strerror(e));
  }
  if (r.added) log_event(key, {{"event", "variant"}, {"variant", r.variant}, {"how", origin.how}});
  auto order = variant_order(key);
  r.variants = order.size();
  r.first = order.empty() ? r.variant : order[0];
  return r;
}

void Store::log_event(const std::string& key, nlohmann::json event) {
  event["t"] = iso_now();
  event["pid"] = static_cast<int>(::getpid());
  std::string line = json_text(event, -1) + "\n";
  std::string rel = entry_rel(key) + "/log";
  Fd root;
  try {
    root = open_root(false);
  } catch (const Error& e) {
    warn(e.what());
    return;
  }
  if (!root.ok()) return;
  Fd fd = open_append(root.get(), rel);
  if (!fd.ok()) {
    // The log orders variants; losing a line costs only the order hint. A link is worth a warning.
    if (errno == ELOOP || errno == EXDEV)
      warn(fmt::format("{}/{}: {}; event not logged", m_root, rel, beneath_error(errno)));
    return;
  }
  // One write() of a line under O_APPEND: concurrent writers never interleave within it.
  ssize_t n;
  do {
    n = ::write(fd.get(), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
}

void Store::count(char code) const {
  Fd root;
  try {
    root = open_root(true);
  } catch (const Error& e) {
    warn(e.what());
    return;
  }
  Fd fd = open_append(root.get(), "counters");
  if (!fd.ok()) return; // statistics only: a compile is never failed for them
  ssize_t n;
  do {
    n = ::write(fd.get(), &code, 1);
  } while (n < 0 && errno == EINTR);
}

std::vector<nlohmann::json> Store::events(const std::string& key) const {
  std::vector<nlohmann::json> out;
  std::string text;
  bool cut = false;
  // The log orders variants and counts verifications: past its bound, its first part serves.
  if (!read(entry_rel(key) + "/log", text, k_max_log, &cut)) return out;
  if (cut)
    warn(fmt::format("{}/{}/log is over {} bytes; only its first {} bytes read", m_root,
                     entry_rel(key), k_max_log, k_max_log));
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break; // a torn last line
    auto j = nlohmann::json::parse(text.substr(pos, nl - pos), nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
    pos = nl + 1;
  }
  return out;
}

std::vector<std::string> Store::keys() const {
  std::vector<std::string> out;
  for (const auto& prefix : list("entries")) {
    if (prefix.size() != 2 || prefix[0] == '.') continue;
    for (const auto& k : list("entries/" + prefix))
      if (k.size() == 32 && k.compare(0, 2, prefix) == 0) out.push_back(k);
  }
  return out;
}

bool Store::read_key_json(const std::string& key, nlohmann::json& out, uid_t* owner,
                          bool* sole_writer) const {
  std::string text;
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), entry_rel(key) + "/key.json", O_RDONLY));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (owner) *owner = st.st_uid;
  if (sole_writer) *sole_writer = !(st.st_mode & (S_IWGRP | S_IWOTH));
  if (!slurp_fd(std::move(fd), text, k_max_record)) return false;
  out = nlohmann::json::parse(text, nullptr, false);
  return out.is_object();
}

bool Store::read_input(const std::string& key, const std::string& expected_hash,
                       uint64_t expected_size, std::string& out) const {
  if (!read(entry_rel(key) + "/input", out, expected_size)) return false;
  return hash_bytes(out) == expected_hash;
}

} // namespace kdet::cache
