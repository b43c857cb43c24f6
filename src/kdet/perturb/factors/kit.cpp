//===- perturb/factors/kit.cpp - what a factor's file builds its row with ----===//
#include "kdet/perturb/factors/kit.hpp"

#include "kdet/util/hash.hpp"

namespace kdet::perturb::kit {

uint64_t pick(uint64_t run_seed, uint64_t salt) {
  return mix_seed(run_seed, salt);
}

std::string random_name(uint64_t r, size_t len) {
  static constexpr char k_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (size_t i = 0; i < len; ++i) {
    s += k_chars[r % 36];
    r = r / 36 + 0x9e3779b97f4a7c15ULL * (i + 1);
  }
  return s;
}

void add_env(std::vector<std::string>& env, std::vector<std::string> vars) {
  for (auto& v : vars)
    env.push_back(std::move(v));
}

FactorInfo level_row(const std::string& name, const std::string& help, const std::string& noun,
                     Regime regime, std::array<const char*, 3> levels, Level start, Level natural) {
  FactorInfo f;
  f.name = name;
  f.help = help;
  f.manifest_key = name;
  f.levels = levels;
  f.start = start;
  f.fixed = levels[static_cast<size_t>(Level::fixed)];
  f.varied = levels[static_cast<size_t>(Level::vary)];
  f.natural = levels[static_cast<size_t>(natural)];
  f.noun = noun;
  f.regime = regime;
  f.set = [name](Setting& s, const std::string& v, const std::string& where) {
    level_of(s, name) = parse_level(name, v, where);
  };
  f.get = [name](const Setting& s) { return level_name(name, level_of(s, name)); };
  f.varies = [name](const Setting& s) { return level_of(s, name) == Level::vary; };
  return f;
}

} // namespace kdet::perturb::kit
