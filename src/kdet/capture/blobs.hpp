//===- capture/blobs.hpp - the bytes the preload stored ---------------------===//
//
// libkdet_capture.so appends each distinct input and output to its process's
// pack, RAW/blobs/PID-NONCE.pack, as "kdet-blob HASH SIZE\n" + SIZE bytes.
// This indexes every pack and hands blobs out by hash, checking each against
// its hash, so an entry cut short by a kill (or otherwise damaged) is absent,
// never wrong.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdet::capture {

class BlobStore {
public:
  // Indexes RAW/blobs/*.pack; a pack that ends in a damaged entry is read up to it
  // and named in `problems`.
  BlobStore(const std::string& raw, std::vector<std::string>& problems);

  // The bytes stored under `hash`, or nullopt when absent or damaged.
  std::optional<std::string> get(const std::string& hash) const;

private:
  struct Location {
    std::string pack;
    uint64_t offset = 0, size = 0;
  };
  std::map<std::string, std::vector<Location>> m_index;
};

} // namespace kdet::capture
