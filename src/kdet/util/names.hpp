//===- util/names.hpp - kernel names shortened for one line --------------------===//
//
// numba's and templates' mangled names run to thousands of characters. Every report that names
// a kernel (capture --builds, capture compare, scan, compare, run's replay line) shortens it
// here, the same way everywhere, and keeps the full name in its JSON (and behind a flag or a
// tooltip).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kdet {

// Names on a line are cut past this many characters unless a report is asked for full names.
inline constexpr size_t k_name_width = 72;

// A C++ symbol (_Z...) demangled; any other name, or one that does not demangle, as it is.
std::string demangle(const std::string& name);

// `name` demangled (Itanium C++ ABI) when that is shorter, else `name`.
std::string demangle_if_shorter(const std::string& name);

// A name for one line: demangle_if_shorter, and past `width` characters its first part,
// "...", and 8 hex digits of the full name's hash, so that two long names that differ
// late stay apart and the same name is always cut the same way. `width` 0: never cut.
std::string display_name(const std::string& name, size_t width = k_name_width);

// Several kernels' names on one line: the first one's display_name, then " +N more"; "" when
// there are none.
std::string display_names(const std::vector<std::string>& names, size_t width = k_name_width);

} // namespace kdet
