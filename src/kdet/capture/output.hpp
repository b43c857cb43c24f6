//===- capture/output.hpp - bundle folders, JSON and summary of a capture ---===//
#pragma once

#include "kdet/capture/inprocess.hpp"
#include "kdet/capture/loads.hpp"
#include "kdet/capture/notes.hpp"
#include "kdet/capture/records.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::capture {

// What `kdet capture` learned, for the renderers.
struct CaptureResult {
  std::vector<std::string> command;
  std::string pipeline_status; // "exited 0", "killed by signal 9 (SIGKILL)", ...
  int pipeline_exit = 0;       // exit code, or 128+signal
  double seconds = 0;
  std::string out_dir;   // empty without --out
  bool finished = false; // --finish: bundles made later from OUT/raw; the pipeline was not seen
  std::vector<Compile> compiles;
  std::vector<Bundle> bundles;
  std::vector<std::string> problems;  // records that could not be read in full
  std::vector<Note> notes;            // what the preload could not record (capture/notes)
  ChildrenWait children;              // what the pipeline left running
  std::vector<CompilerInside> inside; // compilers in the files its processes mapped (RAW/maps)
  size_t taps = 0;                    // --artifacts files kept in OUT/taps
  std::vector<LoadedModule> loads;    // modules handed to the CUDA driver (the load seam)
};

// Reads RAW/maps and classifies the compilers the pipeline's processes had mapped.
void find_compilers_inside(const std::string& raw, CaptureResult& r);

class BlobStore;
// Reads the loads under RAW/records and joins them to r.compiles (after bundle_records and
// find_compilers_inside).
void find_loads(const std::string& raw, const BlobStore& blobs, CaptureResult& r);

// The kinds the issue names and whether this version captures them.
struct KindInfo {
  const char* name;
  bool captured;
};
const std::vector<KindInfo>& capture_kinds();

// Writes one self-contained folder per bundle under `out_fd`/bundles/ID
// (bundle.json, inputs/, outputs/), copying bytes from `blobs`, never
// following a link, then the scan manifest `out_fd`/manifest.toml (`shown` is
// the folder's path); throws Error naming `shown` on failure. Sets each bundle's `kernels`
// (entry names read from its bytes), which the summary, the manifest and the JSON then show.
// With `pack`, the bundles' files go into it instead, and `out_fd`/bundles/index lists them
// (capture/bundle_pack.hpp): each distinct file stored once.
class BlobStore;
class BundlePackWriter;
void write_bundles(int out_fd, const std::string& shown, const BlobStore& blobs,
                   std::vector<Bundle>& bundles, BundlePackWriter* pack = nullptr);

// The text of DIR/manifest.toml for the bundle folders under `dir`/bundles: a
// scan manifest listing every bundle that replays, as capture::bundle_replay_plan
// (the reader of run, explain and scan) reads it, and a comment with the reason
// for each one that does not.
std::string scan_manifest_text(const std::string& dir, const std::vector<Bundle>& bundles);

// Where a bundle folder keeps an output of `kind` ("nvvm" outputs are PTX):
// "outputs/HASH.ptx", relative to the bundle's folder.
std::string output_file(const std::string& kind, const std::string& hash);

// The schemas of bundle.json and of the --json document. Version 3 of each calls a bundle that
// gave more than one output "nondeterministic" (version 2: "varies"); capture/replay still reads
// bundles of versions 1 and 2.
inline constexpr const char* k_bundle_schema = "kdet.capture.bundle/3";
inline constexpr const char* k_capture_schema = "kdet.capture/3";

// A bundle's bundle.json (schema k_bundle_schema).
nlohmann::json bundle_json(const Bundle& b);

// The exit status of `kdet capture` (README, "Exit status"): 3 when the pipeline failed
// (exited non-zero or was killed; --finish did not see it) or no compile was captured,
// even if a bundle varied (a broken build is what a CI job must learn first); else 1 when
// a bundle varied; else 0. An interrupt (130) is the caller's.
int capture_exit_code(const CaptureResult& r);

// The --json document (schema k_capture_schema).
nlohmann::json capture_json(const CaptureResult& r);
// The same with its compiles and bundles left empty.
nlohmann::json capture_json_head(const CaptureResult& r);
// Hands the text of capture_json(r) (json_text) and a newline to `put`, piece by piece (up to
// 64 KiB each), made a compile and a bundle at a time: a capture of 10^5 compiles never holds
// the document, as a JSON value or as text. False as soon as `put` returns false.
bool write_capture_json(const CaptureResult& r, const std::function<bool(std::string_view)>& put);
// The text of capture_json(r) (json_text), without the newline (for tests and small captures).
std::string capture_json_text(const CaptureResult& r);

// The closing summary for the terminal (ends with a newline).
std::string capture_summary(const CaptureResult& r);

} // namespace kdet::capture
