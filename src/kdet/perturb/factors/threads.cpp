//===- perturb/factors/threads.cpp - extra allocating threads in each worker ===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"

#include <exception>

namespace kdet::perturb {

const FactorInfo& factor_threads() {
  static const FactorInfo f = [] {
    FactorInfo r;
    r.name = "threads";
    r.help =
        "N extra threads in each worker that allocate and stay alive, like a BLAS pool (0 to 256)";
    r.manifest_key = "threads";
    r.fixed = "0";
    r.varied = "4";
    r.natural = "0";
    r.noun = "allocating threads";
    r.regime = Regime::both;
    r.exec = false;
    r.moves_addresses = true;
    r.set = [](Setting& s, const std::string& v, const std::string& w) {
      size_t used = 0;
      int n = -1;
      try {
        n = std::stoi(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || n < 0 || n > 256)
        throw Error::format("{}: '{}' is not valid; use a whole number from 0 to 256", w, v);
      s.threads = n;
    };
    r.get = [](const Setting& s) { return std::to_string(s.threads); };
    r.varies = [](const Setting& s) { return s.threads > 0; };
    r.launch = [](const Setting& s, const Context&, Launch& l) {
      l.threads = s.threads;
      if (s.threads > 0) l.thread_seed = mix_seed(s.seed, ~0ULL);
    };
    r.exec_refusal = "threads are the extra allocating threads of `kdet run`; the thread-count "
                     "variables are threadvars";
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
