//===- cache/trust.cpp - records of trust in a shared cache -------------------===//
//
// In a shared cache every member can write, rename and remove what the folders' modes allow
// (docs/CACHE.md, "Trust"). What no member can do is write a file that another user owns and
// nobody else may write. So a variant is served only on a record of that kind: its meta.json
// (stored by this user, root or the cache folder's owner) or this user's own marker, each
// naming the key, the variant and the SHA-256 of every artifact, writable by its owner alone.
// A second name (a hard link) for such a file changes nothing: the record names where it
// belongs. Its place in the folder proves nothing (folders can be renamed), and neither
// does the log (anyone appends), so the record names its key and variant itself, and the
// bytes read are checked against it, not against whatever meta.json says at that moment.
//
//===----------------------------------------------------------------------===//
#include "kdet/cache/trust.hpp"

#include "kdet/cache/store_fs.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cache {

using detail::slurp_fd;

namespace {

std::string hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

bool is_sha256(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

} // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr) != 1)
    throw Error("cache: SHA-256 failed (libcrypto)");
  return hex(md, n);
}

bool matches_record(const TrustRecord& record, const std::vector<backend::Artifact>& artifacts,
                    std::string& why) {
  if (record.sha256.empty()) return true;
  if (record.sha256.size() != artifacts.size()) {
    why = fmt::format("{} artifacts where its record of trust names {}", artifacts.size(),
                      record.sha256.size());
    return false;
  }
  for (const auto& a : artifacts) {
    auto it = std::find_if(record.sha256.begin(), record.sha256.end(),
                           [&](const auto& r) { return r.first == a.name; });
    if (it == record.sha256.end()) {
      why = fmt::format("artifact {} is not in its record of trust", a.name);
      return false;
    }
    if (sha256_hex(a.data) != it->second) {
      why = fmt::format("artifact {} does not match the SHA-256 its record of trust names", a.name);
      return false;
    }
  }
  return true;
}

bool Store::trusted_file(int fd, std::string* why) const {
  auto no = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return no("not a regular file");
  const uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != m_owner && st.st_uid != 0)
    return no(fmt::format("stored by uid {}, not this user, root or the cache folder's owner",
                          st.st_uid));
  // Another member could have rewritten it (an earlier kdet made shared files 0664).
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return no("writable by other users");
  // A record is small (meta.json keeps at most 64 KiB of compiler log).
  if (static_cast<uint64_t>(st.st_size) > k_max_record) return no("too large for a record");
  return true;
}

bool Store::read_trusted(const std::string& rel, std::string& out) const {
  Fd root = open_root(false);
  if (!root.ok()) return false;
  Fd fd(open_beneath(root.get(), rel, O_RDONLY | O_NONBLOCK));
  if (!fd.ok() || !trusted_file(fd.get(), nullptr)) return false;
  return slurp_fd(std::move(fd), out, k_max_record);
}

std::optional<TrustRecord> Store::trust(const std::string& key, const std::string& id,
                                        std::string* why) const {
  auto no = [&](std::string w) -> std::optional<TrustRecord> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  Fd root = open_root(false);
  if (!root.ok()) return no("the cache cannot be opened");
  Fd v(open_beneath(root.get(), entry_rel(key) + "/variants/" + id, O_RDONLY | O_DIRECTORY));
  if (!v.ok()) return no("missing");
  const uid_t me = ::geteuid();

  // One record: a file in the variant's folder that names this key and variant.
  auto record = [&](const std::string& name, bool marker,
                    std::string& w) -> std::optional<TrustRecord> {
    Fd fd(::openat(v.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.ok()) {
      w = fmt::format("{}: {}", name, std::strerror(errno));
      return std::nullopt;
    }
    struct stat st {};
    if (!trusted_file(fd.get(), &w) || ::fstat(fd.get(), &st) != 0) {
      w = name + " " + w;
      return std::nullopt;
    }
    if (marker && st.st_uid != me) {
      w = name + " is not this user's";
      return std::nullopt;
    }
    std::string text;
    if (!slurp_fd(std::move(fd), text, k_max_record)) {
      w = name + " unreadable";
      return std::nullopt;
    }
    auto j = nlohmann::json::parse(text, nullptr, false);
    TrustRecord r;
    r.by = marker            ? "this user's compile"
           : st.st_uid == me ? "this user"
           : st.st_uid == 0  ? "root"
                             : "the cache folder's owner";
    // Nobody else can have written it: unreadable is damage, to be set aside, not distrust.
    if (!marker && (!j.is_object() || !j.contains("artifacts") || !j.contains("id"))) {
      r.damaged = "meta.json unreadable";
      return r;
    }
    const bool legacy_ok = !m_shared; // a private cache of an earlier kdet: no key, no digests
    if (!j.is_object() || !j.contains("artifacts") || !j["artifacts"].is_array() ||
        j.value(marker ? "variant" : "id", "") != id ||
        (j.contains("key") ? j.value("key", "") != key : !legacy_ok)) {
      w = name + " does not name this key and variant";
      return std::nullopt;
    }
    for (const auto& a : j["artifacts"]) {
      std::string n = a.is_object() ? a.value("name", "") : "";
      std::string d = a.is_object() ? a.value("sha256", "") : "";
      const bool sized = a.is_object() && a.contains("size") && a["size"].is_number_unsigned();
      if (sized) r.size.emplace_back(n, a["size"].get<uint64_t>());
      if (is_sha256(d) && sized) {
        r.sha256.emplace_back(n, d);
      } else if (is_sha256(d)) {
        w = name + " names no size for its artifacts (written by an earlier kdet)";
        return std::nullopt;
      } else if (!legacy_ok || marker) {
        w = name + " names no SHA-256 for its artifacts (stored by an earlier kdet)";
        return std::nullopt;
      }
    }
    if (!r.sha256.empty() &&
        (r.sha256.size() != j["artifacts"].size() || r.size.size() != r.sha256.size())) {
      w = name + " names SHA-256 for some artifacts only";
      return std::nullopt;
    }
    return r;
  };
  std::string w_meta, w_marker;
  if (auto r = record("meta.json", false, w_meta)) return r;
  if (auto r = record(fmt::format("trusted.{}", me), true, w_marker)) return r;
  return no(w_meta);
}

void Store::mark_trusted(const std::string& key, const std::string& id,
                         const std::vector<backend::Artifact>& artifacts) const {
  std::string why;
  if (auto r = trust(key, id); r && matches_record(*r, artifacts, why)) return;
  try {
    Fd v = open_dir(entry_rel(key) + "/variants/" + id, false);
    if (!v.ok()) return;
    nlohmann::json arts = nlohmann::json::array();
    for (const auto& a : artifacts)
      arts.push_back({{"name", a.name}, {"size", a.data.size()}, {"sha256", sha256_hex(a.data)}});
    nlohmann::json j = {
        {"schema", "kdet.cache.trust/1"}, {"key", key}, {"variant", id}, {"artifacts", arts}};
    std::string marker = fmt::format("trusted.{}", ::geteuid());
    // A marker of this name that another member planted is theirs, not this user's: replaced.
    ::unlinkat(v.get(), marker.c_str(), 0);
    write_new(v.get(), marker, json_text(j) + "\n",
              entry_rel(key) + "/variants/" + id + "/" + marker);
  } catch (const Error& e) {
    warn(e.what());
  }
}

} // namespace kdet::cache
