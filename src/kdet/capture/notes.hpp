//===- capture/notes.hpp - what the preload could not record, and what ran on -===//
//
// libkdet_capture.so writes a note to RAW/notes/PID.note for every compile,
// record line or blob it could not write, for an entry that may have gone to
// a file the pipeline put in place of a capture file, and for every program a
// process started without the preload in its environment (docs/CAPTURE.md).
// The pipeline's guard reports the processes it left that were still running
// when kdet stopped waiting (util/exec run_lingering). This reads the notes and
// renders both for the summary and the JSON.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/records.hpp"
#include "kdet/util/exec.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kdet::capture {

// One note: "kdet-note 1 KIND PID PPID xHEX" in RAW/notes/*.note, or a count from a
// RAW/notes/*.lost page (losses the process could not even note: no descriptor free).
struct Note {
  std::string kind; // lost, lost-line, lost-blob, stray, exec-uncaptured, spawn-uncaptured
  long pid = 0, ppid = 0;
  std::string text; // what was lost and why, or the program started without capture
  size_t count = 1; // events it stands for (a .lost page counts many)
};

// Every note under `raw`/notes (none when the folder is absent); a file that
// cannot be read, or is not a regular file, is named in `problems`.
std::vector<Note> read_notes(const std::string& raw, std::vector<std::string>& problems);

// Adds to `problems` each bundle input or output whose bytes are in no blob pack
// (a pack removed, unreadable or cut short), counted per bundle.
class BlobStore;
void note_missing_blobs(const BlobStore& blobs, const std::vector<Bundle>& bundles,
                        std::vector<std::string>& problems);

// How the pipeline's descendants were waited for (kdet capture --wait-children).
struct ChildrenWait {
  bool seen = false;  // false for --finish: nobody waited
  double limit_s = 0; // --wait-children
  GuardReport report;
};

// Summary lines (each "  WORD       text\n"): compiles lost, programs started
// without capture, processes waited for and those killed still running.
std::string notes_summary(const std::vector<Note>& notes, const ChildrenWait& children);

// JSON `notes` (one object per kind, process and text, with a count) and `children`.
nlohmann::json notes_json(const std::vector<Note>& notes);
nlohmann::json children_json(const ChildrenWait& children);

} // namespace kdet::capture
