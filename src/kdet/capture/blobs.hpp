//===- capture/blobs.hpp - the bytes the preload stored ---------------------===//
//
// libkdet_capture.so appends each distinct input and output to its process's
// pack, RAW/blobs/PID-NONCE.pack, as "kdet-blob HASH SIZE\n" + SIZE bytes.
// This indexes every pack and hands blobs out by hash, checking each against
// its hash, so an entry cut short by a kill (or otherwise damaged) is absent,
// never wrong. The preload names a blob by the hash of its bytes; kdet names an
// artifact by its artifact hash (util/hash.hpp), which for PTX stored with its
// trailing NUL is another: the store hands blobs out by either, and checks each
// against the hash it was asked for by that hash's definition.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/hash.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kdet::capture {

// Lists RAW/SUB (records, blobs, notes), opened without following a link at RAW or SUB (kdet
// never follows a link inside a capture folder): the names of its entries, sorted. A link or
// anything but a folder there is named in `problems` and lists nothing; an absent one lists
// nothing.
std::vector<std::string> list_raw_folder(const std::string& raw, const char* sub,
                                         std::vector<std::string>& problems);

class BlobStore {
public:
  // Indexes RAW/blobs/*.pack; a pack that ends in a damaged entry is read up to it
  // and named in `problems`.
  BlobStore(const std::string& raw, std::vector<std::string>& problems);

  // The bytes stored under `hash`, or of the PTX whose artifact hash `hash` is, as the
  // pipeline saw them (NULs kept); nullopt when absent or damaged.
  std::optional<std::string> get(const std::string& hash) const;

  // The artifact hash of the blob stored under `stored` (the hash of its bytes), read as
  // `form`: `stored` itself for bytes, for PTX without trailing NULs, and when the blob is
  // absent or damaged (there is nothing to hash).
  std::string artifact_hash_of(const std::string& stored, ArtifactForm form) const;

  // Serves the file at `path` (a kept stage tap, capture/taps.hpp) under `hash`, its
  // artifact hash: get() reads it when no pack holds that hash, and checks it again.
  void add_file(const std::string& hash, const std::string& path);

private:
  struct Location {
    std::string pack;
    uint64_t offset = 0, size = 0;
  };
  // Reads the bytes at `loc`; true when they are whole.
  static bool read_blob(const Location& loc, std::string& out);
  // A read-only descriptor of the pack holding `loc` (-1 on failure).
  static int open_pack(const Location& loc);
  // Registers the artifact hash of the PTX stored under `stored` at `locs` (lock held).
  std::string name_ptx(const std::string& stored, const std::vector<Location>& locs) const;

  std::map<std::string, std::vector<Location>> m_index; // by the hash of the bytes
  mutable std::mutex m_mutex;                           // guards the three below
  // PTX by artifact hash, where that is not the hash of the bytes stored: their m_index entries.
  mutable std::map<std::string, std::vector<const std::vector<Location>*>> m_ptx;
  mutable std::map<std::string, std::string> m_named; // stored hash -> artifact hash
  mutable bool m_all_named = false;                   // every blob was given to name_ptx
  std::map<std::string, std::string> m_files;         // tapped files by artifact hash
};

} // namespace kdet::capture
