//===- perturb/factors/umask.cpp - the file-creation mask -------------------===//
#include "kdet/perturb/factors/kit.hpp"

#include <iterator>

namespace kdet::perturb {

const FactorInfo& factor_umask() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "umask", "inherit, fixed (022), or vary (a random umask each run)", "the umask",
        Regime::both, {"inherit", "fixed", "vary"}, Level::inherit, Level::inherit);
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      static const unsigned k_umasks[] = {0022, 0002, 0027, 0077};
      if (level_of(s, "umask") == Level::fixed)
        p.host.umask = 0022;
      else if (level_of(s, "umask") == Level::vary)
        p.host.umask = static_cast<int>(k_umasks[kit::pick(at.seed, 8) % std::size(k_umasks)]);
    };
    r.exec_help = "022";
    r.exec_default = true;
    r.exec_fix = [](CommandFix& c) { c.view.umask = 0022; };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
