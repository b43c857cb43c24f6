//===- engine/differences.hpp - how two variants differ, in one line ------===//
//
// The one description of a difference between two variants' artifacts, with
// kdet diff's classification: kdet run's variant lines and the cache's
// verification and `cache verify` messages all use it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"

#include <string>
#include <vector>

namespace kdet::engine {

// "NAME: classification" for each artifact that differs between `reference` and `other`
// (joined by "; "; "identical" when none does): kdet diff's summary line (cubins by canonical
// SASS where nvdisasm is found: diff::default_sass_options), or hash and size only
// past diff::k_max_detailed_size; an artifact of one side only is "only in this variant" (in
// `other`) or "missing in this variant" (in `reference`). Never throws for a failed
// comparison: it says "could not compare: ...".
std::string describe(const std::vector<backend::Artifact>& reference,
                     const std::vector<backend::Artifact>& other);

} // namespace kdet::engine
