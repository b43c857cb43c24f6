//===- perturb/factors/tmpdir.cpp - TMPDIR -----------------------------------===//
#include "kdet/perturb/factors/kit.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_tmpdir() {
  static const FactorInfo f = [] {
    FactorInfo r =
        kit::level_row("tmpdir", "fixed, or vary: a fresh random TMPDIR each run", "TMPDIR",
                       Regime::both, {nullptr, "fixed", "vary"}, Level::fixed, Level::fixed);
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "tmpdir") != Level::vary) return;
      std::string t = fmt::format("{}/t{}-{}", ctx.session_dir, at.index,
                                  kit::random_name(kit::pick(at.seed, 5), 8));
      p.make_dirs.push_back(t);
      p.host.env.push_back("TMPDIR=" + t);
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
