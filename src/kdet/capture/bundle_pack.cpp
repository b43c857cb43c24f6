//===- capture/bundle_pack.cpp - bundles packed, identical files stored once ===//
#include "kdet/capture/bundle_pack.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::capture {

namespace {

constexpr const char* k_index_head = "kdet-bundle-index 1";

bool is_hex(const std::string& s, size_t n) {
  return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A path inside a bundle folder as kdet writes them: plain components of [A-Za-z0-9._+-],
// none "." or "..", at most two deep (inputs/NAME, outputs/NAME, bundle.json).
bool plain_rel(const std::string& rel) {
  if (rel.empty() || rel.size() > 255) return false;
  auto parts = split(rel, '/');
  if (parts.size() > 2) return false;
  for (const auto& p : parts) {
    if (p.empty() || p == "." || p == "..") return false;
    for (char c : p)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
            c == '-'))
        return false;
  }
  return true;
}

// The path of the pack an index line names, or "" when it names none kdet writes.
std::string pack_path(const std::string& bundles_dir, const std::string& ref) {
  if (ref == "bundles.pack" || ref == k_shared_pack) return bundles_dir + "/" + ref;
  return "";
}

struct Index {
  std::map<std::string, PackedBundle> bundles;
};

// Reads the index of `dir` (checked line by line; Error naming it and the line).
Index read_index(const std::string& dir) {
  std::string path = dir + "/" + k_bundle_index;
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error::format("{}: {} (a bundle index is a regular file, never a link)", path,
                        fd.ok() ? "not a regular file" : std::strerror(errno));
  if (st.st_size > (1LL << 31))
    throw Error::format("{}: {} bytes is too large for a bundle index", path, st.st_size);
  std::string text = read_file(path);
  Index idx;
  auto lines = split(text, '\n');
  if (lines.empty() || lines[0] != k_index_head)
    throw Error::format("{}:1: not a bundle index of kdet capture (it starts with \"{}\")", path,
                        k_index_head);
  for (size_t n = 1; n < lines.size(); ++n) {
    if (lines[n].empty() && n + 1 == lines.size()) break;
    auto f = split(lines[n], ' ');
    auto bad = [&](const char* why) {
      return Error::format("{}:{}: damaged bundle index line ({})", path, n + 1, why);
    };
    if (f.size() != 6) throw bad("6 fields expected: ID FILE PACK OFFSET SIZE HASH");
    if (!is_hex(f[0], 16)) throw bad("the bundle id is not 16 hex digits");
    if (!plain_rel(f[1])) throw bad("the file is not a plain path inside a bundle folder");
    std::string pack = pack_path(dir, f[2]);
    if (pack.empty()) throw bad("the pack is none kdet writes");
    auto off = parse_u64(f[3]), size = parse_u64(f[4]);
    if (!off || !size || *off > (1ULL << 60) || *size > (1ULL << 40))
      throw bad("the offset or size is not a number in range");
    if (!is_hex(f[5], 32)) throw bad("the hash is not 32 hex digits");
    PackedBundle& b = idx.bundles[f[0]];
    b.id = f[0];
    b.index = path;
    b.files.push_back({f[1], pack, f[5], *off, *size});
  }
  return idx;
}

std::mutex g_mutex; // guards the two below
std::map<std::string, std::shared_ptr<const Index>> g_indexes;
std::unique_ptr<TempDir> g_temp;
size_t g_made = 0;

std::shared_ptr<const Index> index_of(const std::string& dir) {
  std::string key = absolute_path(dir);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_indexes.find(key);
  if (it != g_indexes.end()) return it->second;
  auto idx = std::make_shared<const Index>(read_index(dir));
  g_indexes.emplace(key, idx);
  return idx;
}

// A new folder inside the process's temporary folder for materialized bundles.
std::string new_temp_folder(const std::string& id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_temp) g_temp = std::make_unique<TempDir>("bundle");
  std::string dir = fmt::format("{}/{}/{}", g_temp->path(), g_made++, id);
  make_dirs(dir);
  return dir;
}

} // namespace

BundlePackWriter::BundlePackWriter(int root_fd, const std::string& pack_rel, std::string ref,
                                   std::string shown)
    : m_ref(std::move(ref)), m_shown(std::move(shown)) {
  auto [parent, leaf] = split_parent(pack_rel);
  Fd dir(parent.empty() ? ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0)
                        : make_dirs_beneath(root_fd, parent, 0755));
  if (dir.ok())
    m_fd = ::openat(dir.get(), leaf.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0644);
  if (m_fd < 0) throw Error::format("cannot create {}: {}", m_shown, beneath_error(errno));
}

BundlePackWriter::~BundlePackWriter() {
  if (m_fd >= 0) ::close(m_fd);
}

