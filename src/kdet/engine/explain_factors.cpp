//===- engine/explain_factors.cpp - explain's factors and its real cell runner ===//
//
// The factors of an experiment come from perturb/registry.hpp (levels, noun,
// regime); the runner turns a CellPlan into a RunPlan for engine::execute.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/diff.hpp"
#include "kdet/engine/explain.hpp"
#include "kdet/engine/explain_internal.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

namespace kdet::engine {

using perturb::Setting;

namespace {

// A factor from its registry row: fix/vary/leave set the row's levels by name.
Factor from_registry(const perturb::FactorInfo& info, const std::string& varied) {
  Factor x;
  x.name = info.name;
  x.fixed_label = info.name + "=" + info.fixed;
  x.varied_label = info.name + "=" + varied;
  x.natural_label = info.name + "=" + info.natural;
  auto set = info.set;
  std::string where = "explain " + info.name;
  x.fix = [set, v = info.fixed, where](Setting& s) { set(s, v, where); };
  x.vary = [set, varied, where](Setting& s) { set(s, varied, where); };
  x.leave = [set, v = info.natural, where](Setting& s) { set(s, v, where); };
  x.noun = info.noun;
  x.regime = info.regime;
  x.moves_addresses = info.moves_addresses;
  return x;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// "cubin", "PTX" or "" from the first successful outcome of a cell.
std::string output_word(const RunOutput& out) {
  for (const auto& v : out.variants) {
    if (v.status != backend::Status::ok || v.artifacts.empty()) continue;
    const auto& a = v.artifacts.front();
    if (a.size > (64u << 20)) return {};
    switch (diff::detect_format(backend::artifact_bytes(a))) {
    case diff::Format::cubin:
      return "cubin";
    case diff::Format::ptx:
      return "PTX";
    default:
      return {};
    }
  }
  return {};
}

} // namespace

std::vector<Factor> explain_factors(const RunPlan& base, const std::vector<std::string>& only,
                                    const std::vector<std::string>& skip,
                                    std::vector<std::string>* left_out,
                                    std::vector<std::string>* untestable) {
  bool exec = base.backend.kind == backend::Kind::exec;
  bool python = base.backend.kind == backend::Kind::python;
  perturb::Context ctx;
  perturb::find_preload_libraries(ctx);
  ctx.exec_backend = exec;
  ctx.input_path = base.input_path;
  ctx.base_cwd = current_folder();
  ctx.options = base.options;
  ctx.usable_cpus = perturb::affinity_cpus();
  ctx.probes = host_probes();
  try {
    ctx.input = read_file(base.input_path);
  } catch (const std::exception&) {
    ctx.input.clear(); // names no file
  }
  std::vector<Factor> all;
  for (const auto& info : perturb::factor_registry()) {
    if (!perturb::reaches(info, exec, python)) continue;
    const perturb::Trial t = info.trial ? info.trial(ctx) : perturb::Trial{};
    if (!t.applies) continue;
    if (!t.untestable.empty()) {
      if (untestable) untestable->push_back(info.name + " (" + t.untestable + ")");
      continue;
    }
    Factor x = from_registry(info, t.varied.empty() ? info.varied : t.varied);
    if (!t.noun.empty()) {
      x.noun = t.noun;
      x.follows = "follows " + x.noun;
    }
    all.push_back(x);
  }
  for (size_t i = 0; i < base.setting.env_vary.size(); ++i) {
    const auto& [key, values] = base.setting.env_vary[i];
    Factor x;
    x.name = "env:" + key;
    x.fixed_label = key + "=" + values.front();
    std::string list;
    for (const auto& v : values)
      list += (list.empty() ? "" : ",") + v;
    x.varied_label = fmt::format("{} in {{{}}}", key, list);
    x.natural_label = x.fixed_label;
    x.fix = [i](Setting& s) {
      auto& [k, vals] = s.env_vary[i];
      s.env.push_back(k + "=" + vals.front());
      vals = {vals.front()};
    };
    x.vary = [](Setting&) {};
    x.leave = x.fix;
    x.noun = key;
    all.push_back(x);
  }
  for (const auto& o : only) {
    if (std::none_of(all.begin(), all.end(), [&](const Factor& f) { return f.name == o; }))
      throw Error::format("--factors: '{}' is not a factor that applies here", o);
  }
  // A factor that does not apply here may be skipped; a name that is no factor is a typo.
  for (const auto& s : skip) {
    bool here = std::any_of(all.begin(), all.end(), [&](const Factor& f) { return f.name == s; });
    if (!here && !perturb::find_factor(s)) {
      std::vector<std::string> names;
      names.reserve(all.size());
      for (const auto& f : all)
        names.push_back(f.name);
      throw Error::format("--skip: '{}' is not a factor; give some of: {}", s,
                          fmt::join(names, ", "));
    }
  }
  std::vector<Factor> chosen;
  for (auto& f : all) {
    bool in = only.empty() || contains(only, f.name);
    if (in && !contains(skip, f.name))
      chosen.push_back(f);
    else if (left_out)
      left_out->push_back(f.name);
  }
  return chosen;
}

CellRunner execute_runner(const ExplainOptions& opt, const std::vector<Factor>& factors,
                          backend::Identity& identity) {
  auto serial = std::make_shared<uint64_t>(0);
  auto first = std::make_shared<std::optional<CompilerFile>>(); // the compiler file, first cell
  return [&opt, factors, &identity, serial, first](const CellPlan& cp) {
    RunPlan plan = opt.base;
    // User env-vary lists are rebuilt per cell from the base (fix() narrows them).
    plan.setting.env_vary = opt.base.setting.env_vary;
    plan.setting.seed = mix_seed(opt.base.setting.seed, 1000 + (*serial)++);
    Cell c;
    for (const auto& f : factors) {
      if (contains(cp.left, f.name)) {
        f.leave(plan.setting);
      } else if (contains(cp.varied, f.name)) {
        f.vary(plan.setting);
      } else {
        f.fix(plan.setting);
        c.fixed.push_back(f.name);
      }
    }
    std::erase_if(plan.setting.env_vary, [](const auto& kv) { return kv.second.size() < 2; });
    plan.runs = cp.runs;
    plan.jobs = std::max(1, opt.base.jobs);
    plan.stop.outcomes = cp.stop_early ? 2 : 0;
    plan.stop.after_failures = cp.all_runs ? 0 : 2;
    if (cp.timeout.count() > 0) plan.timeout = cp.timeout;
    // The compiler was loaded once by the first cell: later cells skip the probe worker.
    if (!identity.path.empty()) {
      plan.known.identity = identity;
      plan.known.file = *first;
    }
    RunOutput out = execute(plan);
    if (out.interrupted) throw Interrupted();
    // A compiler replaced during or between the cells: their outcomes may come from two
    // compilers, so no factor can be blamed on them.
    if (!out.compiler_changed.empty())
      throw Error::format("{}; no explanation", out.compiler_changed);
    if (identity.path.empty()) {
      identity = out.identity;
      *first = out.compiler_file;
    }
    c.name = cp.name;
    c.varied = cp.varied;
    c.probe = cp.probe;
    c.runs = out.completed;
    c.outcomes = out.variants.size();
    c.output = output_word(out);
    c.assessment = assess(out);
    std::vector<double> secs;
    for (const auto& r : out.records)
      if (r.done) secs.push_back(r.seconds);
    if (!secs.empty()) {
      std::nth_element(secs.begin(), secs.begin() + static_cast<long>(secs.size() / 2), secs.end());
      c.median_seconds = secs[secs.size() / 2];
    }
    switch (c.assessment.verdict) {
    case Verdict::deterministic:
      c.result = Verdict::deterministic;
      break;
    case Verdict::nondeterministic:
      c.result = Verdict::nondeterministic;
      break;
    default:
      c.result = Verdict::failed;
      if (!out.variants.empty())
        c.failure = fmt::format("{} ({})", backend::to_string(out.variants.front().status),
                                out.variants.front().detail);
    }
    return c;
  };
}

} // namespace kdet::engine
