//===- cache/store.cpp - atomic, hash-checked, never-overwriting entries -----===//
//
// Writers stage a variant in tmp/ (each file fsynced, then the folder), then
// renameat2(RENAME_NOREPLACE) it to entries/.../variants/<id>: a reader sees a
// whole variant or none, a process killed mid-write leaves only a stale
// staging folder (gc removes it), and two writers of the same variant race
// harmlessly (the second finds it present). Variants are ordered by the key's
// append-only log (one O_APPEND write per line, after the rename). Every path
// below v1/ is opened relative to a folder fd without following links.
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
#include <mutex>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace kdet::cache {

namespace {

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

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

// Reads a whole regular file from `fd`; false on a read error or a non-file.
bool slurp_fd(Fd fd, std::string& out) {
  if (!fd.ok()) return false;
  struct stat st {};
  out.clear();
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return true;
}

std::vector<std::string> list_fd(Fd fd) {
  std::vector<std::string> names;
  if (!fd.ok()) return names;
  DIR* d = ::fdopendir(fd.release());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

// Bytes of the regular files at or under `name` in `dir_fd`, links not followed.
uint64_t bytes_under(int dir_fd, const char* name, int depth) {
  struct stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (S_ISREG(st.st_mode)) return static_cast<uint64_t>(st.st_size);
  if (!S_ISDIR(st.st_mode) || depth > 64) return 0;
  Fd fd(::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.ok()) return 0;
  Fd keep(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
  uint64_t total = 0;
  for (const auto& n : list_fd(std::move(fd)))
    total += bytes_under(keep.get(), n.c_str(), depth + 1);
  return total;
}

// renameat() that never replaces an existing target. Returns 0, or errno.
int rename_noreplace(int from_dir, const std::string& from, int to_dir, const std::string& to) {
  if (::renameat2(from_dir, from.c_str(), to_dir, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  int e = errno;
  if (e == EINVAL || e == ENOSYS) {
    // A file system without RENAME_NOREPLACE: renaming a folder onto a non-empty
    // folder fails anyway (variant folders are never empty).
    if (::renameat(from_dir, from.c_str(), to_dir, to.c_str()) == 0) return 0;
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
  return {{"schema", "kdet.cache.variant/1"},
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

Store::Store(const std::string& dir) : m_dir(dir), m_root(absolute_path(dir) + "/v1") {
  struct stat st {};
  if (::stat(m_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IWGRP)) {
    m_shared = true;
    m_dir_mode = 02775;
    m_file_mode = 0664;
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

Fd Store::open_root(bool create) const {
  if (create) make_dirs(m_dir);
  // Reading never throws: an unreadable cache is a miss (with a warning); writing does.
  Fd dir(
      ::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); // DIR itself is the user's choice
  if (!dir.ok()) {
    std::string msg = fmt::format("cache {}: cannot open: {}", m_dir, std::strerror(errno));
    if (create) throw Error(msg);
    if (errno != ENOENT) warn(msg);
    return {};
  }
  Fd root(create ? make_dirs_beneath(dir.get(), "v1", m_dir_mode)
                 : open_beneath(dir.get(), "v1", O_RDONLY | O_DIRECTORY));
  if (!root.ok()) {
    std::string msg = fmt::format("cache {}: {}", m_root, beneath_error(errno));
    if (create) throw Error(msg);
    if (errno != ENOENT) warn(msg);
  }
  return root;
}

Fd Store::open_dir(const std::string& rel, bool create) const {
  Fd root = open_root(create);
  if (!root.ok()) return {};
  Fd d(create ? make_dirs_beneath(root.get(), rel, m_dir_mode)
              : open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  if (!d.ok()) {
    int e = errno;
    if (create)
      throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(e));
    if (e == ELOOP || e == EXDEV || e == ENOTDIR)
      warn(fmt::format("{}/{}: {}", m_root, rel, beneath_error(e)));
    if (create)
      throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(e));
    errno = e;
  }
  return d;
}

std::string Store::entry_rel(const std::string& key) const {
  if (key.size() < 3 || key.find('/') != std::string::npos || key.find('.') == 0)
    throw Error::format("cache: malformed key '{}'", key);
  return "entries/" + key.substr(0, 2) + "/" + key;
}

std::string Store::entry_dir(const std::string& key) const {
  return m_root + "/" + entry_rel(key);
}

void Store::write_new(int dir_fd, const std::string& name, std::string_view data,
                      const std::string& rel) const {
  Fd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 m_file_mode));
  if (!fd.ok())
    throw Error::format("cache: cannot create {}/{}: {}", m_root, rel, beneath_error(errno));
  if (m_shared) ::fchmod(fd.get(), m_file_mode);
  if (!write_all(fd.get(), data) || ::fsync(fd.get()) != 0) {
    int e = errno;
    ::unlinkat(dir_fd, name.c_str(), 0);
    throw Error::format("cache: cannot write {}/{}: {}", m_root, rel, std::strerror(e));
  }
}

Staging Store::make_staging() const {
  static std::atomic<uint64_t> counter{0};
  Fd tmp = open_dir("tmp", true);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Made under a dot name, locked, then renamed into view: gc never sees an unlocked live folder.
    std::string name = fmt::format("{}.{}.{:x}", ::getpid(), counter.fetch_add(1), rng());
    std::string hidden = "." + name;
    if (::mkdirat(tmp.get(), hidden.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      throw Error::format("cache: cannot create {}/tmp/{}: {}", m_root, hidden,
                          std::strerror(errno));
    }
    int lock = ::openat(tmp.get(), hidden.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0 ||
        ::renameat(tmp.get(), hidden.c_str(), tmp.get(), name.c_str()) != 0) {
      int e = errno;
      if (lock >= 0) ::close(lock);
      remove_tree_beneath(tmp.get(), hidden);
      throw Error::format("cache: cannot create a staging folder in {}/tmp: {}", m_root,
                          std::strerror(e));
    }
    ::fchmod(lock, m_dir_mode & 0777);
    return Staging(m_root + "/tmp/" + name, "tmp/" + name, lock);
  }
  throw Error::format("cache: cannot create a staging folder in {}/tmp", m_root);
}

std::vector<std::string> Store::list(const std::string& rel) const {
  Fd d = open_dir(rel, false);
  return list_fd(std::move(d));
}

uint64_t Store::tree_bytes(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return 0;
  if (rel.empty() || rel == ".") {
    uint64_t total = 0;
    Fd keep(::fcntl(root.get(), F_DUPFD_CLOEXEC, 0));
    for (const auto& n : list_fd(std::move(root)))
      total += bytes_under(keep.get(), n.c_str(), 0);
    return total;
  }
  auto [parent, leaf] = split_parent(rel);
  Fd p(parent.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                      : open_beneath(root.get(), parent, O_RDONLY | O_DIRECTORY));
  return p.ok() ? bytes_under(p.get(), leaf.c_str(), 0) : 0;
}

int64_t Store::mtime(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return 0;
  Fd fd(open_beneath(root.get(), rel, O_PATH));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec);
}

bool Store::is_dir(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  return fd.ok();
}

bool Store::staging_in_use(const std::string& rel) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_DIRECTORY));
  if (!fd.ok()) return false; // a file or a link: nobody's staging folder
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return errno == EWOULDBLOCK;
  ::flock(fd.get(), LOCK_UN);
  return false;
}

void Store::remove(const std::string& rel) const {
  Fd root = open_root(false);
  if (root.ok()) remove_tree_beneath(root.get(), rel);
}

bool Store::move(const std::string& from, const std::string& to) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  auto [fp, fl] = split_parent(from);
  auto [tp, tl] = split_parent(to);
  Fd a(fp.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                  : open_beneath(root.get(), fp, O_RDONLY | O_DIRECTORY));
  Fd b(tp.empty() ? ::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)
                  : open_beneath(root.get(), tp, O_RDONLY | O_DIRECTORY));
  if (!a.ok() || !b.ok()) {
    if (errno == ELOOP || errno == EXDEV)
      warn(fmt::format("{}/{}: {}", m_root, a.ok() ? tp : fp, beneath_error(errno)));
    return false;
  }
  return ::renameat(a.get(), fl.c_str(), b.get(), tl.c_str()) == 0;
}

bool Store::read(const std::string& rel, std::string& out) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY));
  if (!fd.ok() && (errno == ELOOP || errno == EXDEV))
    warn(fmt::format("{}/{}: {}; ignored", m_root, rel, beneath_error(errno)));
  return slurp_fd(std::move(fd), out);
}

