//===- engine/differences.hpp - how two variants differ, in one line ------===//
//
// The one description of a difference between two variants' artifacts, with
// kdet diff's classification: kdet run's variant lines and the cache's
// verification and `cache verify` messages all use it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/diff/reach.hpp"

#include <map>
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

struct RunOutput;

// Each non-modal variant's reach (diff/reach.hpp) against the most common one, by variant id.
using VariantReaches = std::map<std::string, diff::VariantReach>;

// The artifact of `artifacts` a reach is computed from: a cubin, else PTX; nullptr for none.
const backend::Artifact* reach_artifact(const std::vector<backend::Artifact>& artifacts);

// The reach of each successful non-modal variant of `out` against the most common one, when
// two or more successful variants have a PTX or cubin artifact; empty otherwise (nothing
// assembled). Assembling a PTX pair costs a ptxas run per side (0.1 to 1 s each).
VariantReaches variant_reaches(const RunOutput& out, const diff::ReachOptions& options);

// What a run's reach needs: the target its options (and an exec template's words) name, and
// ptxas (found as `kdet impact` finds it; throws kdet::Error for a $KDET_PTXAS that is no
// program).
diff::ReachOptions reach_options(const std::vector<std::string>& options,
                                 const std::string& command);

} // namespace kdet::engine
