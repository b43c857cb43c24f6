//===- perturb/factors/home.cpp - HOME --------------------------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"

namespace kdet::perturb {

const FactorInfo& factor_home() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row("home",
                                  "inherit, fixed (HOME=/nonexistent/kdet-home), or vary (another "
                                  "nonexistent HOME each run, as reprotest does)",
                                  "HOME", Regime::both, {"inherit", "fixed", "vary"},
                                  Level::inherit, Level::inherit);
    r.json_when_set = true;
    // Never created, so a compile never writes into it (reprotest's /nonexistent/first-build).
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "home") == Level::fixed)
        kit::add_env(p.host.env, fixed_environment("home"));
      else if (level_of(s, "home") == Level::vary)
        p.host.env.push_back("HOME=/nonexistent/kdet-home-" +
                             kit::random_name(kit::pick(at.seed, 12), 8));
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
