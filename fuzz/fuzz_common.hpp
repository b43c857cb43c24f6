//===- fuzz/fuzz_common.hpp - shared by the diff fuzz targets ---------------===//
#pragma once

#include "kdet/diff/diff.hpp"
#include "kdet/util/error.hpp"

#include <string>
#include <string_view>

namespace kdet::fuzz {

// Runs every renderer on a report, as `kdet diff` would (JSON with invalid UTF-8 replaced).
inline void render_all(const diff::Report& r) {
  (void)diff::summary_line(r);
  (void)diff::to_text(r, true, "a", "b");
  (void)diff::to_html(r);
  (void)diff::to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Compares a with b as `format` (and auto-detected); kdet::Error is an accepted outcome.
// nvdisasm is never run: a process per input would be the fuzzer's whole time
// (sass_reader_fuzz reads listings instead).
inline void compare_all(std::string_view a, std::string_view b, diff::Format format) {
  diff::CompareOptions options;
  options.sass = diff::find_sass_options("none", "--nvdisasm");
  options.force = format;
  try {
    render_all(diff::compare(a, b, options));
  } catch (const Error&) {
  }
  options.force.reset();
  render_all(diff::compare(a, b, options)); // auto-detection must never throw
}

} // namespace kdet::fuzz
