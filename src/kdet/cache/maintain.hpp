//===- cache/maintain.hpp - report, stats, gc and verify over a whole cache ----===//
#pragma once

#include "kdet/cache/store.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kdet::cache {

// One key with more than one variant, for `kdet cache report`.
// NOLINTNEXTLINE(bugprone-exception-escape): its implicit destructor and moves do not throw
struct MultiVariantKey {
  std::string key;
  nlohmann::json key_json;           // what the key covers (may be empty if key.json is missing)
  std::vector<VariantMeta> variants; // earliest first
  std::vector<std::string>
      differences; // differences[i]: variant i+1 against variant 0 (kdet diff's words)
};

// Every key holding more than one variant (sorted by key).
std::vector<MultiVariantKey> multi_variant_keys(const Store& store);

// What a key covers, in a line: "input (compiler; options)", the input and compiler by name
// where the writer recorded one, else by what identifies them.
std::string key_title(const MultiVariantKey& m);

// Report as JSON (schema "kdet.cache.report/1") and as text.
nlohmann::json report_to_json(const Store& store, const std::vector<MultiVariantKey>& keys);
std::string report_to_text(const std::vector<MultiVariantKey>& keys);

// Counts and sizes, as JSON (schema "kdet.cache.stats/1").
nlohmann::json cache_stats(const Store& store);

// Zeroes the hit/miss/verification counters of cache_stats (the entries stay).
void zero_counters(const Store& store);

// Parses "500M", "2G", "64K", "1234" (bytes; K/M/G/T/P are powers of 1024); throws Error
// naming `option` for bad text or a size past 2^64-1 bytes (never wraps).
uint64_t parse_size(const std::string& text, const std::string& option);

// Checks a --staging-age: finite and not negative; throws Error naming `option`.
double check_staging_age(double seconds, const std::string& option);

struct GcResult {
  uint64_t bytes_before = 0, bytes_after = 0;
  uint64_t keys_removed = 0, damaged_removed = 0, staging_removed = 0;
  // Chosen for removal but (in part) still there: in a shared cache, a folder another member
  // made that this user may not empty. Each is named in `warnings`; never counted as removed.
  uint64_t not_removed = 0;
  std::vector<std::string> warnings; // links in the way, entries skipped, what stayed
};

// Removes staging folders older than `staging_age_s` whose writer is gone (a live
// writer holds a lock on its folder, so 0 is safe), then, while the cache is over
// `max_size`, damaged evidence, then whole keys least recently used first,
// single-variant keys before multi-variant keys (those are evidence).
GcResult gc(Store& store, uint64_t max_size, double staging_age_s = 3600);

struct VerifyResult {
  uint64_t checked = 0, matched = 0, mismatched = 0, skipped = 0, failed = 0;
  std::vector<std::string> lines; // one per key checked or skipped
};

// Recompiles the inputs of a sample (`fraction` of keys, 1 = all) and compares with the
// served variant; a new variant is stored (how = verify-all). `progress(i, n)` after each key.
VerifyResult verify_all(Store& store, double fraction, const std::string& command_line,
                        const std::function<void(uint64_t, uint64_t)>& progress = {});

} // namespace kdet::cache
