//===- cache/store.hpp - the content-addressed cache folder -------------------===//
//
// Layout (docs/CACHE.md):
//   DIR/v1/entries/<key[0:2]>/<key>/key.json        what the key covers (informational)
//                                  /input           the input bytes (for `kdet cache verify`)
//                                  /log             append-only JSON lines: variants, verifications
//                                  /variants/<id>/meta.json, a0, a1, ...   one folder per variant
//   DIR/v1/tmp/       staging: a variant is written and fsynced here, then rename()d into place
//   DIR/v1/damaged/   variants whose bytes failed their hash check, moved aside as evidence
//   DIR/v1/identity/  memo of compiler identities (cache/identity.hpp)
// A variant folder is never overwritten and never deleted except by gc; every
// read checks each artifact's hash and treats a damaged variant as a miss.
// Nothing below DIR/v1 is reached through a link: every access is an openat
// beneath v1 that refuses links (util/fs open_beneath), so a link planted in a
// shared cache is an error naming it and nothing outside the cache is touched.
// A group-writable DIR makes a shared cache: folders 02775, files 0664.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/util/fs.hpp"

#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace kdet::cache {

// How a variant came to be stored, recorded in its meta.json.
struct Origin {
  std::string how =
      "fill"; // fill (a miss), verify (a sampled hit recompiled), verify-all (kdet cache verify)
  std::string command;  // the command line that produced it
  nlohmann::json extra; // anything else worth keeping (compiler identity, run timing)
};

struct ArtifactMeta {
  std::string name;
  std::string file; // a0, a1, ... inside the variant folder
  std::string hash;
  uint64_t size = 0;
  std::string sha256; // of the bytes as stored; what a trusted record vouches for ("" before v2)
};

// Why this user may be served a variant without recompiling it (docs/CACHE.md, "Trust"): a
// record that nobody else can have written names the key, the variant and the SHA-256 of each
// artifact, and the bytes served must match it.
// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct TrustRecord {
  std::string by; // "this user", "root", "the cache folder's owner", "this user's compile"
  std::vector<std::pair<std::string, std::string>> sha256; // artifact name, digest (hex)
  // Each artifact's size in bytes, as sha256 (name, bytes): the most a reader reads of it, so
  // a planted file of any size is refused by its size before a byte of it is read.
  std::vector<std::pair<std::string, uint64_t>> size;
  // Why a file that only a trusted user can have written is unreadable as a record: damage
  // (a disk or a tool), never served; "" for a record.
  std::string damaged;
};

// One variant as recorded.
// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct VariantMeta {
  std::string id;
  std::string created_at; // ISO 8601 UTC
  int64_t created_ns = 0; // CLOCK_REALTIME, for ordering variants missing from the log
  std::string how;
  std::string host;
  int pid = 0;
  std::string kdet_version;
  std::string command;
  nlohmann::json extra;
  std::vector<ArtifactMeta> artifacts;
};

// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct LoadedVariant {
  VariantMeta meta;
  std::vector<backend::Artifact> artifacts;
};

// The result of a lookup.
// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct Lookup {
  bool hit = false;
  LoadedVariant first;                // the variant served (the earliest this user trusts)
  std::vector<std::string> variants;  // ids, earliest first, trusted or not
  std::vector<std::string> warnings;  // damaged variants moved aside, ...
  std::vector<std::string> untrusted; // ids stored by a user this one does not trust (never served)
  // The ids of `variants` this user trusts: the evidence of nondeterminism a policy acts on (a
  // member's planted variant must not make another user's build fail).
  std::vector<std::string> trusted_variants() const;
};

// The result of a store.
struct PutResult {
  std::string variant; // its id
  bool added = false;  // this call created the variant folder
  size_t variants = 0; // variants under the key afterwards
  std::string first;   // id of the earliest variant under the key afterwards
};

// The variant id of a set of artifacts (names and contents).
std::string variant_id(const std::vector<backend::Artifact>& artifacts);

