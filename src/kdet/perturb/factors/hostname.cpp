//===- perturb/factors/hostname.cpp - the host and domain name ---------------===//
#include "kdet/perturb/factors/kit.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_hostname() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row("hostname",
                                  "inherit, fixed (kdet-host, domain kdet-domain), or vary "
                                  "(random names each run), in a UTS namespace of the worker's "
                                  "own (root only)",
                                  "the host and domain name", Regime::both,
                                  {"inherit", "fixed", "vary"}, Level::inherit, Level::inherit);
    r.json_when_set = true;
    r.check = [](const Setting& s, Context& ctx) -> std::string {
      if (level_of(s, "hostname") == Level::inherit) return {};
      if (std::string why = ask(ctx.probes.private_uts); !why.empty())
        return fmt::format("--hostname {}: {}", level_name("hostname", level_of(s, "hostname")),
                           why);
      return {};
    };
    r.trial = [](const Context& ctx) {
      Trial t;
      t.untestable = ask(ctx.probes.private_uts);
      return t;
    };
    r.launch = [](const Setting& s, const Context&, Launch& l) {
      l.private_uts = level_of(s, "hostname") != Level::inherit;
    };
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "hostname") == Level::fixed) {
        p.host.hostname = "kdet-host";
        p.host.domainname = "kdet-domain";
      } else if (level_of(s, "hostname") == Level::vary) {
        p.host.hostname = "h" + kit::random_name(kit::pick(at.seed, 14), 7);
        p.host.domainname = "d" + kit::random_name(kit::pick(at.seed, 15), 7);
      }
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
