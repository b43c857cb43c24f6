//===- perturb/factors/locale.cpp - LC_ALL and LANG -------------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"

#include <iterator>

namespace kdet::perturb {

const FactorInfo& factor_locale() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "locale", "inherit, fixed (LC_ALL=C), or vary (a random installed locale each run)",
        "the locale", Regime::both, {"inherit", "fixed", "vary"}, Level::inherit, Level::inherit);
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      static const char* const k_locales[] = {"C", "C.UTF-8", "POSIX"};
      if (level_of(s, "locale") == Level::fixed) {
        kit::add_env(p.host.env, fixed_environment("locale"));
      } else if (level_of(s, "locale") == Level::vary) {
        const char* l = k_locales[kit::pick(at.seed, 7) % std::size(k_locales)];
        p.host.env.push_back(std::string("LC_ALL=") + l);
        p.host.env.push_back(std::string("LANG=") + l);
      }
    };
    r.exec_help = "LC_ALL=C LANG=C";
    r.exec_default = true;
    r.exec_fix = [](CommandFix& c) { kit::add_env(c.view.env, fixed_environment("locale")); };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