// A staging folder under tmp/, locked (flock) while its writer lives, so gc
// never removes a write in progress whatever --staging-age says.
class Staging {
public:
  Staging() = default;
  Staging(std::string path, std::string rel, int lock_fd)
      : m_path(std::move(path)), m_rel(std::move(rel)), m_lock(lock_fd) {}
  const std::string& path() const { return m_path; }
  const std::string& rel() const { return m_rel; } // relative to the cache's v1/
  operator const std::string&() const { return m_path; }

private:
  std::string m_path;
  std::string m_rel;
  Fd m_lock;
};

// Bounds on what the cache reads: a member of a shared cache decides the size of what it plants
// (docs/CACHE.md, "Trust"), and a file past its bound is refused, never read whole.
inline constexpr uint64_t k_max_record = uint64_t{8} << 20; // meta.json, key.json, markers, memo
inline constexpr uint64_t k_max_log = uint64_t{16} << 20;   // a key's log: its first 16 MiB
// An artifact that no record of trust sizes (report, verify, the C API's difference): 1 GiB.
inline constexpr uint64_t k_max_unvouched = uint64_t{1} << 30;

// The counter codes of Store::count, in `kdet cache stats` order: hit, miss, verified match,
// verified mismatch (found varying), failed compile, refused, uncacheable (run uncached).
inline constexpr const char* k_counter_codes = "hmvxfru";

class Store {
public:
  // Opens (does not yet create) the cache at `dir` (its v1/ subfolder holds everything).
  explicit Store(const std::string& dir);

  const std::string& dir() const { return m_dir; }
  const std::string& root() const { return m_root; }

  // The key's entry folder.
  std::string entry_dir(const std::string& key) const;

  // Looks `key` up: reads the earliest variant this user trusts (trusted()) and checks every
  // artifact's hash; `any_owner` reads the earliest of all. A damaged variant is moved to
  // damaged/ with a warning and the lookup is a miss. `touch` records the use for gc's
  // least-recently-used order.
  Lookup lookup(const std::string& key, bool touch = true, bool any_owner = false);

  // The trust model (docs/CACHE.md, "Trust"): this user is served variant `id` of `key` without
  // recompiling only when a trusted record vouches for it: its meta.json, stored by this user,
  // root or the cache folder's owner, or a `trusted.UID` marker this user wrote when its own
  // compile gave the same bytes. A record counts only when nobody else can have written it
  // (owned by one of those and writable by nobody else) and it names this key and
  // variant and the SHA-256 of every artifact. nullopt (and `why`) otherwise.
  std::optional<TrustRecord> trust(const std::string& key, const std::string& id,
                                   std::string* why = nullptr) const;
  bool trusted(const std::string& key, const std::string& id) const {
    return trust(key, id).has_value();
  }

  // Stores a variant under `key` (atomically; never overwrites). `key_json` and
  // `input` are written once per key (input may be empty: not recompilable).
  PutResult put(const std::string& key, const nlohmann::json& key_json, std::string_view input,
                const std::vector<backend::Artifact>& artifacts, const Origin& origin);

  // Appends one event (a JSON object, one line) to the key's log.
  void log_event(const std::string& key, nlohmann::json event);

  // Counts one served compile in v1/counters (one byte appended under O_APPEND: safe under
  // concurrent kdet processes without a lock). Codes in k_counter_codes; failures are ignored.
  void count(char code) const;

  // Variant ids under `key`, earliest first (log order, then creation time).
  std::vector<std::string> variant_order(const std::string& key) const;

  // Reads one variant with hash checks; false (and `why`) when missing or damaged. With
  // `record`, the artifacts must be exactly those it names, each of the size and SHA-256 it
  // names, and no more of a file than that size is read; without, no artifact larger than
  // `max_artifact` is read (`why` then says so).
  bool load_variant(const std::string& key, const std::string& id, LoadedVariant& out,
                    std::string& why, const TrustRecord* record = nullptr,
                    uint64_t max_artifact = k_max_unvouched) const;

  // Moves a variant aside to damaged/; returns the new path ("" when it was already gone).
  std::string quarantine(const std::string& key, const std::string& id, const std::string& why);

  // Every key in the cache (unordered).
  std::vector<std::string> keys() const;

  // The key's log events, in order (unparsable lines skipped).
  std::vector<nlohmann::json> events(const std::string& key) const;

