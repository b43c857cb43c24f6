//===- perturb/factors/cpus.cpp - the CPUs a compile may run on (affinity) ---===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>

namespace kdet::perturb {

const FactorInfo& factor_cpus() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "cpus",
        "inherit, fixed (one usable CPU, each parallel slot its own), or vary (a random subset "
        "of the usable CPUs each run): the affinity mask nproc, OpenMP and "
        "thread pools size themselves from",
        "the CPUs it may run on (affinity)", Regime::both, {"inherit", "fixed", "vary"},
        Level::inherit, Level::inherit);
    r.json_when_set = true;
    r.trial = [](const Context& ctx) {
      Trial t;
      if (ctx.usable_cpus.size() < 2) t.untestable = "one usable CPU here: nothing to vary";
      return t;
    };
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      const Level level = level_of(s, "cpus");
      if (level == Level::inherit || ctx.usable_cpus.empty()) return;
      if (level == Level::fixed) {
        // One CPU in every run; slot k takes the k-th usable one, so that -j N slots do not all
        // queue on the first CPU (their probes then ran past the probe limit and seemed broken).
        p.host.cpus = {ctx.usable_cpus[static_cast<size_t>(at.slot) % ctx.usable_cpus.size()]};
        return;
      }
      // A seeded subset of 1..all the usable CPUs (a partial Fisher-Yates shuffle).
      std::vector<int> all = ctx.usable_cpus;
      uint64_t x = kit::pick(at.seed, 13);
      size_t n = 1 + x % all.size();
      for (size_t i = 0; i < n; ++i) {
        x = mix_seed(x, i);
        std::swap(all[i], all[i + x % (all.size() - i)]);
      }
      p.host.cpus.assign(all.begin(), all.begin() + static_cast<long>(n));
      std::sort(p.host.cpus.begin(), p.host.cpus.end());
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