bool Store::write_atomic(const std::string& rel, std::string_view data) const {
  try {
    auto [parent, leaf] = split_parent(rel);
    Fd d = parent.empty() ? open_root(true) : open_dir(parent, true);
    std::string tmp = fmt::format(".{}.{}.{}", leaf, ::getpid(), now_ns());
    write_new(d.get(), tmp, data, rel);
    if (::renameat(d.get(), tmp.c_str(), d.get(), leaf.c_str()) != 0) {
      int e = errno;
      ::unlinkat(d.get(), tmp.c_str(), 0);
      throw Error::format("cache: cannot write {}/{}: {}", m_root, rel, std::strerror(e));
    }
    return true;
  } catch (const Error& e) {
    warn(e.what());
    return false;
  }
}

bool Store::load_variant(const std::string& key, const std::string& id, LoadedVariant& out,
                         std::string& why) const {
  std::string vrel = entry_rel(key) + "/variants/" + id;
  std::string text;
  if (!read(vrel + "/meta.json", text)) {
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
    if (a.file.empty() || a.file.find('/') != std::string::npos || a.file[0] == '.' ||
        !read(vrel + "/" + a.file, art.data)) {
      why = fmt::format("artifact {} ({}) missing", a.name, a.file);
      return false;
    }
    if (art.data.size() != a.size || hash_bytes(art.data) != a.hash) {
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
    if (read(erel + "/variants/" + v + "/meta.json", text)) {
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

Lookup Store::lookup(const std::string& key, bool touch) {
  Lookup r;
  r.variants = variant_order(key);
  if (r.variants.empty()) {
    r.warnings = take_warnings();
    return r;
  }
  std::string why;
  if (!load_variant(key, r.variants[0], r.first, why)) {
    if (why == "missing") { // removed under us (gc): a plain miss
      r.variants.clear();
      r.warnings = take_warnings();
      return r;
    }
    std::string moved = quarantine(key, r.variants[0], why);
    r.warnings.push_back(
        fmt::format("cache entry {} variant {} is damaged ({}); treated as a miss{}", key,
                    r.variants[0].substr(0, 12), why, moved.empty() ? "" : ", moved to " + moved));
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
    ArtifactMeta am{artifacts[i].name, fmt::format("a{}", i), hash_bytes(artifacts[i].data),
                    artifacts[i].data.size()};
    write_new(vstage.get(), am.file, artifacts[i].data, stage.rel() + "/v/" + am.file);
    m.artifacts.push_back(am);
  }
  write_new(vstage.get(), "meta.json", json_text(meta_to_json(m)) + "\n",
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
    if (e == EEXIST) break;                   // the same variant is already there
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
  Fd fd(open_beneath(root.get(), rel, O_WRONLY | O_CREAT | O_APPEND, m_file_mode));
  if (!fd.ok()) {
    // The log orders variants; losing a line costs only the order hint. A link is worth a warning.
    if (errno == ELOOP || errno == EXDEV)
      warn(fmt::format("{}/{}: {}; event not logged", m_root, rel, beneath_error(errno)));
    return;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (m_shared && st.st_uid == ::geteuid()) ::fchmod(fd.get(), m_file_mode);
  // One write() of a line under O_APPEND: concurrent writers never interleave within it.
  ssize_t n;
  do {
    n = ::write(fd.get(), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
}

std::vector<nlohmann::json> Store::events(const std::string& key) const {
  std::vector<nlohmann::json> out;
  std::string text;
  if (!read(entry_rel(key) + "/log", text)) return out;
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

bool Store::read_key_json(const std::string& key, nlohmann::json& out, uid_t* owner) const {
  std::string text;
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), entry_rel(key) + "/key.json", O_RDONLY));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (owner) *owner = st.st_uid;
  if (!slurp_fd(std::move(fd), text)) return false;
  out = nlohmann::json::parse(text, nullptr, false);
  return out.is_object();
}

bool Store::read_input(const std::string& key, const std::string& expected_hash,
                       std::string& out) const {
  if (!read(entry_rel(key) + "/input", out)) return false;
  return hash_bytes(out) == expected_hash;
}

} // namespace kdet::cache
