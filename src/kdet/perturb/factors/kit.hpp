//===- perturb/factors/kit.hpp - what a factor's file builds its row with ----===//
//
// Shared by the files of perturb/factors/ only: seeded choices, random names, and the row of
// an environment-like (level) factor.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/perturb/registry.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kdet::perturb::kit {

// An independent seeded choice of a run: each factor has salts of its own.
uint64_t pick(uint64_t run_seed, uint64_t salt);

// `len` characters of [a-z0-9] from `r`.
std::string random_name(uint64_t r, size_t len);

// Appends `vars` to `env`.
void add_env(std::vector<std::string>& env, std::vector<std::string> vars);

// The row of a level factor: its spellings of inherit, fixed and vary (nullptr: not offered),
// the level a Setting starts at and the level a plain compile sees. set and get go through
// Setting::levels; its manifest key is its name.
FactorInfo level_row(const std::string& name, const std::string& help, const std::string& noun,
                     Regime regime, std::array<const char*, 3> levels, Level start, Level natural);

} // namespace kdet::perturb::kit

namespace kdet::perturb {

// One per line of factors.def, each defined in its own file.
#define KDET_FACTOR(NAME) const FactorInfo& factor_##NAME();
#include "kdet/perturb/factors/factors.def"

} // namespace kdet::perturb
