//===- store/scan_db_blobs.cpp - artifact bytes: stored whole or as a difference -===//
//
// A census compiles each input for several targets (and option sets, compilers): their outputs
// differ in a few lines (`.target sm_80` against `sm_90a`), and a varying job's variants differ
// from each other in a few more. So the first output stored for an input and artifact name is
// that key's base, a zstd frame of its own; each later output of the key is a zstd frame made
// with the base's bytes as its prefix (codec zstd-delta, the base's hash in blobs.base) where
// that is smaller. A base is never a difference itself, so a read decodes at most two frames,
// and every read checks the bytes against their hash.
//
//===----------------------------------------------------------------------===//
#include "kdet/store/scan_db.hpp"
#include "kdet/store/sqlite_stmt.hpp"
#include "kdet/util/compress.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::store {

namespace {
std::string base_key(const std::string& input_hash, const std::string& artifact) {
  return input_hash + '\n' + artifact;
}
} // namespace

void ScanDb::load_bases() {
  if (m_bases_loaded) return;
  m_bases_loaded = true;
  // The first whole blob of each key, in the order the artifacts were stored: a resumed scan
  // goes on making differences from the bases its first session stored.
  Stmt s(m_db, "SELECT j.input_hash, a.name, a.hash FROM variant_artifacts a JOIN jobs j ON "
               "j.id = a.job_id JOIN blobs b ON b.hash = a.hash WHERE b.codec != 'zstd-delta' "
               "ORDER BY b.rowid");
  while (s.step())
    m_bases.emplace(base_key(s.text(0), s.text(1)), s.text(2));
}

void ScanDb::store_blobs(const RoundWrite& r) {
  if (r.blobs.empty()) return;
  load_bases();
  std::map<std::string, std::string> names; // hash -> artifact name
  for (const auto& v : r.job.variants)
    for (const auto& a : v.artifacts)
      names.emplace(a.hash, a.name);
  Stmt have(m_db, "SELECT 1 FROM blobs WHERE hash=?");
  Stmt put(m_db, "INSERT OR IGNORE INTO blobs(hash, codec, base, size, data) VALUES(?,?,?,?,?)");
  for (const auto& [h, data] : r.blobs) {
    have.bind(1, h);
    const bool stored = have.step();
    have.reset();
    if (stored) continue; // the same bytes, from another job
    auto name = names.find(h);
    const std::string key = base_key(r.job.input_hash, name == names.end() ? "" : name->second);
    auto base = m_bases.find(key);
    // Whichever is smallest: a difference from the key's base, a frame of its own, the bytes.
    // The hash is of the bytes themselves, checked again after every read.
    std::string codec = "raw", base_hash, frame;
    const std::string* best = &data;
    if (base != m_bases.end()) {
      if (m_last_base != base->second) {
        m_last_base_bytes = blob_bytes(base->second, true);
        m_last_base = base->second;
      }
      frame = zstd_compress(data, k_delta_level, m_last_base_bytes);
      if (frame.size() < data.size()) {
        codec = "zstd-delta";
        base_hash = base->second;
        best = &frame;
      }
    }
    // A difference of a tenth of the bytes or less is a close relative: no frame of its own
    // would be smaller, and making one would cost the writer a compression for nothing.
    if (best->size() * 10 > data.size()) {
      std::string whole = zstd_compress(data, k_blob_level);
      if (whole.size() < best->size()) {
        codec = "zstd";
        base_hash.clear();
        frame = std::move(whole);
        best = &frame;
      }
    }
    put.bind(1, h).bind(2, codec).bind(3, base_hash).bind(4, static_cast<int64_t>(data.size()));
    put.bind_blob(5, *best).run();
    if (codec != "zstd-delta") m_bases.emplace(key, h);
  }
}

std::string ScanDb::blob(const std::string& hash) {
  return blob_bytes(hash, false);
}

std::string ScanDb::blob_bytes(const std::string& hash, bool as_base) {
  // Version 1 has no codec, version 2 no base nor size: read as they are.
  const bool coded = has_column("main", "blobs", "codec");
  const bool based = has_column("main", "blobs", "base");
  Stmt s(m_db,
         fmt::format("SELECT data, {}, {}, {} FROM blobs WHERE hash=?", coded ? "codec" : "'raw'",
                     based ? "base" : "''", based ? "size" : "NULL")
             .c_str());
  s.bind(1, hash);
  if (!s.step()) {
    if (!as_base) return std::string();
    throw Error::format("database {}: a blob is stored as a difference from artifact {}, whose "
                        "bytes are not in its blobs; not a sound scan database",
                        m_path, hash.substr(0, 12));
  }
  std::string data = s.blob(0);
  const std::string codec = s.text(1);
  const std::string base = s.text(2);
  if (codec == "zstd" || codec == "zstd-delta") {
    // Bounded by the size stored for these bytes (version 3), else by the size the artifact
    // rows record: a damaged header claiming more is damage, not an allocation.
    uint64_t expected = 0;
    if (s.type(3) == SQLITE_INTEGER) {
      expected = static_cast<uint64_t>(std::max<int64_t>(0, s.i64(3)));
    } else {
      Stmt a(m_db, "SELECT max(size) FROM variant_artifacts WHERE hash=?");
      a.bind(1, hash);
      if (a.step()) expected = static_cast<uint64_t>(std::max<int64_t>(0, a.i64(0)));
    }
    std::string prefix;
    if (codec == "zstd-delta") {
      // A base is whole: a difference of a difference is damage (the writer and merge never
      // make one), and so is a difference that names no base.
      if (as_base || base.empty())
        throw Error::format("database {}: artifact {} is stored as a difference {}; not a sound "
                            "scan database",
                            m_path, hash.substr(0, 12),
                            base.empty() ? "from no base" : "and is another's base");
      prefix = blob_bytes(base, true);
    }
    std::optional<std::string> bytes = zstd_decompress(data, expected, prefix);
    if (!bytes)
      throw Error::format("database {}: the bytes stored for artifact {} are not a whole zstd "
                          "frame{}; not a sound scan database",
                          m_path, hash.substr(0, 12),
                          prefix.empty() ? "" : " of a difference from its base");
    data = std::move(*bytes);
  } else if (codec != "raw") {
    throw Error::format("database {}: artifact {} is stored with codec '{}', which kdet does not "
                        "write; not a sound scan database",
                        m_path, hash.substr(0, 12), codec);
  }
  // Bytes changed behind kdet would be shown (diffs, reports) as the artifact they are not.
  if (hash_bytes(data) != hash)
    throw Error::format("database {}: the bytes stored for artifact {} are not the bytes of that "
                        "hash; not a sound scan database",
                        m_path, hash.substr(0, 12));
  return data;
}

} // namespace kdet::store
