//===- diff/diff.hpp - format-aware comparison of two compiler outputs -----===//
//
// `kdet diff` and `kdet run` both call compare(): it detects the format
// (PTX, CUDA ELF cubin, other text, other binary), compares the two inputs
// in the way that names the real change (register renumbering, instruction
// order, .reg counts, constants, .nv.info attributes, ...) and returns a
// Report that the renderers turn into text, JSON (schema "kdet.diff/1")
// or an HTML fragment.
//
// The exact classification rules are written at the top of ptx_compare.cpp
// and cubin_compare.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/names.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff {

enum class Format { ptx, cubin, text, binary };

// Detects the format from content: PTX (".version" and ".target" directives),
// cubin (ELF with e_machine EM_CUDA), other text (no NUL, mostly printable), or binary.
Format detect_format(std::string_view data);

// "ptx", "cubin", "text", "binary".
const char* to_string(Format format);

// Parses "ptx", "cubin", "text", "binary"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

// What kind of difference one function, kernel or section has, least severe first.
enum class Change {
  identical,  // byte-for-byte the same
  trivia,     // differs only in comments or whitespace
  metadata,   // cubin: only debug/note sections differ
  renamed,    // same after canonical renaming of registers and labels
  reordered,  // same instructions in another order (`moved` says how many)
  reg_decls,  // PTX .reg declarations differ, code otherwise the same up to order
  attributes, // cubin: .nv.info attributes / register count / stack / shared memory / constants,
              // .text same
  code,       // instructions or immediates differ
  removed,    // present only in A
  added,      // present only in B
};

// "identical", "trivia", "metadata", "renamed", "reordered", "reg_decls", "attributes",
// "code", "removed", "added" (the JSON spelling).
const char* to_string(Change change);

// Ordering used for the overall class: the most severe entry wins.
int severity(Change change);

// One line of a diff hunk, in the files' own text (or, on request, in canonical names). Line
// numbers are 1-based original line numbers; 0 = not on that side.
struct DiffLine {
  char op = ' ';      // ' ' context, '-' only in A, '+' only in B
  std::string text;   // A's text for ' ' and '-', B's for '+'
  std::string text_b; // ' ': B's own text when it differs from A's (the same statement up to
                      // register and label renaming); "" when the two read the same
  size_t line_a = 0;
  size_t line_b = 0;
};

// A run of changed lines with context, like one @@ block of a unified diff.
struct Hunk {
  size_t start_a = 0, count_a = 0; // 1-based first line and count in A
  size_t start_b = 0, count_b = 0;
  std::vector<DiffLine> lines;
};

// A named value that differs (cubin attribute, .reg declaration, section size, ...).
struct ValueChange {
  std::string name; // "register count", ".reg .b64 %rd", "EIATTR_MAX_STACK_SIZE"
  std::string a;    // value in A ("" = absent)
  std::string b;
};

// A byte range that differs between two binaries (offsets into A and B coincide).
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// One compared unit: a PTX function, the PTX module-level part, a cubin kernel or device
// function, the cubin's module-level sections, or its debug/note sections.
struct Entry {
  std::string name; // "saxpy", "(module)", "(debug and notes)"
  std::string kind; // PTX "entry", "func", "module"; cubin "kernel", "function" (a device
                    // function with a .text of its own), "sections", "metadata"
  Change change = Change::identical;
  std::vector<std::string> aspects; // what differs, machine-readable: "order", "names",
                                    // "reg_decls", "code", "immediates", "signature", "text",
                                    // "register_count", "stack", "shared_memory", "constants",
                                    // "attributes", "symbol", "sections"
  size_t count_a = 0, count_b = 0;  // instructions (PTX statements, SASS instructions or words)
  size_t moved = 0;                 // instructions not on a longest common subsequence
  std::vector<ValueChange> values;  // named values that differ
  std::vector<std::string> notes;   // human-readable facts ("3 of 120 instructions moved")
  std::vector<Hunk> hunks;          // smallest diff of canonical forms, in the files' own text
                                    // (or canonical, on request) and original line numbers
};

