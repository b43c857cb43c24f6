//===- scan/manifest_bundles.hpp - bundle folders as scan jobs -----------------===//
//
// A manifest's `bundles` names bundle folders of kdet capture. Each is read through
// capture::bundle_replay_plan and turned into compile arguments by capture::apply_replay,
// the path `kdet run`, `explain` and `cache compile` take, so what replays there replays
// here, and what cannot is refused with the same reason.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/scan/manifest.hpp"

#include <string>
#include <utility>
#include <vector>

namespace kdet::scan {

// Adds one job per bundle folder the patterns name ((text, line): a folder or a glob,
// relative to the manifest's folder) and one captured compiler per distinct library
// (kind, path, content hash). Throws Error "FILE:LINE: why" for a pattern matching
// nothing, a folder that is not a bundle, or a bundle that cannot be replayed.
void add_bundles(Manifest& m, const std::vector<std::pair<std::string, int>>& patterns);

} // namespace kdet::scan
