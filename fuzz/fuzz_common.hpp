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
inline void compare_all(std::string_view a, std::string_view b, diff::Format format) {
  try {
    render_all(diff::compare(a, b, format));
  } catch (const Error&) {
  }
  render_all(diff::compare(a, b)); // auto-detection must never throw
}

} // namespace kdet::fuzz
