//===- cli/capture_pipeline.hpp - one pipeline run under the capture preload ---===//
//
// What `kdet capture` and `kdet capture --builds` share: finding the preload and
// the exec shim, and running the pipeline once with both recording into a raw
// folder (docs/CAPTURE.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/cli/main.hpp"
#include "kdet/util/exec.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kdet::cli {

// The preload, the shim beside it, and the ':'-joined base names of the programs
// captured as command compiles.
struct CaptureTools {
  std::string lib, shim, names;
  // --wait-children: how long, once the pipeline has ended, to wait for the processes
  // it left that carry the preload (a child compiling after its parent exited).
  std::chrono::milliseconds wait_children{30000};
};

// Finds libkdet_capture.so and kdet-exec-shim, and checks each --exec NAME; throws
// kdet::Error (exit 2) naming what is missing or the option at fault.
CaptureTools capture_tools(const std::vector<std::string>& exec);

// One run of `command` with the preload recording into `raw` (which has records/ and
// blobs/). `env_changes` ("K=V") go into its environment after the capture's own;
// `fds` are the child's descriptors (util/exec SpawnOptions::fds). Waits for it (an
// interrupt ends the wait) and returns how it ended; throws kdet::Error when it cannot
// be started. `seconds` gets its wall time. What the pipeline left is waited for
// (tools.wait_children), then killed; `children` (when given) says what that was.
// What --vary-builds sets for one build (cli/capture_vary.cpp).
struct BuildVary {
  std::vector<std::string> env;     // "K=V"
  std::optional<bool> disable_aslr; // personality(ADDR_NO_RANDOMIZE)
  std::optional<unsigned> umask;
};

ExitStatus run_captured(const CaptureTools& tools, const std::vector<std::string>& command,
                        const std::string& raw, const std::vector<std::string>& env_changes,
                        std::vector<std::pair<int, int>> fds, double& seconds,
                        GuardReport* children = nullptr, const BuildVary* vary = nullptr);

// Checks --vary-builds FACTOR names (exit 2 naming the option); returns each factor's words
// for the report ("aslr (on in odd builds, off in even)").
std::vector<std::string> check_vary(const std::vector<std::string>& factors);
// The levels of build `build` (1-based): one level in odd builds, the other in even ones.
BuildVary vary_for(const std::vector<std::string>& factors, int build);

// An ExitStatus as one exit code: the code, 128 + signal, or 125 when it never ran.
int pipeline_exit_code(const ExitStatus& st);

// `kdet capture --builds N ...` (cli/capture_builds.cpp).
struct BuildsArgs {
  int builds = 0;
  std::string out, json, junit, html, clean;
  bool warm = false;
  bool annotations = false;  // --annotations
  bool no_reach = false;     // --no-reach
  double wait_children = 30; // --wait-children SECONDS
  std::vector<std::string> exec, command;
  std::vector<std::string> artifacts; // --artifacts GLOB: the build's own stage files
  std::vector<std::string> vary;      // --vary-builds FACTOR,...: kdet's factors per build
  bool folders = false; // --bundle-layout folders: a folder per bundle, no shared pack
};
int do_capture_builds(const BuildsArgs& a);

// Checks each --artifacts GLOB (relative to the pipeline's working folder, no `..`); throws
// kdet::Error (exit 2) naming the option.
void check_artifact_globs(const std::vector<std::string>& globs);

// `kdet capture compare DIR...` (cli/capture_builds.cpp).
// Registers it under `capture`; the chosen action goes to `action`.
void add_capture_compare(CLI::App* capture, Action& action);

} // namespace kdet::cli
