//===- perturb/factors/cwd.cpp - the compiler's working folder --------------===//
#include "kdet/perturb/factors/kit.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_cwd() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "cwd", "fixed, or vary: a fresh random working directory each run", "the working directory",
        Regime::both, {nullptr, "fixed", "vary"}, Level::fixed, Level::fixed);
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "cwd") == Level::vary) {
        p.host.cwd = fmt::format("{}/c{}-{}", ctx.session_dir, at.index,
                                 kit::random_name(kit::pick(at.seed, 4), 8));
        p.make_dirs.push_back(p.host.cwd);
      } else if (level_of(s, "cwd") == Level::fixed) {
        p.host.cwd = ctx.base_cwd;
      }
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
