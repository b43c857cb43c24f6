//===- perturb/factors/threadvars.cpp - thread-count variables --------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/perturb/presets.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <thread>

namespace kdet::perturb {

const FactorInfo& factor_threadvars() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "threadvars",
        "inherit, fixed (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, ... = 1), or vary (random "
        "1..cores)",
        "thread-count variables", Regime::both, {"inherit", "fixed", "vary"}, Level::inherit,
        Level::inherit);
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "threadvars") == Level::fixed) {
        kit::add_env(p.host.env, fixed_environment("threadvars"));
      } else if (level_of(s, "threadvars") == Level::vary) {
        unsigned hw = std::max(2u, ctx.hardware_threads > 0 ? ctx.hardware_threads
                                                            : std::thread::hardware_concurrency());
        const auto& vars = thread_count_variables();
        for (size_t i = 0; i < vars.size(); ++i) {
          unsigned n = 1 + static_cast<unsigned>(kit::pick(at.seed, 20 + i) % hw);
          p.host.env.push_back(fmt::format("{}={}", vars[i], n));
        }
      }
    };
    r.exec_help = "OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, MKL_NUM_THREADS, ... = 1";
    r.exec_default = true;
    r.exec_fix = [](CommandFix& c) { kit::add_env(c.view.env, fixed_environment("threadvars")); };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