  // key.json and input of an entry; false when absent or (input) not matching its hash.
  // `owner`, when given, gets key.json's owner: whoever wrote the command it describes.
  // `sole_writer`, when given, is false when users other than its owner can write it.
  bool read_key_json(const std::string& key, nlohmann::json& out, uid_t* owner = nullptr,
                     bool* sole_writer = nullptr) const;
  // The input is read only when it has `expected_size` bytes (key.json's input_size).
  bool read_input(const std::string& key, const std::string& expected_hash, uint64_t expected_size,
                  std::string& out) const;

  // A fresh staging folder under tmp/, locked until the Staging is destroyed.
  Staging make_staging() const;

  // ---- access beneath v1/ for maintenance (`rel` is relative to v1/; links refused) ----

  // Names in a folder (without . and ..); empty when absent, a link (warned) or unreadable.
  std::vector<std::string> list(const std::string& rel) const;
  // Bytes of the regular files at or under `rel` (links not followed).
  uint64_t tree_bytes(const std::string& rel) const;
  // Modification time (seconds) of `rel` itself; 0 when absent.
  int64_t mtime(const std::string& rel) const;
  // True when `rel` exists (whatever it is, a link too).
  bool exists(const std::string& rel) const;
  // True when `rel` is a folder (not a link to one).
  bool is_dir(const std::string& rel) const;
  // Removes the staging folder `rel` unless its writer still holds its lock; false when it
  // does (the write is in progress).
  bool remove_staging(const std::string& rel) const;
  // Removes `rel` and everything under it; a link is removed, never followed.
  void remove(const std::string& rel) const;
  // Moves `from` to `to` (both beneath v1/); false on failure.
  bool move(const std::string& from, const std::string& to) const;
  // Reads a regular file of at most `max` bytes; false when absent, a link, unreadable or
  // (errno EFBIG) larger. With `cut`, a larger file gives its first `max` bytes and sets *cut.
  bool read(const std::string& rel, std::string& out, uint64_t max, bool* cut = nullptr) const;
  // Calls `chunk` with a regular file's bytes, a piece at a time (never held whole); false
  // when absent, a link or unreadable.
  bool scan(const std::string& rel, const std::function<void(std::string_view)>& chunk) const;
  // Reads a regular file that nobody but this user, root or the cache folder's owner can have
  // written (owned by one of them and writable by no one else); false otherwise.
  bool read_trusted(const std::string& rel, std::string& out) const;
  // Writes a file atomically (its folders made as needed); false (and a warning) on failure.
  bool write_atomic(const std::string& rel, std::string_view data) const;
  // Links found in the way and other problems met since the last call (each names the path).
  std::vector<std::string> take_warnings() const;
  // True when the cache is shared by a group (DIR is group-writable): folders 02775, files 0664.
  bool shared() const { return m_shared; }

private:
  // DIR/v1 opened (created when `create`); throws Error when v1 is a link. Invalid Fd when absent.
  Fd open_root(bool create) const;
  std::string entry_rel(const std::string& key) const;
  Fd open_dir(const std::string& rel, bool create) const;
  void write_new(int dir_fd, const std::string& name, std::string_view data,
                 const std::string& rel) const;
  // `rel` under the open root, for appending: a regular file, created or owned by this user with
  // the store's mode (the group's in a shared cache), or an invalid Fd with errno set.
  Fd open_append(int root_fd, const std::string& rel) const;
  // Records that this user's compile gave `artifacts` as variant `id` (trust()'s marker, with
  // their SHA-256); best effort.
  void mark_trusted(const std::string& key, const std::string& id,
                    const std::vector<backend::Artifact>& artifacts) const;
  // Whether a file's owner and mode make it a record only a trusted user can have written.
  bool trusted_file(int fd, std::string* why) const;
  void warn(std::string w) const;

  std::string m_dir;
  std::string m_root;
  bool m_shared = false;
  uid_t m_owner; // the cache folder's owner: trusted() as this user is
  unsigned m_dir_mode = 0755;
  unsigned m_file_mode = 0644;   // files written once: never writable by another member
  unsigned m_append_mode = 0644; // the logs and counters every member appends to
  mutable std::mutex m_mu;
  mutable std::vector<std::string> m_warnings;
};

} // namespace kdet::cache
