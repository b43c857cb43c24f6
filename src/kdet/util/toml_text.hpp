//===- util/toml_text.hpp - TOML text to toml++, bounded first -----------------===//
//
// Every TOML file kdet reads (a scan manifest, a recipe for `kdet impact --run`) goes through
// parse_toml. toml++ refuses arrays and inline tables nested more than 256 deep, but builds a
// table for each part of a dotted key or [table] header with no bound, and then walks and frees
// that chain recursively: a key of 60,000 parts overflowed the stack (a segfault, no message).
// parse_toml first measures how deep the text nests and refuses more than k_toml_max_depth
// with FILE:LINE, as toml++'s own errors are.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <toml++/toml.h>

namespace kdet {

// Far beyond any real manifest or recipe (they nest a few deep), far below what the stack
// holds (tens of thousands).
inline constexpr size_t k_toml_max_depth = 512;

// The first place where a value of `text` lies more than `max_depth` deep: each part of a
// dotted key, each array and each inline table counts one, each part of a [table] header two
// (it may name an array of tables: an array and its table) (`a.b.c = 1`: 3, `[x.y]` then
// `z = [1]`: 5). line 0 when none does. Reads the text as toml++ does (strings,
// comments, line starts); for text that is not valid TOML it never counts less than toml++
// would have built before its error.
struct TomlDepth {
  int line = 0;
  size_t depth = 0;
};
TomlDepth toml_too_deep(std::string_view text, size_t max_depth = k_toml_max_depth);

// toml::parse after toml_too_deep: throws Error (exit 2) "PATH:LINE: not valid TOML: ..." or
// "PATH:LINE: ... nested N deep ...".
toml::table parse_toml(const std::string& text, const std::string& path);

} // namespace kdet
