//===- perturb/factors/time.cpp - the clock, through libfaketime -------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

namespace {

// libfaketime's settings besides FAKETIME (perturb/presets.hpp's fixed ones). libfaketime also
// shifts the times stat() reports by the clock's offset from the real start: under time=fixed a
// file's time then moved with each start (a fixed level that varies), and while kdet sets the
// files' times itself (mtime) the clock and the files are two factors. Only time=vary with
// mtime=real keeps the shift (time acts through files).
void add_settings(const Setting& s, std::vector<std::string>& env) {
  for (auto& v : fixed_environment("time")) {
    if (v.rfind("FAKETIME=", 0) == 0) continue;
    if (v.rfind("NO_FAKE_STAT=", 0) == 0 && level_of(s, "mtime") == Level::inherit &&
        level_of(s, "time") != Level::fixed)
      continue;
    env.push_back(std::move(v));
  }
}

std::string fixed_time() {
  return fmt::format("@{}", k_fixed_epoch); // read as seconds (FAKETIME_FMT=%s)
}

} // namespace

const FactorInfo& factor_time() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "time",
        "real, fixed (libfaketime at 2020-01-01), or vary (libfaketime, a random offset each run)",
        "the time", Regime::both, {"real", "fixed", "vary"}, Level::inherit, Level::inherit);
    r.check = [](const Setting& s, Context& ctx) -> std::string {
      if (level_of(s, "time") != Level::inherit && ctx.faketime_lib.empty())
        return "--time fixed|vary needs libfaketime (Debian package faketime), which is not "
               "installed";
      return {};
    };
    r.trial = [](const Context& ctx) {
      Trial t;
      if (ctx.faketime_lib.empty()) t.untestable = "libfaketime is not installed";
      return t;
    };
    // libfaketime also shifts the times stat() reports (add_settings above).
    r.through_factor = "mtime";
    r.through_words = "time may act through the files' modification times (libfaketime shifts "
                      "the times stat() reports, and mtime, which holds them apart, was not "
                      "tested)";
    // Library workers: preloaded once; each run then sets its own FAKETIME (read per call).
    r.launch = [](const Setting& s, const Context& ctx, Launch& l) {
      if (level_of(s, "time") == Level::inherit || ctx.exec_backend) return;
      l.preload.push_back(ctx.faketime_lib);
      l.env.push_back("FAKETIME=" + fixed_time());
      add_settings(s, l.env);
    };
    // Fixed: one instant for every run. Vary: the real time shifted by a seeded offset of up to
    // ten years either way (libfaketime's "+N"/"-N" seconds form).
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      const Level level = level_of(s, "time");
      if (level == Level::inherit) return;
      std::string t = fixed_time();
      if (level == Level::vary) {
        long long offset = static_cast<long long>(kit::pick(at.seed, 6) % (20ULL * 365 * 86400)) -
                           10LL * 365 * 86400;
        t = fmt::format("{:+d}", offset);
      }
      p.host.env.push_back("FAKETIME=" + t);
      if (!ctx.exec_backend) return;
      add_settings(s, p.host.env);
      p.preload.push_back(ctx.faketime_lib);
    };
    r.exec_help = "libfaketime at --time (and SOURCE_DATE_EPOCH); some compilers hang under it";
    // The fixed instant, or --time in libfaketime's own "@YYYY-MM-DD hh:mm:ss" form, read in the
    // command's time zone; one clock for the command's whole process tree.
    r.exec_fix = [](CommandFix& c) {
      Context ctx;
      find_preload_libraries(ctx);
      if (ctx.faketime_lib.empty())
        throw Error("--fix time needs libfaketime (Debian package faketime), which is not "
                    "installed");
      c.preload.push_back(ctx.faketime_lib);
      for (auto& v : fixed_environment("time"))
        if (c.time.empty() || (v.rfind("FAKETIME=", 0) != 0 && v.rfind("FAKETIME_FMT=", 0) != 0))
          c.view.env.push_back(std::move(v));
      if (!c.time.empty()) c.view.env.push_back("FAKETIME=@" + c.time);
      c.view.env.push_back(fmt::format("SOURCE_DATE_EPOCH={}", k_fixed_epoch));
      c.shared_clock = true;
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