void BundlePackWriter::add(const std::string& id, const std::string& rel, const std::string& data) {
  std::string hash = hash_bytes(data);
  m_added += data.size();
  auto it = m_stored.find(hash);
  if (it == m_stored.end()) {
    std::string head = fmt::format("kdet-blob {} {}\n", hash, data.size());
    if (!write_all(m_fd, head) || !write_all(m_fd, data))
      throw Error::format("cannot write {}: {}", m_shown, std::strerror(errno));
    it = m_stored.emplace(hash, Where{m_end + head.size(), data.size()}).first;
    m_end += head.size() + data.size();
  }
  m_index +=
      fmt::format("{} {} {} {} {} {}\n", id, rel, m_ref, it->second.offset, it->second.size, hash);
}

void BundlePackWriter::write_index(int bundles_fd, const std::string& shown) {
  if (::fsync(m_fd) != 0) throw Error::format("cannot write {}: {}", m_shown, std::strerror(errno));
  write_file_beneath(bundles_fd, k_bundle_index, std::string(k_index_head) + "\n" + m_index,
                     shown + "/" + k_bundle_index);
  m_index.clear();
}

std::optional<std::string> PackedBundle::read(const std::string& rel) const {
  auto f =
      std::find_if(files.begin(), files.end(), [&](const PackedFile& p) { return p.rel == rel; });
  if (f == files.end()) return std::nullopt;
  // The pack's own folder is the user's; the pack itself must be a regular file, no link.
  Fd fd(::open(f->pack.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error::format("{}: {} (the pack of bundle {}, named by {})", f->pack,
                        fd.ok() ? "not a regular file" : std::strerror(errno), id, index);
  auto end = static_cast<uint64_t>(st.st_size);
  if (f->offset > end || f->size > end - f->offset)
    throw Error::format("{}: cut short: bundle {}'s {} lies at bytes {} to {}, past its end ({} "
                        "bytes)",
                        f->pack, id, rel, f->offset, f->offset + f->size, end);
  std::string data;
  if (!read_at(fd.get(), f->offset, data, f->size) || hash_bytes(data) != f->hash)
    throw Error::format("{}: damaged: bundle {}'s {} at byte {} is not the content {} names "
                        "(hash {})",
                        f->pack, id, rel, f->offset, index, f->hash);
  return data;
}

bool has_bundle_index(const std::string& bundles_dir) {
  struct stat st {};
  std::string path = bundles_dir + "/" + k_bundle_index;
  return ::lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
}

std::optional<PackedBundle> find_packed_bundle(const std::string& bundles_dir,
                                               const std::string& id) {
  auto idx = index_of(bundles_dir);
  auto it = idx->bundles.find(id);
  if (it == idx->bundles.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> packed_bundle_ids(const std::string& bundles_dir) {
  std::vector<std::string> ids;
  for (const auto& [id, b] : index_of(bundles_dir)->bundles)
    ids.push_back(id);
  return ids;
}

std::optional<PackedPath> packed_path(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::lstat(path.c_str(), &st) == 0) return std::nullopt;
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  // Find ".../bundles/ID" with ID 16 hex digits, then the rest.
  size_t at = 0;
  while ((at = p.find("bundles/", at)) != std::string::npos) {
    if (at == 0 || p[at - 1] == '/') {
      std::string id = p.substr(at + 8, 16);
      size_t after = at + 8 + 16;
      std::string bundles = at == 0 ? "bundles" : p.substr(0, at + 7);
      if (is_hex(id, 16) && (after == p.size() || p[after] == '/') && has_bundle_index(bundles))
        return PackedPath{bundles, id, after < p.size() ? p.substr(after + 1) : ""};
    }
    at += 8;
  }
  return std::nullopt;
}

std::string materialize_file(const PackedBundle& b, const std::string& rel) {
  std::optional<std::string> data = b.read(rel);
  if (!data) throw Error::format("{}: bundle {} has no file {}", b.index, b.id, rel);
  std::string dir = new_temp_folder(b.id);
  std::string path = dir + "/" + rel;
  make_dirs(path.substr(0, path.rfind('/')));
  write_file_atomic(path, *data);
  return path;
}

namespace {

// Writes every file of `b` under `dir`.
void write_bundle_files(const PackedBundle& b, const std::string& dir) {
  for (const auto& f : b.files) {
    std::string to = dir + "/" + f.rel;
    make_dirs(to.substr(0, to.rfind('/')));
    write_file_atomic(to, *b.read(f.rel));
  }
}

} // namespace

std::string resolve_bundle_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && has_bundle_index(path)) {
    // A packed bundles folder itself (kdet diff A/bundles B/bundles): every bundle, unpacked.
    std::string dir = new_temp_folder("bundles");
    auto idx = index_of(path);
    for (const auto& [id, b] : idx->bundles)
      write_bundle_files(b, dir + "/" + id);
    return dir;
  }
  std::optional<PackedPath> pp = packed_path(path);
  if (!pp) return path;
  std::optional<PackedBundle> b = find_packed_bundle(pp->bundles_dir, pp->id);
  if (!b)
    throw Error::format("{}: no bundle {} in {}/{}", path, pp->id, pp->bundles_dir, k_bundle_index);
  std::string dir = new_temp_folder(b->id);
  write_bundle_files(*b, dir);
  return pp->rest.empty() ? dir : dir + "/" + pp->rest;
}

} // namespace kdet::capture
