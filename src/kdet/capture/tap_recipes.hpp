//===- capture/tap_recipes.hpp - tapped stages replayed in-process ----------===//
//
// A stage kdet only saw through its kept files (capture/taps.hpp) runs inside the
// pipeline's process, where kdet cannot repeat it. Where kdet ships a Python recipe
// for it (python/kdet_stage: llvmlite's NVPTX back end, Triton's llir -> ptx and
// ttgir -> llir, CuTe DSL's pass pipeline), capture writes a bundle of the stage:
// the recipe (a copy, checked by content hash on replay), its function, the
// options the framework used (read from the kept files), the kept input under
// inputs/ and the kept output under outputs/. `kdet run`, `explain` and `scan`
// replay it as a Python stage (kind "python", capture/replay.cpp), so the stage
// runs again and again in one process, as it did in the pipeline.
//
// To add a row: one line in k_recipes (tap_recipes.cpp): the framework (a row of
// framework_taps(), or "artifacts" for --artifacts files), the ending of the file the
// stage takes and of the one it makes, the recipe's file and function, and the
// function that reads the options from the kernel's kept files. A new recipe file
// also needs its name in src/CMakeLists.txt (the recipes embedded in kdet).
// docs/CAPTURE.md, "Replaying a tapped stage".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/records.hpp"
#include "kdet/capture/taps.hpp"

#include <string>
#include <vector>

namespace kdet::capture {

// What a row's options function reads: one tapped stage of one kernel.
struct TapStage {
  std::string input, output; // the bytes of the file it took and of the one it made
  std::string ptx;           // the kernel's kept PTX (the output, or a later file), "" if none
  std::string metadata;      // the kernel's metadata (Triton's .json), "" if none
  std::vector<std::string> recorded; // "VAR=VALUE" of each framework's recorded variable
};

// One framework/stage pair kdet replays in-process.
struct TapRecipe {
  const char* framework; // FrameworkTap::name ("triton"), or "artifacts" for --artifacts
  const char* from;      // the name ending of the file the stage takes (".llir")
  const char* to;        // the name ending of the file it makes (".ptx")
  const char* recipe;    // the recipe file kdet ships (python/kdet_stage/triton_stage.py)
  const char* function;  // its FUNCTION ("llir_to_ptx")
  // The options the framework used for this stage; leaves `why` empty, or says why they
  // cannot be known from the kept files (then the stage gets no bundle).
  std::vector<std::string> (*options)(const TapStage& s, std::string& why);
};
const std::vector<TapRecipe>& tap_recipes();

// The text of a recipe kdet ships, by file name ("llvmlite_ptx.py"); nullptr if none.
const char* recipe_source(const std::string& file);

// The row that replays the stage from kept file `from` to `to` (consecutive stages of one
// kernel of one framework); nullptr when there is none.
const TapRecipe* find_tap_recipe(const TapFile& from, const TapFile& to);

// One tapped stage a row replays, with the options read for it.
struct TapReplay {
  const TapRecipe* recipe = nullptr;
  const TapFile* from = nullptr;
  const TapFile* to = nullptr;
  std::vector<std::string> options;
  std::string input, output; // bytes
};

// The tapped stages of `taps` (kept in build_dir/taps) that a row replays: for each kernel
// (framework and group), each staged file and the one before it. A stage whose options cannot
// be read is named in `problems`.
std::vector<TapReplay> tap_replays(const std::vector<TapFile>& taps, const std::string& build_dir,
                                   const std::vector<std::string>& recorded,
                                   std::vector<std::string>& problems);

// Writes a bundle folder (bundles/ID: bundle.json of kind python, recipe/, inputs/, outputs/)
// beneath `out_fd` (shown as `shown`) for each replay of `taps`, and taps/replays.tsv (the
// output file of each and its bundle); returns the bundles, for the manifest. What cannot be
// written is named in `problems`.
std::vector<Bundle> write_tap_bundles(int out_fd, const std::string& shown,
                                      const std::vector<TapFile>& taps,
                                      const std::vector<std::string>& recorded,
                                      std::vector<std::string>& problems);

// The id of the bundle that replays the stage which made `file` ("taps/REL") in the capture
// folder `dir` (its taps/replays.tsv); "" when there is none.
std::string tap_replay_bundle(const std::string& dir, const std::string& file);

} // namespace kdet::capture