// The result of compare().
struct Report {
  Format format = Format::binary;
  Change overall = Change::identical;
  uint64_t size_a = 0, size_b = 0;
  std::vector<Entry> entries;     // PTX functions / cubin kernels, in A's order then B-only ones
  std::vector<std::string> notes; // report-wide facts ("SASS compared as 16-byte instruction words
                                  // (nvdisasm not found)")
  std::vector<Hunk> hunks;        // text format: the unified diff
  std::vector<ByteRange> byte_ranges; // binary format (and cubin fallback): differing ranges
  uint64_t bytes_differing = 0;       // binary: total bytes in byte_ranges
  bool approximate = false;         // a diff hit its size cap; hunks and counts may not be minimal
  bool summary_only = false;        // inputs past the size limit: compared by hash and size only
  bool ordering_only = false;       // the same lines (PTX: statements, up to canonical renaming) in
                                    // another order, and nothing else but renaming or comments
  bool functions_reordered = false; // PTX: functions common to both in another order
};

// Inputs larger than this (either side) get a summary by hash and size rather
// than a detailed comparison, whose memory grows with the input (kdet diff
// --max-size, and kdet run's per-variant differences).
constexpr uint64_t k_max_detailed_size = 64ULL << 20;

// The Report for inputs too large to compare in detail: identical or not by
// content hash, with both sizes and a note saying why there is no more.
Report summary_report(Format format, uint64_t size_a, uint64_t size_b, bool same, uint64_t limit);

// "differ (64.0 MiB vs 65.2 MiB; too large for a detailed comparison)".
std::string size_only_summary(uint64_t size_a, uint64_t size_b);

// How cubins' SASS is compared: by canonical nvdisasm listings when `nvdisasm` names the
// program, else as 16-byte instruction words, and `why_not` says why (for the report's note).
struct SassOptions {
  std::string nvdisasm;
  std::string why_not;
  std::chrono::milliseconds timeout{60000}; // per nvdisasm run; past it, the words are compared
};

// Finds nvdisasm. `requested`: a path, "none" (do not use it), or "" (look: $KDET_NVDISASM, in
// the same forms, then PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, the build's CUDA home's bin,
// /usr/local/cuda/bin). Throws kdet::Error naming `what` ("--nvdisasm") or KDET_NVDISASM when
// a path given is not an executable file; not finding one is not an error (why_not says so).
SassOptions find_sass_options(const std::string& requested, const std::string& what);

// What compare() uses unless told: find_sass_options("") once per process; a bad
// $KDET_NVDISASM is reported in why_not instead of thrown.
const SassOptions& default_sass_options();

// Options of compare().
struct CompareOptions {
  std::optional<Format> force;     // read both inputs as this format instead of detecting it
  std::optional<SassOptions> sass; // nullopt: default_sass_options()
  bool canonical_hunks = false;    // hunks in canonical names (registers and labels renamed by
                                   // first use, B's mapped to A's) instead of the files' own text
};

// Compares a with b. `force` overrides detection (both inputs are read as that
// format); throws kdet::Error when a forced format cannot be read from an input.
Report compare(std::string_view a, std::string_view b, std::optional<Format> force = std::nullopt);

// The same, with every option; a failing nvdisasm is a note of the report, never an exception.
Report compare(std::string_view a, std::string_view b, const CompareOptions& options);

// True when the inputs were byte-for-byte the same.
bool identical(const Report& report);

// One short phrase: "identical", "same after register renaming", "ordering differences only:
// differ by instruction order in 1 of 4 functions", "register count changed in 1 of 2 kernels".
std::string summary_line(const Report& report);

// Versioned JSON ("schema": "kdet.diff/1").
nlohmann::json to_json(const Report& report);

struct ImpactReport; // impact.hpp

// kdet diff's document for one pair: to_json(report) with the two sides' names ("a", "b") and,
// when given, how far two cubins' difference reaches ("impact").
nlohmann::json to_json(const Report& report, const std::string& name_a, const std::string& name_b,
                       const ImpactReport* impact);

// Human-readable report; `color` adds ANSI colours. Names label the two sides. An entry name
// (a kernel's) longer than `name_width` is cut as display_name cuts it; 0: in full.
std::string to_text(const Report& report, bool color, const std::string& name_a,
                    const std::string& name_b, size_t name_width = k_name_width);

// A self-contained, escaped HTML fragment (no <html>): a <div class="kdet-diff"> with
// one class per Change kind ("kdet-diff-reordered", ...) for the reports to style.
std::string to_html(const Report& report);

} // namespace kdet::diff
