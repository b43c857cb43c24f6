//===- perturb/factors/pid.cpp - the compiler's process id ------------------===//
#include "kdet/perturb/factors/kit.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const FactorInfo& factor_pid() {
  static const FactorInfo f = [] {
    FactorInfo r = kit::level_row(
        "pid", "vary (natural pids), or fixed (a fresh PID namespace: the compiler is pid 2)",
        "the pid", Regime::across, {nullptr, "fixed", "vary"}, Level::vary, Level::vary);
    r.kdet_varies = false; // pids differ between processes by nature unless held fixed
    r.check = [](const Setting& s, Context&) -> std::string {
      if (level_of(s, "pid") != Level::fixed) return {};
      Status here = pid_namespace_available();
      if (!here)
        return fmt::format("--pid fixed: this machine does not let kdet create a PID namespace "
                           "({}); the pid cannot be held fixed here",
                           here.why());
      return {};
    };
    r.trial = [](const Context&) {
      Trial t;
      if (!pid_namespace_available()) t.untestable = "no PID namespaces here";
      return t;
    };
    // A library worker is the compiler's process; an exec compiler gets its namespace per run.
    r.launch = [](const Setting& s, const Context& ctx, Launch& l) {
      l.pid_namespace = !ctx.exec_backend && level_of(s, "pid") == Level::fixed;
    };
    r.run = [](const Setting& s, const Context& ctx, const RunSpot&, RunPerturbation& p) {
      p.host.pid_namespace = ctx.exec_backend && level_of(s, "pid") == Level::fixed;
    };
    r.exec_help = "a fresh PID namespace: the command runs as pid 2";
    r.exec_fix = [](CommandFix& c) {
      if (Status here = pid_namespace_available(); !here)
        throw Error::format("--fix pid: this machine does not let kdet create a PID namespace ({})",
                            here.why());
      c.view.pid_namespace = true;
    };
    return r;
  }();
  return f;
}

} // namespace kdet::perturb
