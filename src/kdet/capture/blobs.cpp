//===- capture/blobs.cpp - the bytes the preload stored ---------------------===//
#include "kdet/capture/blobs.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::capture {

std::vector<std::string> list_raw_folder(const std::string& raw, const char* sub,
                                         std::vector<std::string>& problems) {
  std::vector<std::string> names;
  Fd top(::open(raw.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!top.ok() && errno == ENOENT) return names;
  Fd fd(top.ok() ? open_beneath(top.get(), sub, O_RDONLY | O_DIRECTORY) : -1);
  if (!fd.ok()) {
    int err = errno;
    if (err == ENOENT) return names;
    std::string where = top.ok() ? std::string("raw/") + sub : "raw";
    problems.push_back(err == ELOOP || err == EXDEV || !top.ok()
                           ? fmt::format("{}: is a link or not a folder (kdet never follows a "
                                         "link inside a capture folder): not read",
                                         where)
                           : fmt::format("{}: cannot be read: {}", where, std::strerror(err)));
    return names;
  }
  DIR* d = ::fdopendir(fd.get());
  if (!d) return names;
  fd.release();
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

BlobStore::BlobStore(const std::string& raw, std::vector<std::string>& problems) {
  std::string dir = raw + "/blobs";
  std::vector<std::string> packs;
  for (const auto& n : list_raw_folder(raw, "blobs", problems))
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".pack") == 0) packs.push_back(dir + "/" + n);
  for (const auto& pack : packs) {
    Fd fd(::open(pack.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st {};
    if (!fd.ok() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      problems.push_back(fmt::format(
          "blobs/{}: {}; its blobs are absent", pack.substr(pack.rfind('/') + 1),
          fd.ok() ? "not a regular file (a FIFO, device or folder)" : std::strerror(errno)));
      continue;
    }
    auto end = static_cast<uint64_t>(st.st_size);
    uint64_t off = 0;
    std::string head;
    while (off < end) {
      read_at(fd.get(), off, head, static_cast<size_t>(std::min<uint64_t>(96, end - off)));
      size_t nl = head.find('\n');
      std::vector<std::string> w = split(head.substr(0, nl == std::string::npos ? 0 : nl), ' ');
      uint64_t size = 0;
      if (w.size() == 3)
        if (auto v = parse_u64(w[2])) size = *v + 1; // 0: unreadable; else size + 1
      if (nl == std::string::npos || w.size() != 3 || w[0] != "kdet-blob" || w[1].size() != 32 ||
          size == 0 || size - 1 > end - off - nl - 1) {
        problems.push_back(fmt::format("{}: damaged or cut short at byte {}; the rest is ignored",
                                       pack.substr(pack.rfind('/') + 1), off));
        break;
      }
      m_index[w[1]].push_back({pack, off + nl + 1, size - 1});
      off += nl + 1 + size - 1;
    }
  }
}

bool BlobStore::read_blob(const Location& loc, std::string& out) {
  Fd fd(open_pack(loc));
  return fd.ok() && read_at(fd.get(), loc.offset, out, loc.size);
}

int BlobStore::open_pack(const Location& loc) {
  return ::open(loc.pack.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
}

std::string BlobStore::name_ptx(const std::string& stored,
                                const std::vector<Location>& locs) const {
  if (auto it = m_named.find(stored); it != m_named.end()) return it->second;
  // Already the artifact hash of PTX stored with NULs: these bytes are that PTX's text, which
  // ends in none (a pipeline's PTX file, written from libNVVM's result): nothing to read.
  if (m_ptx.count(stored)) return m_named[stored] = stored;
  // One byte tells whether there is a NUL to drop; only then is the blob read and hashed.
  for (const auto& loc : locs) {
    Fd fd(open_pack(loc));
    std::string last, data;
    if (loc.size == 0 || !fd.ok() || !read_at(fd.get(), loc.offset + loc.size - 1, last, 1) ||
        last[0] != '\0' || !read_at(fd.get(), loc.offset, data, loc.size) ||
        hash_bytes(data) != stored)
      continue;
    std::string name = artifact_hash(ArtifactForm::ptx, data);
    m_ptx[name].push_back(&locs); // get() checks each by `name`
    return m_named[stored] = name;
  }
  return m_named[stored] = stored; // no NUL to drop, or nothing readable to hash
}

std::optional<std::string> BlobStore::get(const std::string& hash) const {
  if (auto it = m_index.find(hash); it != m_index.end())
    for (const auto& loc : it->second) {
      std::string data;
      if (read_blob(loc, data) && hash_bytes(data) == hash) return data;
    }
  std::vector<const std::vector<Location>*> ptx; // into m_index, which never changes
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    // A hash the records were not renamed to here (another BlobStore of the same folder
    // did): name every PTX-like blob once.
    if (m_ptx.find(hash) == m_ptx.end() && !m_all_named) {
      m_all_named = true;
      for (const auto& [stored, locs] : m_index)
        name_ptx(stored, locs);
    }
    if (auto it = m_ptx.find(hash); it != m_ptx.end()) ptx = it->second;
  }
  for (const auto* locs : ptx)
    for (const auto& loc : *locs) {
      std::string data;
      if (read_blob(loc, data) && artifact_hash(ArtifactForm::ptx, data) == hash) return data;
    }
  if (auto it = m_files.find(hash); it != m_files.end()) {
    std::string data;
    try {
      data = read_file(it->second);
    } catch (const Error&) {
      return std::nullopt;
    }
    if (artifact_hash(ArtifactForm::ptx, data) == hash || hash_bytes(data) == hash) return data;
  }
  return std::nullopt;
}

void BlobStore::add_file(const std::string& hash, const std::string& path) {
  m_files.emplace(hash, path);
}

std::string BlobStore::artifact_hash_of(const std::string& stored, ArtifactForm form) const {
  if (form == ArtifactForm::bytes) return stored;
  auto it = m_index.find(stored);
  if (it == m_index.end()) return stored;
  std::lock_guard<std::mutex> lock(m_mutex);
  return name_ptx(stored, it->second);
}

} // namespace kdet::capture
