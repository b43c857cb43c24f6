//===- perturb/factors/hashseed.cpp - Python's hash seed (PYTHONHASHSEED) ----===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/util/hash.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

namespace {

// A PYTHONHASHSEED value (1 to 4294967295; 0 would turn hashing's randomisation off).
uint64_t python_hash_seed(uint64_t seed) {
  return 1 + mix_seed(seed, 16) % 4294967295ULL;
}

} // namespace

const FactorInfo& factor_hashseed() {
  static const FactorInfo f = [] {
    // Read once, as an interpreter starts: it acts across processes only.
    FactorInfo r = kit::level_row(
        "hashseed",
        "Python stages (--py): random (Python's own: a new seed per interpreter, or "
        "PYTHONHASHSEED as inherited), fixed (PYTHONHASHSEED=0), or vary (a seeded "
        "PYTHONHASHSEED per fresh worker): the order of str-keyed dicts and sets in a Python "
        "frontend follows it",
        "Python's hash seed (PYTHONHASHSEED)", Regime::across, {"random", "fixed", "vary"},
        Level::inherit, Level::inherit);
    r.library = false;
    r.exec = false;
    r.json_when_set = true;
    // A worker that lives on keeps the seed it started with; fresh ones get their run's.
    r.launch = [](const Setting& s, const Context&, Launch& l) {
      const Level level = level_of(s, "hashseed");
      if (level != Level::inherit)
        l.env.push_back(
            fmt::format("PYTHONHASHSEED={}", level == Level::fixed ? 0 : python_hash_seed(s.seed)));
    };
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "hashseed") == Level::vary)
        p.host.env.push_back(fmt::format("PYTHONHASHSEED={}", python_hash_seed(at.seed)));
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
