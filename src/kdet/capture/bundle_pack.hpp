//===- capture/bundle_pack.hpp - bundles packed, identical files stored once ===//
//
// kdet capture --out DIR writes its bundles packed (docs/CAPTURE.md, "The capture folder"):
// every distinct file of every bundle (bundle.json, inputs, outputs) once in a pack, in the raw
// store's format ("kdet-blob HASH SIZE\n" + SIZE bytes, HASH the hash of the bytes), and
// DIR/bundles/index naming, per bundle, each of its files and where its bytes lie. Under
// --builds N every build's index points into one pack, DIR/packs/bundles.pack, so a bundle
// byte-identical in every build is stored once. A bundle keeps its path, DIR/bundles/ID:
// the commands that take a bundle read it from the pack (bundle_replay_plan), or a copy made
// on demand in a temporary folder (resolve_bundle_path). Old capture folders (a folder per
// bundle) read as before.
//
// The index and pack are untrusted: each field is checked, each read bounds-checked against
// the pack's size and its bytes against their hash; a bad one is an Error naming the file
// (exit 2).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdet::capture {

// The index's file name inside a bundles folder, and the shared pack of --builds.
inline constexpr const char* k_bundle_index = "index";
inline constexpr const char* k_shared_pack = "../../packs/bundles.pack";

// Writes bundle files into a pack, each distinct content once (also across the builds that
// share one writer), and a bundles folder's index.
class BundlePackWriter {
public:
  // `root_fd`/`pack_rel` is the pack (appended to; made with its folders when absent);
  // `ref` is how an index names it, relative to a bundles folder ("bundles.pack", or
  // k_shared_pack). `shown` is its path for messages.
  BundlePackWriter(int root_fd, const std::string& pack_rel, std::string ref, std::string shown);
  ~BundlePackWriter();
  BundlePackWriter(const BundlePackWriter&) = delete;
  BundlePackWriter& operator=(const BundlePackWriter&) = delete;

  // Adds file `rel` (a path inside the bundle folder) of bundle `id`; its bytes are stored
  // unless an identical content was stored already.
  void add(const std::string& id, const std::string& rel, const std::string& data);
  // Syncs the pack, then writes the index of what was added since the last call as
  // `bundles_fd`/index (atomically); `shown` is that folder's path for messages.
  void write_index(int bundles_fd, const std::string& shown);

  // Bytes written to the pack, and the bytes the files added would have taken one by one.
  uint64_t stored_bytes() const { return m_end; }
  uint64_t added_bytes() const { return m_added; }

private:
  struct Where {
    uint64_t offset, size;
  };
  int m_fd = -1;
  std::string m_ref, m_shown;
  uint64_t m_end = 0, m_added = 0;
  std::map<std::string, Where> m_stored; // content hash -> where in the pack
  std::string m_index;                   // index lines since the last write_index
};

// One file of a packed bundle, as its index names it.
struct PackedFile {
  std::string rel, pack, hash; // pack: the path of the pack file to read
  uint64_t offset = 0, size = 0;
};

// A packed bundle: its files, read from the pack on demand.
struct PackedBundle {
  std::string id, index; // index: the index's path, for messages
  std::vector<PackedFile> files;
  // The bytes of `rel`, checked (bounds, hash); nullopt when the bundle has no such file;
  // throws Error naming the index or pack when they are damaged.
  std::optional<std::string> read(const std::string& rel) const;
};

// Whether `bundles_dir` holds a bundle index (a regular file, not a link).
bool has_bundle_index(const std::string& bundles_dir);

// The bundle `id` of the packed bundles folder `bundles_dir`; nullopt when its index does not
// list it. Throws Error naming the index when it is damaged. Indexes are read once a process.
std::optional<PackedBundle> find_packed_bundle(const std::string& bundles_dir,
                                               const std::string& id);

// Every bundle id the index of `bundles_dir` lists, sorted.
std::vector<std::string> packed_bundle_ids(const std::string& bundles_dir);

// Splits "X/bundles/ID[/REST]" of a packed bundles folder X/bundles into ("X/bundles", ID,
// REST); nullopt when `path` exists or is not of that form.
struct PackedPath {
  std::string bundles_dir, id, rest;
};
std::optional<PackedPath> packed_path(const std::string& path);

// `path` itself, or, where it names a packed bundle or a path inside one (packed_path), that
// bundle written out in full to a temporary folder kept until the process ends, and the same
// path inside it; where it is a packed bundles folder itself, every bundle its index lists so
// written out (the tapped stages' bundle folders there are left out). Throws Error when the bundle
// is not in the index or the pack is damaged.
std::string resolve_bundle_path(const std::string& path);

// Writes file `rel` of `b` into a temporary folder kept until the process ends; its path.
std::string materialize_file(const PackedBundle& b, const std::string& rel);

} // namespace kdet::capture
