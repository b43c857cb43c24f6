//===- cache/store.cpp - atomic, hash-checked, never-overwriting entries -----===//
//
// Writers stage a variant in tmp/ (each file fsynced, then the folder), then
// renameat2(RENAME_NOREPLACE) it to entries/.../variants/<id>: a reader sees a
// whole variant or none, a process killed mid-write leaves only a stale
// staging folder (gc removes it), and two writers of the same variant race
// harmlessly (the second finds it present). Variants are ordered by the key's
// append-only log (one O_APPEND write per line, after the rename).
//
//===----------------------------------------------------------------------===//
#include "kdet/cache/store.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <map>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cache {

namespace {

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string iso_now() {
  auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// Writes and fsyncs a new file; throws Error naming it.
void write_synced(const std::string& path, std::string_view data) { write_file_synced(path, data, true); }

void fsync_dir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Reads a whole file; false when it cannot be opened or read.
bool slurp(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  out.clear();
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  DIR* d = ::opendir(path.c_str());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

// rename() that never replaces an existing target. Returns 0, or errno.
int rename_noreplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  int e = errno;
  if (e == EINVAL || e == ENOSYS) {
    // A file system without RENAME_NOREPLACE: renaming a folder onto a non-empty
    // folder fails anyway (variant folders are never empty).
    if (::rename(from.c_str(), to.c_str()) == 0) return 0;
    e = errno;
  }
  return e == ENOTEMPTY ? EEXIST : e;
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
                           a.at("hash").get<std::string>(), a.at("size").get<uint64_t>()});
  return m;
}

nlohmann::json meta_to_json(const VariantMeta& m) {
  nlohmann::json arts = nlohmann::json::array();
  for (const auto& a : m.artifacts)
    arts.push_back({{"name", a.name}, {"file", a.file}, {"hash", a.hash}, {"size", a.size}});
  return {{"schema", "kdet.cache.variant/1"}, {"id", m.id}, {"created_at", m.created_at},
          {"created_ns", m.created_ns}, {"how", m.how}, {"host", m.host}, {"pid", m.pid},
          {"kdet_version", m.kdet_version}, {"command", m.command}, {"extra", m.extra}, {"artifacts", arts}};
}

} // namespace

std::string variant_id(const std::vector<backend::Artifact>& artifacts) {
  Hasher h;
  h.add("kdet.cache.variant/1").add_u64(artifacts.size());
  for (const auto& a : artifacts) h.add(a.name).add(hash_bytes(a.data));
  return h.hex();
}

Store::Store(const std::string& dir) : m_dir(dir), m_root(absolute_path(dir) + "/v1") {}

std::string Store::entry_dir(const std::string& key) const {
  if (key.size() < 3) throw Error::format("cache: malformed key '{}'", key);
  return m_root + "/entries/" + key.substr(0, 2) + "/" + key;
}

std::string Store::make_staging() const {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = m_root + "/tmp";
  make_dirs(tmp);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string p = fmt::format("{}/{}.{}.{:x}", tmp, ::getpid(), counter.fetch_add(1), rng());
    if (::mkdir(p.c_str(), 0755) == 0) return p;
    if (errno != EEXIST) throw Error::format("cache: cannot create {}: {}", p, std::strerror(errno));
  }
  throw Error::format("cache: cannot create a staging folder in {}", tmp);
}

bool Store::load_variant(const std::string& key, const std::string& id, LoadedVariant& out,
                         std::string& why) const {
  std::string vdir = entry_dir(key) + "/variants/" + id;
  std::string text;
  if (!slurp(vdir + "/meta.json", text)) {
    why = "missing";
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
    backend::Artifact art{a.name, {}};
    if (!slurp(vdir + "/" + a.file, art.data)) {
      why = fmt::format("artifact {} ({}) missing", a.name, a.file);
      return false;
    }
    if (art.data.size() != a.size || hash_bytes(art.data) != a.hash) {
      why = fmt::format("artifact {} ({}) fails its hash check ({} bytes, expected {})", a.name, a.file,
                        art.data.size(), a.size);
      return false;
    }
    out.artifacts.push_back(std::move(art));
  }
  if (variant_id(out.artifacts) != id) {
    why = "artifacts do not give the variant id";
    return false;
  }
  return true;
}

std::string Store::quarantine(const std::string& key, const std::string& id, const std::string& why) {
  std::string damaged = m_root + "/damaged";
  make_dirs(damaged);
  std::string to = fmt::format("{}/{}.{}.{}.{}", damaged, key, id, now_ns(), ::getpid());
  std::string from = entry_dir(key) + "/variants/" + id;
  if (::rename(from.c_str(), to.c_str()) != 0) return {};
  write_file_atomic(to + ".why", fmt::format("{}\n", why));
  log_event(key, {{"event", "damaged"}, {"variant", id}, {"why", why}, {"moved_to", to}});
  return to;
}

