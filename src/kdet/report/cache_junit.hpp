//===- report/cache_junit.hpp - kdet cache report as JUnit XML -------------===//
#pragma once

#include "kdet/cache/maintain.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kdet::report {

// JUnit XML of `kdet cache report`: a failing test case per key that holds more than one
// variant (its variants and kdet diff's words for each), and one passing case for the other
// keys of the `all_keys` in the cache, or a skipped one when the cache holds no key.
std::string cache_report_to_junit(const std::vector<cache::MultiVariantKey>& keys, size_t all_keys);

} // namespace kdet::report
