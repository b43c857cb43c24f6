//===- perturb/factors/env_vary.cpp - variables the user declares to vary ----===//
#include "kdet/perturb/factors/kit.hpp"

namespace kdet::perturb {

const FactorInfo& factor_env_vary() {
  static const FactorInfo f = [] {
    FactorInfo r;
    r.name = "env-vary";
    r.help = "NAME=V1,V2,...: each run sets NAME to one of the values (repeatable)";
    r.manifest_key = "env_vary";
    r.noun = "declared environment variables";
    r.regime = Regime::both;
    r.set = [](Setting& s, const std::string& v, const std::string&) {
      s.env_vary.push_back(parse_env_vary(v));
    };
    r.get = [](const Setting& s) {
      std::string out;
      for (const auto& [k, vals] : s.env_vary) {
        out += (out.empty() ? "" : " ") + k + "=";
        for (size_t i = 0; i < vals.size(); ++i)
          out += (i ? "," : "") + vals[i];
      }
      return out;
    };
    r.varies = [](const Setting& s) { return !s.env_vary.empty(); };
    // explain makes one factor per declared variable (engine/explain_factors.cpp).
    r.trial = [](const Context&) {
      Trial t;
      t.applies = false;
      return t;
    };
    r.run = [](const Setting& s, const Context&, const RunSpot& at, RunPerturbation& p) {
      for (size_t i = 0; i < s.env_vary.size(); ++i) {
        const auto& [key, values] = s.env_vary[i];
        p.host.env.push_back(key + "=" + values[kit::pick(at.seed, 40 + i) % values.size()]);
      }
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
