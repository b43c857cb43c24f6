//===- cli/cache_stats.hpp - `kdet cache stats` ---------------------------------===//
#pragma once

#include "kdet/cli/output.hpp"

#include <string>

namespace kdet::cli {

// `kdet cache stats` on the cache at `dir` ("" = the default one): the text, or the JSON where
// `output` says; `zero` zeroes the counters instead. Returns the exit status (0).
int cache_stats_command(const std::string& dir, const OutputArgs& output, bool zero);

} // namespace kdet::cli
