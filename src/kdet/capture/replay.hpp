//===- capture/replay.hpp - `kdet run BUNDLE_DIR`: replay a captured compile ===//
//
// A bundle folder (kdet capture --out DIR: DIR/bundles/ID) replays with the
// library it was captured with (checked by content hash), its input and its
// options, and the run reports whether the captured output came back.
// Single-input bundles only for now: one NVVM module (not lazy), or one NVRTC
// source without headers or name expressions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kdet::capture {

struct ReplayPlan {
  std::string bundle_dir, id, kind;
  std::string input, lib;
  std::vector<std::string> options;
  // (artifact name as kdet's backends call it, hash of the captured bytes as they keep them)
  std::vector<std::pair<std::string, std::string>> expected;
};

// The replay of the bundle folder `path`; nullopt when `path` is not a folder
// holding bundle.json. Throws Error (exit 2) for a bundle that cannot be
// replayed yet, a damaged one, or a library whose content changed since.
std::optional<ReplayPlan> bundle_replay_plan(const std::string& path);

// For each captured output: how many runs gave it back, as JSON and as
// summary lines; `reproduced` is false when some captured output never came back.
nlohmann::json replay_json(const ReplayPlan& plan, const engine::RunOutput& out, bool& reproduced);
std::string replay_text(const nlohmann::json& j);

} // namespace kdet::capture

namespace kdet::capture {

// Fills kdet run's compile arguments from the bundle; throws Error when the
// user also named a library, backend, command or options (the bundle brings its own).
void apply_replay(const ReplayPlan& plan, std::string& input, std::string& backend,
                  std::string& lib, std::vector<std::string>& options, const std::string& command);

} // namespace kdet::capture
