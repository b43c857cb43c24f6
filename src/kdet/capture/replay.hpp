//===- capture/replay.hpp - `kdet run BUNDLE_DIR`: replay a captured compile ===//
//
// A bundle folder (kdet capture --out DIR: DIR/bundles/ID) replays with the
// library it was captured with (checked by content hash), its input and its
// options, and the run reports whether the captured output came back.
// Every input replays in its order: NVVM modules (lazy ones lazily), an NVRTC
// source with its headers and name expressions, nvJitLink inputs of their types.
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
  std::vector<std::string> kernels; // entry names, in full (bundle.json "kernels")
  std::string input, lib;           // input: the first input's file (kdet run's input)
  std::vector<std::string> options;
  // The inputs after the first, in order, for RunPlan::parts (with their bytes).
  std::vector<backend::InputPart> parts;
  // kind exec: the command template (the captured program, its argv with {input} and {output}).
  std::string command;
  // kind python (a tapped stage, capture/tap_recipes.hpp): `lib` is the recipe's file (in the
  // bundle folder, checked by content hash), `function` the function called, `python` the
  // interpreter bundle.json names ("" : python3 on PATH).
  std::string function, python;
  // (artifact name as kdet's backends call it, artifact hash of the captured file as the
  // backend names that artifact: util/hash.hpp)
  std::vector<std::pair<std::string, std::string>> expected;
  // bundle.json's hash of each expected output, in `expected`'s order: the same hash, except
  // in a bundle of schema kdet.capture.bundle/1, which hashed PTX with its trailing NUL.
  std::vector<std::string> bundle_hashes;
};

// The replay of the bundle folder `path`; nullopt when `path` is not a folder
// holding bundle.json. Throws Error (exit 2) for a bundle that cannot be
// replayed (another kind, a first input that cannot be kdet run's input), a
// damaged one (an output file whose content is not the hash bundle.json records),
// or a library whose content changed since. Reads schema 1, 2 and 3. `path` may be DIR/bundles/ID
// of a capture folder whose bundles are packed (capture/bundle_pack.hpp): the bundle is read
// from the pack and, with `materialize`, its first input (and a Python stage's recipe) is
// written to a temporary folder kept until the process ends, as kdet run needs a file.
std::optional<ReplayPlan> bundle_replay_plan(const std::string& path, bool materialize = true);

// For each captured output: how many runs gave it back, as JSON and as
// summary lines; `reproduced` is false when some captured output never came back.
nlohmann::json replay_json(const ReplayPlan& plan, const engine::RunOutput& out, bool& reproduced);
std::string replay_text(const nlohmann::json& j);

} // namespace kdet::capture

namespace kdet::capture {

// Fills kdet run's compile arguments from the bundle; throws Error when the
// user also named a library, backend, command, Python stage or options (the bundle brings its
// own).
// The further inputs are the plan's `parts`: the caller puts them in RunPlan::parts.
// An exec bundle sets `command` (its template) and leaves `lib` and `options` empty.
// A python bundle sets `py` ("FILE:FUNCTION") and, unless the user named an interpreter
// (--python), `python`; a caller that passes no `py` cannot take one (Error, exit 2).
void apply_replay(const ReplayPlan& plan, std::string& input, std::string& backend,
                  std::string& lib, std::vector<std::string>& options, std::string& command,
                  std::string* py = nullptr, std::string* python = nullptr);

// Throws Error (exit 2) when the bundle has inputs after the first: `command` (cache compile,
// whose key covers one input) would compile the first alone, another compile than the captured.
void require_single_input(const ReplayPlan& plan, const std::string& command);

} // namespace kdet::capture
