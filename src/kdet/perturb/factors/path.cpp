//===- perturb/factors/path.cpp - the input's folder and file name ----------===//
#include "kdet/perturb/factors/kit.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_path() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "path", "fixed, or vary: the input under a random folder and file name each run",
        "the input path", Regime::both, {nullptr, "fixed", "vary"}, Level::fixed, Level::fixed);
    r.python = false; // a Python stage gets the input's bytes, never its name
    r.run = [](const Setting& s, const Context& ctx, const RunSpot& at, RunPerturbation& p) {
      if (level_of(s, "path") != Level::vary) return;
      const std::string& base = p.input_name;
      auto dot = base.find_last_of('.');
      std::string ext = dot == std::string::npos ? "" : base.substr(dot);
      std::string dir = fmt::format("{}/p{}-{}", ctx.session_dir, at.index,
                                    kit::random_name(kit::pick(at.seed, 1), 6));
      p.input_name = kit::random_name(kit::pick(at.seed, 2), 4 + kit::pick(at.seed, 3) % 9) + ext;
      p.input_path = dir + "/" + p.input_name;
      p.make_dirs.push_back(dir);
      p.copy_input = ctx.exec_backend;
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
