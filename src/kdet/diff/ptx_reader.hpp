//===- diff/ptx_reader.hpp - splits PTX into module parts and functions ----===//
//
// Internal to diff/. A tolerant reader: it never throws on malformed text
// (fuzzed by fuzz/ptx_reader_fuzz.cpp); what it cannot place stays in the
// module-level part. Statements are whitespace-normalised with comments
// removed, and keep the 1-based line number where they start.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff::detail {

// One PTX statement: an instruction, directive, label, or a lone brace.
struct PtxStatement {
  std::string text; // comments removed, whitespace runs collapsed to one space
  size_t line = 0;  // 1-based line where it starts
};

// One .entry or .func with a body.
struct PtxFunction {
  std::string name;
  std::string kind; // "entry" or "func"
  size_t first_line = 0, last_line = 0;
  std::vector<PtxStatement> header; // signature and performance directives, before '{'
  std::vector<PtxStatement> body;   // statements inside the outer braces
  std::string raw;                  // the exact source lines first_line..last_line
};

// A whole PTX module.
struct PtxModule {
  std::vector<PtxStatement> module; // statements outside function bodies (incl. prototypes)
  std::string module_raw;           // the exact source lines outside function bodies
  std::vector<PtxFunction> functions;
};

// True when `text` looks like PTX (has .version and .target directives near the top).
bool looks_like_ptx(std::string_view text);

// Splits PTX text into module-level statements and functions. Never throws.
PtxModule read_ptx(std::string_view text);

} // namespace kdet::diff::detail
