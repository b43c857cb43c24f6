//===- cache/trust.hpp - what a shared cache's reader can trust ---------------===//
//
// The digest that binds a trusted record to the bytes it vouches for. XXH3 (util/hash) names
// content; it is no defence against a member who crafts bytes, so a record of trust carries
// SHA-256 (OpenSSL's libcrypto) and the bytes served are checked against it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/cache/store.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kdet::cache {

// SHA-256 of `data`, 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

// True when `artifacts` are exactly the record's (same names, each with its SHA-256); else
// false with `why`. A record without digests (a private cache of an earlier kdet) matches any.
bool matches_record(const TrustRecord& record, const std::vector<backend::Artifact>& artifacts,
                    std::string& why);

} // namespace kdet::cache
