//===- engine/explain_factors.cpp - explain's factors and its real cell runner ===//
//
// The factors of an experiment come from perturb/registry.hpp (levels, noun,
// regime); the runner turns a CellPlan into a RunPlan for engine::execute.
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/engine/explain.hpp"
#include "kdet/engine/explain_internal.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
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

// "a, b and c", or the first four "and 3 more".
std::string file_list(const std::vector<std::string>& files) {
  constexpr size_t k_shown = 4;
  std::string out;
  const size_t shown = files.size() > k_shown + 1 ? k_shown : files.size();
  for (size_t i = 0; i < shown; ++i)
    out += (i == 0 ? "" : i + 1 == shown && shown == files.size() ? " and " : ", ") + files[i];
  if (shown < files.size()) out += fmt::format(" and {} more", files.size() - shown);
  return out;
}

// The files the plan's input names (empty when it names none, or cannot be read).
std::vector<std::string> plan_named_files(const RunPlan& base) {
  try {
    return perturb::named_files(read_file(base.input_path), base.input_path, base.options,
                                current_folder());
  } catch (const std::exception&) {
    return {};
  }
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
  std::vector<Factor> all;
  for (const auto& info : perturb::factor_registry()) {
    if (info.name == "env-vary") continue; // one factor per declared variable, below
    if (!perturb::reaches(info, exec, python)) continue;
    std::string varied = info.varied;
    if (info.name == "heap") {
      // chaos moves every block (and reaches exec compilers); churn only the worker's heap.
      // A sanitized build of kdet cannot take a second allocator into its workers.
      if (!ctx.chaos_lib.empty() && perturb::chaos_unusable(exec).empty())
        varied = "chaos";
      else if (exec)
        continue;
    }
    if (info.name == "time" && ctx.faketime_lib.empty()) {
      if (untestable) untestable->push_back("time (libfaketime is not installed)");
      continue;
    }
    if (info.name == "pid" && !perturb::pid_namespace_available()) {
      if (untestable) untestable->push_back("pid (no PID namespaces here)");
      continue;
    }
    if (info.name == "hostname") {
      if (std::string why = backend::private_uts_unavailable(); !why.empty()) {
        if (untestable) untestable->push_back("hostname (" + why + ")");
        continue;
      }
    }
    if (info.name == "cpus" && perturb::affinity_cpus().size() < 2) {
      if (untestable) untestable->push_back("cpus (one usable CPU here: nothing to vary)");
      continue;
    }
    Factor x = from_registry(info, varied);
    if (info.name == "mtime") {
      // It cannot matter for an input that names no file: left out of the cells, as exec-only
      // factors are for library backends (the exec input's own time moves with path=vary).
      std::vector<std::string> files = plan_named_files(base);
      if (files.empty()) continue;
      if (std::string why = backend::private_mounts_unavailable(); !why.empty()) {
        if (untestable) untestable->push_back("mtime (" + why + ")");
        continue;
      }
      x.noun = "the modification time of " + file_list(files);
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
