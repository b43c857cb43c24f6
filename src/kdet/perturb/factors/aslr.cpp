//===- perturb/factors/aslr.cpp - address-space layout randomization --------===//
#include "kdet/perturb/factors/kit.hpp"

namespace kdet::perturb {

const FactorInfo& factor_aslr() {
  static const FactorInfo f = [] {
    FactorInfo r;
    r.name = "aslr";
    r.help = "on, or off: workers run with personality(ADDR_NO_RANDOMIZE)";
    r.manifest_key = "aslr";
    r.fixed = "off";
    r.varied = "on";
    r.natural = "on";
    r.noun = "ASLR";
    r.regime = Regime::across;
    r.moves_addresses = true;
    r.set = [](Setting& s, const std::string& v, const std::string& w) {
      s.aslr = parse_aslr(v, w);
    };
    r.get = [](const Setting& s) { return std::string(s.aslr ? "on" : "off"); };
    // An exec compiler is the worker's child and inherits its personality.
    r.launch = [](const Setting& s, const Context&, Launch& l) { l.disable_aslr = !s.aslr; };
    r.exec_help = "personality(ADDR_NO_RANDOMIZE), inherited by every child";
    r.exec_default = true;
    r.exec_fix = [](CommandFix& c) { c.disable_aslr = true; };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
