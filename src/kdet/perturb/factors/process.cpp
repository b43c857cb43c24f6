//===- perturb/factors/process.cpp - fresh workers or one shared worker -----===//
#include "kdet/perturb/factors/kit.hpp"

namespace kdet::perturb {

const FactorInfo& factor_process() {
  static const FactorInfo f = [] {
    FactorInfo r;
    r.name = "process";
    r.help = "both: split runs between a fresh worker per run and one shared worker, so variation "
             "across processes (ASLR, pid) and inside one process (heap history) both show "
             "(library default); same: all runs in one worker (like a repro loop); fresh: a new "
             "worker per run";
    r.manifest_key = "process";
    r.fixed = "fresh";
    r.varied = "both";
    r.natural = "fresh";
    r.noun = "compile history in one process";
    r.regime = Regime::both;
    r.exec = false;
    r.moves_addresses = true;
    r.set = [](Setting& s, const std::string& v, const std::string& w) {
      s.process = parse_process(v, w);
    };
    r.get = [](const Setting& s) { return std::string(to_string(s.process)); };
    r.varies = [](const Setting& s) { return s.process != ProcessMode::fresh; };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
