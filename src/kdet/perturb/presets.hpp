#pragma once
// What "fixed" means for the factors that act through a compile's environment: one answer for
// `kdet run` and explain (a fixed level, perturb/factors.cpp), `kdet exec --deterministic`
// (cli/exec.cpp) and cache compiles, so that a build launched with kdet exec sees what kdet run
// called deterministic.
#include <string>
#include <string_view>
#include <vector>

namespace kdet::perturb {

// 2020-01-01 00:00:00 UTC in seconds: the instant of time=fixed and of mtime=fixed (files' times,
// SOURCE_DATE_EPOCH).
inline constexpr long long k_fixed_epoch = 1577836800;

// The variables a fixed level of `factor` sets (NAME=VALUE), for locale, tz, threadvars, home and
// time (libfaketime's settings, without its LD_PRELOAD); empty for a factor that does not act
// through the environment.
std::vector<std::string> fixed_environment(std::string_view factor);

} // namespace kdet::perturb
