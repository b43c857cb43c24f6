//===- engine/compiler_log.hpp - the compiler's own words about a failure -----===//
//
// A failing compile is reported with kdet's description ("ptxas exited 255") and the
// compiler's own words, its log. Every report that names why a compile failed (run's summary,
// scan's failure groups, JUnit, HTML) takes the line from here, so they all quote the same one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace kdet::engine {

// The most a stored log keeps of a failing compile's log (scan database, reports).
inline constexpr size_t k_max_failure_log = 4096;

// The compiler's first line that says what went wrong: the first line of `log` naming an error
// or fatal condition ("error", "fatal", case-insensitive), else its first non-blank line; trimmed,
// at most 300 bytes, valid UTF-8. "" when the log has no visible text.
std::string first_error_line(std::string_view log);

// `line` with what differs between two inputs failing the same way made generic: absolute paths
// (and the file names ptxas and nvcc print before ", line") become <file>, "line 12" becomes
// "line N", and runs of blanks one space. Two failures with the same generic line are the same.
std::string generic_failure(std::string_view line);

} // namespace kdet::engine