std::vector<std::string> Store::variant_order(const std::string& key) const {
  std::string edir = entry_dir(key);
  std::vector<std::string> present = list_dir(edir + "/variants");
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
    if (slurp(edir + "/variants/" + v + "/meta.json", text)) {
      auto j = nlohmann::json::parse(text, nullptr, false);
      if (j.is_object()) t = j.value("created_ns", INT64_MAX);
    }
    rest.emplace_back(t, v);
  }
  std::sort(rest.begin(), rest.end());
  for (auto& [t, v] : rest) order.push_back(v);
  return order;
}

Lookup Store::lookup(const std::string& key, bool touch) {
  Lookup r;
  r.variants = variant_order(key);
  if (r.variants.empty()) return r;
  std::string why;
  if (!load_variant(key, r.variants[0], r.first, why)) {
    if (why == "missing") { // removed under us (gc): a plain miss
      r.variants.clear();
      return r;
    }
    std::string moved = quarantine(key, r.variants[0], why);
    r.warnings.push_back(fmt::format("cache entry {} variant {} is damaged ({}); treated as a miss{}", key,
                                     r.variants[0].substr(0, 12), why,
                                     moved.empty() ? "" : ", moved to " + moved));
    r.variants.clear();
    return r;
  }
  r.hit = true;
  if (touch) ::utimensat(AT_FDCWD, (entry_dir(key) + "/log").c_str(), nullptr, 0);
  return r;
}

PutResult Store::put(const std::string& key, const nlohmann::json& key_json, std::string_view input,
                     const std::vector<backend::Artifact>& artifacts, const Origin& origin) {
  PutResult r;
  r.variant = variant_id(artifacts);
  std::string edir = entry_dir(key);
  std::string vdir = edir + "/variants/" + r.variant;

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

  std::string stage = make_staging();
  struct Cleanup {
    std::string dir;
    ~Cleanup() { remove_tree(dir); }
  } cleanup{stage};
  std::string vstage = stage + "/v";
  make_dirs(vstage);
  for (size_t i = 0; i < artifacts.size(); ++i) {
    ArtifactMeta am{artifacts[i].name, fmt::format("a{}", i), hash_bytes(artifacts[i].data),
                    artifacts[i].data.size()};
    write_synced(vstage + "/" + am.file, artifacts[i].data);
    m.artifacts.push_back(am);
  }
  write_synced(vstage + "/meta.json", json_text(meta_to_json(m)) + "\n");
  fsync_dir(vstage);

  // The entry's fixed files: same content from every writer, so a replace is harmless.
  for (int attempt = 0;; ++attempt) {
    make_dirs(edir + "/variants");
    struct stat st {};
    if (::stat((edir + "/key.json").c_str(), &st) != 0) {
      write_synced(stage + "/key.json", json_text(key_json) + "\n");
      ::rename((stage + "/key.json").c_str(), (edir + "/key.json").c_str());
    }
    if (!input.empty() && ::stat((edir + "/input").c_str(), &st) != 0) {
      write_synced(stage + "/input", input);
      ::rename((stage + "/input").c_str(), (edir + "/input").c_str());
    }
    int e = rename_noreplace(vstage, vdir);
    if (e == 0) {
      r.added = true;
      fsync_dir(edir + "/variants");
      break;
    }
    if (e == EEXIST) break;                // the same variant is already there
    if (e == ENOENT && attempt < 3) continue; // gc removed the entry under us: recreate it
    throw Error::format("cache: cannot move {} to {}: {}", vstage, vdir, std::strerror(e));
  }
  if (r.added)
    log_event(key, {{"event", "variant"}, {"variant", r.variant}, {"how", origin.how}});
  auto order = variant_order(key);
  r.variants = order.size();
  r.first = order.empty() ? r.variant : order[0];
  return r;
}

void Store::log_event(const std::string& key, nlohmann::json event) {
  event["t"] = iso_now();
  event["pid"] = static_cast<int>(::getpid());
  std::string line = json_text(event, -1) + "\n";
  std::string path = entry_dir(key) + "/log";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return; // the log orders variants; losing a line costs only the order hint
  // One write() of a line under O_APPEND: concurrent writers never interleave within it.
  ssize_t n;
  do {
    n = ::write(fd, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  ::close(fd);
}

std::vector<nlohmann::json> Store::events(const std::string& key) const {
  std::vector<nlohmann::json> out;
  std::string text;
  if (!slurp(entry_dir(key) + "/log", text)) return out;
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
  std::string base = m_root + "/entries";
  for (const auto& prefix : list_dir(base))
    for (const auto& k : list_dir(base + "/" + prefix))
      if (k.size() == 32 && k.compare(0, 2, prefix) == 0) out.push_back(k);
  return out;
}

bool Store::read_key_json(const std::string& key, nlohmann::json& out) const {
  std::string text;
  if (!slurp(entry_dir(key) + "/key.json", text)) return false;
  out = nlohmann::json::parse(text, nullptr, false);
  return out.is_object();
}

bool Store::read_input(const std::string& key, const std::string& expected_hash, std::string& out) const {
  if (!slurp(entry_dir(key) + "/input", out)) return false;
  return hash_bytes(out) == expected_hash;
}

} // namespace kdet::cache
