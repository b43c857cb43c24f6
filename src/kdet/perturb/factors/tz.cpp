//===- perturb/factors/tz.cpp - the timezone (TZ) ---------------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"

#include <iterator>

namespace kdet::perturb {

namespace {

// POSIX TZ strings: they need no tzdata, so every machine reads them the same way. They differ in
// offset and in daylight-saving rules, never in length or in names: glibc's tzset (libfaketime
// calls it under time=fixed) copies the string and the names onto the heap, so zones of different
// lengths would move a library compiler's heap blocks and seem to act on a compiler whose output
// follows heap addresses. At the instant 1e9 each gives another local hour.
const char* const k_timezones[] = {"KDA+00:00KDB,M10.1.0,M11.5.0", "KDA+05:00KDB,M11.1.0,M12.5.0",
                                   "KDA-09:00KDB,M10.5.0,M12.1.0", "KDA-05:30KDB,M10.1.0,M11.5.0",
                                   "KDA-12:00KDB,M11.1.0,M12.5.0", "KDA+03:30KDB,M10.5.0,M12.1.0"};

} // namespace

const FactorInfo& factor_tz() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "tz", "inherit, fixed (TZ=UTC0), or vary (a random POSIX TZ each run, no tzdata needed)",
        "the timezone (TZ)", Regime::both, {"inherit", "fixed", "vary"}, Level::inherit,
        Level::inherit);
    r.json_when_set = true;
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "tz") == Level::fixed)
        kit::add_env(p.host.env, fixed_environment("tz"));
      else if (level_of(s, "tz") == Level::vary)
        p.host.env.push_back(std::string("TZ=") +
                             k_timezones[kit::pick(at.seed, 11) % std::size(k_timezones)]);
    };
    r.exec_help = "TZ=UTC0";
    r.exec_default = true;
    r.exec_fix = [](CommandFix& c) { kit::add_env(c.view.env, fixed_environment("tz")); };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
