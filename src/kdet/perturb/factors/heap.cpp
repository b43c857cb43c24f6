//===- perturb/factors/heap.cpp - the heap's layout: churn or the chaos allocator ===//
#include "kdet/perturb/factors/kit.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_heap() {
  static const FactorInfo f = [] {
    FactorInfo r;
    r.name = "heap";
    r.help = "none; churn: before each run malloc blocks of seeded random sizes and free every "
             "other one; chaos: the libkdet_chaos.so allocator moves every block by a seeded "
             "random amount";
    r.manifest_key = "heap";
    r.fixed = "none";
    r.varied = "churn";
    r.natural = "none";
    r.noun = "the heap layout";
    r.regime = Regime::inside;
    r.moves_addresses = true;
    r.set = [](Setting& s, const std::string& v, const std::string& w) {
      s.heap = parse_heap(v, w);
    };
    r.get = [](const Setting& s) { return std::string(to_string(s.heap)); };
    r.varies = [](const Setting& s) { return s.heap != HeapMode::none; };
    r.check = [](const Setting& s, Context& ctx) -> std::string {
      if (s.heap != HeapMode::chaos) return {};
      if (ctx.chaos_lib.empty())
        return "--heap chaos: libkdet_chaos.so was not found beside the kdet binary or in its "
               "installed lib/kdet folder (build the kdet_chaos target)";
      if (std::string why = chaos_unusable(ctx.exec_backend); !why.empty())
        return fmt::format("--heap chaos: {}; use --heap churn or none", why);
      return {};
    };
    r.trial = [](const Context& ctx) {
      // chaos moves every block (and reaches exec compilers); churn only the worker's heap.
      // A sanitized build of kdet cannot take a second allocator into its workers.
      Trial t;
      if (!ctx.chaos_lib.empty() && chaos_unusable(ctx.exec_backend).empty())
        t.varied = "chaos";
      else if (ctx.exec_backend)
        t.applies = false;
      return t;
    };
    // Library workers: the allocator is preloaded once and reseeded per run.
    r.launch = [](const Setting& s, const Context& ctx, Launch& l) {
      if (s.heap != HeapMode::chaos || ctx.exec_backend) return;
      l.preload.push_back(ctx.chaos_lib);
      l.env.push_back(fmt::format("KDET_CHAOS_SEED={:#x}", s.seed));
    };
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (s.heap == HeapMode::churn) {
        p.heap.churn = true;
        p.heap.churn_seed = at.seed;
      } else if (s.heap == HeapMode::chaos && ctx.exec_backend) {
        p.preload.push_back(ctx.chaos_lib);
        p.host.env.push_back(fmt::format("KDET_CHAOS_SEED={:#x}", at.seed));
      } else if (s.heap == HeapMode::chaos) {
        p.heap.chaos_reseed = true;
        p.heap.chaos_seed = at.seed;
      }
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
