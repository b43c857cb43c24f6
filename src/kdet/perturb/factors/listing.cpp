//===- perturb/factors/listing.cpp - the order of a folder's entries --------===//
//
// The order readdir gives a folder's entries (reprotest varies it with disorderfs): sorted by
// name, or a seeded shuffle per folder each run, by libkdet_listing.so (perturb/chaos/listing.c)
// preloaded into the compiler (library backends: into the worker; its variable set per run).
//
//===----------------------------------------------------------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

namespace {

const std::string& listing_lib() {
  static const std::string lib = find_kdet_library("libkdet_listing.so");
  return lib;
}

bool set(const Setting& s) {
  return level_of(s, "listing") != Level::inherit;
}

} // namespace

const FactorInfo& factor_listing() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "listing",
        "inherit (the file system's order), fixed (sorted by name), or vary (a seeded shuffle "
        "per folder each run): the order readdir gives a folder's entries, through "
        "libkdet_listing.so",
        "the order of a folder's entries (readdir)", Regime::both, {"inherit", "fixed", "vary"},
        Level::inherit, Level::inherit);
    r.json_when_set = true;
    r.check = [](const Setting& s, Context&) -> std::string {
      if (set(s) && listing_lib().empty())
        return "--listing fixed|vary: libkdet_listing.so was not found beside the kdet binary "
               "or in its installed lib/kdet folder (build the kdet_listing target)";
      return {};
    };
    r.trial = [](const Context&) {
      Trial t;
      if (listing_lib().empty()) t.untestable = "libkdet_listing.so was not found";
      return t;
    };
    r.launch = [](const Setting& s, const Context& ctx, Launch& l) {
      if (set(s) && !ctx.exec_backend) l.preload.push_back(listing_lib());
    };
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (!set(s)) return;
      if (level_of(s, "listing") == Level::fixed)
        for (auto& v : fixed_environment("listing"))
          p.host.env.push_back(std::move(v));
      else
        p.host.env.push_back(fmt::format("KDET_LISTING=shuffle:{:#x}", kit::pick(at.seed, 17)));
      if (ctx.exec_backend) p.preload.push_back(listing_lib());
    };
    r.exec_help = "libkdet_listing.so: a folder's entries listed sorted by name";
    r.exec_fix = [](CommandFix& c) {
      if (listing_lib().empty())
        throw Error("--fix listing needs libkdet_listing.so, which was not found beside the kdet "
                    "binary or in its installed lib/kdet folder (build the kdet_listing target)");
      c.preload.push_back(listing_lib());
      kit::add_env(c.view.env, fixed_environment("listing"));
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
