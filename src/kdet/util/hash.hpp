//===- util/hash.hpp - content hashes (XXH3-128) ---------------------------===//
//
// Every variant, artifact and compiler identity is named by a 128-bit XXH3
// hash written as 32 lower-case hex digits. XXH3 is not cryptographic: kdet
// names content with it, it does not defend against forged inputs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kdet {

// Hex digest of `data`.
std::string hash_bytes(std::string_view data);

// What an artifact is, for its hash: PTX is text, which libraries hand out with a
// trailing NUL that is no part of it; every other artifact (cubin, fatbin, LTO-IR, a
// command's output) is bytes, which may end in zeros that are.
enum class ArtifactForm { ptx, bytes };

// The part of `data` an artifact's hash covers: PTX without its trailing NULs, bytes whole.
std::string_view artifact_content(ArtifactForm form, std::string_view data);

// The one hash of an artifact (capture, run, scan, explain, cache): hash_bytes of its
// artifact_content.
std::string artifact_hash(ArtifactForm form, std::string_view data);

// Hex digest of a file's content, streamed; throws Error if unreadable.
std::string hash_file(const std::string& path);

// Incremental hasher for content made of several parts. Each part is
// length-prefixed, so ("ab","c") and ("a","bc") hash differently.
class Hasher {
public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  Hasher& add(std::string_view part);
  Hasher& add_u64(uint64_t value);
  // Appends bytes with no length prefix: a part streamed in chunks is
  // add_u64(total size) then add_raw() per chunk. Only add_raw() on a fresh
  // Hasher gives hash_bytes() of the concatenation.
  Hasher& add_raw(std::string_view bytes);
  std::string hex() const;

private:
  void* m_state;
};

// A 64-bit mix of a seed and an index (splitmix64); used to derive per-run
// seeds from the master seed so that any run can be replayed alone.
uint64_t mix_seed(uint64_t seed, uint64_t index);

} // namespace kdet
