#include "kdet/engine/explain.hpp"

#include "kdet/perturb/factors.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace kdet::engine {

using perturb::Level;
using perturb::Setting;

namespace {

Factor level_factor(const std::string& f) {
  Factor x;
  x.name = f;
  x.fixed_label = f + "=" + perturb::level_name(f, Level::fixed);
  x.varied_label = f + "=" + perturb::level_name(f, Level::vary);
  x.fix = [f](Setting& s) { perturb::level_of(s, f) = Level::fixed; };
  x.vary = [f](Setting& s) { perturb::level_of(s, f) = Level::vary; };
  Level natural = (f == "time" || f == "locale" || f == "umask" || f == "threadvars") ? Level::inherit
                  : f == "pid"                                                      ? Level::vary
                                                                                    : Level::fixed;
  x.leave = [f, natural](Setting& s) { perturb::level_of(s, f) = natural; };
  return x;
}

std::string join(const std::vector<std::string>& v, const std::string& sep, const std::string& last_sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += (i + 1 == v.size()) ? last_sep : sep;
    out += v[i];
  }
  return out;
}

} // namespace

std::vector<Factor> explain_factors(const RunPlan& base, const std::vector<std::string>& only,
                                    const std::vector<std::string>& skip) {
  bool exec = base.backend.kind == "exec";
  perturb::Context ctx;
  perturb::find_preload_libraries(ctx);
  std::vector<Factor> all;
  {
    Factor heap;
    heap.name = "heap";
    bool chaos = !ctx.chaos_lib.empty();
    heap.fixed_label = "heap=none";
    heap.varied_label = chaos ? "heap=chaos" : "heap=churn";
    heap.fix = [](Setting& s) { s.heap = perturb::HeapMode::none; };
    heap.vary = [chaos](Setting& s) { s.heap = chaos ? perturb::HeapMode::chaos : perturb::HeapMode::churn; };
    heap.leave = heap.fix;
    if (chaos || !exec) all.push_back(heap);
  }
  {
    Factor aslr{"aslr", "aslr=off", "aslr=on", [](Setting& s) { s.aslr = false; },
                [](Setting& s) { s.aslr = true; }, [](Setting& s) { s.aslr = true; }};
    all.push_back(aslr);
  }
  if (!exec) {
    all.push_back(Factor{"process", "process=fresh", "process=same",
                         [](Setting& s) { s.process = perturb::ProcessMode::fresh; },
                         [](Setting& s) { s.process = perturb::ProcessMode::same; },
                         [](Setting& s) { s.process = perturb::ProcessMode::fresh; }});
    all.push_back(Factor{"threads", "threads=0", "threads=4", [](Setting& s) { s.threads = 0; },
                         [](Setting& s) { s.threads = 4; }, [](Setting& s) { s.threads = 0; }});
  }
  for (const auto& f : perturb::level_factor_names()) {
    if (f == "time" && ctx.faketime_lib.empty()) continue;
    if (f == "pid" && !perturb::pid_namespace_available()) continue;
    all.push_back(level_factor(f));
  }
  for (size_t i = 0; i < base.setting.env_vary.size(); ++i) {
    const auto& [key, values] = base.setting.env_vary[i];
    Factor x;
    x.name = "env:" + key;
    x.fixed_label = key + "=" + values.front();
    x.varied_label = fmt::format("{} in {{{}}}", key, join(values, ",", ","));
    x.fix = [i](Setting& s) {
      auto& [k, vals] = s.env_vary[i];
      s.env.push_back(k + "=" + vals.front());
      vals = {vals.front()};
    };
    x.vary = [](Setting&) {};
    x.leave = x.fix;
    all.push_back(x);
  }
  std::vector<Factor> chosen;
  for (auto& f : all) {
    bool in = only.empty() || std::find(only.begin(), only.end(), f.name) != only.end();
    bool out = std::find(skip.begin(), skip.end(), f.name) != skip.end();
    if (in && !out) chosen.push_back(f);
  }
  for (const auto& o : only) {
    if (std::none_of(all.begin(), all.end(), [&](const Factor& f) { return f.name == o; }))
      throw Error::format("--factors: '{}' is not a factor that applies here", o);
  }
  return chosen;
}

ExplainResult explain(const ExplainOptions& opt, const std::function<void(const Cell&)>& on_cell) {
  ExplainResult res;
  std::vector<Factor> factors = explain_factors(opt.base, opt.only, opt.skip);
  if (factors.empty()) throw Error("--factors/--skip left no factor to test");
  std::set<std::string> broken; // factors whose levels break the compiler: left at their natural level
  uint64_t cell_serial = 0;

  // Runs one cell: `varied` names the factors at their varied level, the rest fixed.
  auto run_cell = [&](const std::string& name, const std::vector<std::string>& varied, uint64_t runs,
                      bool stop_early) {
    RunPlan plan = opt.base;
    // User env-vary lists are rebuilt per cell from the base (fix() narrows them).
    plan.setting.env_vary = opt.base.setting.env_vary;
    plan.setting.seed = mix_seed(opt.base.setting.seed, 1000 + cell_serial++);
    for (const auto& f : factors) {
      if (broken.count(f.name)) f.leave(plan.setting);
      else if (std::find(varied.begin(), varied.end(), f.name) != varied.end()) f.vary(plan.setting);
      else f.fix(plan.setting);
    }
    std::erase_if(plan.setting.env_vary, [](const auto& kv) { return kv.second.size() < 2; });
    plan.runs = runs;
    plan.jobs = std::max(1, opt.base.jobs);
    plan.stop_at_outcomes = stop_early ? 2 : 0;
    plan.stop_after_failures = 2;
    RunOutput out = execute(plan);
    if (out.interrupted) throw Interrupted();
    if (res.identity.path.empty()) res.identity = out.identity;
    Cell c;
    c.name = name;
    c.varied = varied;
    c.runs = out.completed;
    c.outcomes = out.variants.size();
    c.assessment = assess(out);
    switch (c.assessment.verdict) {
    case Verdict::deterministic: c.result = "deterministic"; break;
    case Verdict::nondeterministic: c.result = "varies"; break;
    default:
      c.result = "failed";
      if (!out.variants.empty())
        c.failure = fmt::format("{} ({})", backend::to_string(out.variants.front().status), out.variants.front().detail);
    }
    res.cells.push_back(c);
    if (on_cell) on_cell(c);
    return c;
  };

  std::vector<std::string> names;
  for (const auto& f : factors) names.push_back(f.name);
  res.factors = names;
  auto label_of = [&](const std::string& n, bool fixed) {
    for (const auto& f : factors)
      if (f.name == n) return fixed ? f.fixed_label : f.varied_label;
    return n;
  };

  // 1. Everything fixed: the reference, and a check that the fixed levels do not break the compiler.
  Cell fixed = run_cell("all fixed", {}, opt.min_cell_runs, true);
  if (fixed.result == "failed") {
    // Which fixed level breaks it? Leave mechanism-based factors (time, pid) untouched one at a time.
    for (const std::string suspect : {"time", "pid", "heap"}) {
      if (std::find(names.begin(), names.end(), suspect) == names.end()) continue;
      broken.insert(suspect);
      Cell c = run_cell(fmt::format("all fixed, {} left alone", suspect), {}, 2, true);
      if (c.result != "failed") {
        res.findings.push_back(fmt::format("{} cannot be tested with this compiler: holding it at {} made every run "
                                           "fail ({}); it is left at its natural level in every cell",
                                           suspect, label_of(suspect, true), fixed.failure));
        fixed = c;
        break;
      }
      broken.erase(suspect);
    }
    if (fixed.result == "failed") {
      res.verdict = "failed";
      res.conclusion = fmt::format("the compiler failed on every run even with every factor fixed: {}", fixed.failure);
      res.exit_code = k_exit_compiler_failed;
      return res;
    }
  }

  // 2. Everything varied: is there variance at all, and how often?
  Cell all = run_cell("all varied", names, opt.baseline_runs, false);
  if (all.result == "failed") {
    // A varied level breaks the compiler: find it by varying each factor alone.
    for (const auto& f : factors) {
      Cell c = run_cell(fmt::format("vary {} only", f.name), {f.name}, 2, true);
      if (c.result == "failed") {
        broken.insert(f.name);
        res.findings.push_back(fmt::format("varying {} ({}) made every run fail: {}; {} is left at its natural "
                                           "level in every cell",
                                           f.name, f.varied_label, c.failure, f.name));
      }
    }
    all = run_cell("all varied (without the factors that break the compiler)", names, opt.baseline_runs, false);
    if (all.result == "failed") {
      res.verdict = "inconclusive";
      res.conclusion = "the compiler fails whenever the factors are varied together, and no single factor "
                       "explains the failure";
      res.exit_code = k_exit_compiler_failed;
      return res;
    }
  }
  res.baseline_rate = all.assessment.rate;
  if (all.result == "deterministic") {
    res.verdict = "deterministic";
    res.conclusion = fmt::format("deterministic with every factor varied: {} runs, one output; fewer than {} of runs "
                                 "would differ, at 95% confidence",
                                 all.runs, percent(all.assessment.upper_bound));
    if (fixed.result == "varies") {
      res.verdict = "inconclusive";
      res.conclusion = "varies with every factor fixed but not with every factor varied: too few runs to tell; "
                       "raise --runs";
      res.exit_code = k_exit_nondeterministic;
    }
    return res;
  }

  // Cells sized to catch half the baseline rate with 95 % probability.
  double target = std::max(1e-4, all.assessment.rate / 2);
  res.cell_runs = std::clamp<uint64_t>(stats::runs_to_detect(target), opt.min_cell_runs, opt.max_cell_runs);
  auto supports_determinism = [&](const Cell& c) {
    return c.result == "deterministic" && c.assessment.upper_bound < all.assessment.rate;
  };
  res.exit_code = k_exit_nondeterministic;

  if (fixed.runs < res.cell_runs && fixed.result == "deterministic")
    fixed = run_cell("all fixed (more runs)", {}, res.cell_runs, true);
  if (fixed.result == "varies") {
    res.verdict = "inconclusive";
    res.conclusion = "varies even with every factor fixed: the cause is inside the compiler (its own threads or "
                     "timing) or in something kdet does not control";
    return res;
  }
  if (!supports_determinism(fixed)) {
    res.verdict = "inconclusive";
    res.conclusion = fmt::format("with every factor fixed no run differed, but {} runs cannot rule out the "
                                 "baseline rate of {}; raise --max-cell-runs",
                                 fixed.runs, percent(all.assessment.rate));
    return res;
  }

  // 3. Each factor varied alone.
  std::vector<std::string> sufficient;
  for (const auto& n : names) {
    if (broken.count(n)) continue;
    Cell c = run_cell(fmt::format("vary {} only", n), {n}, res.cell_runs, true);
    if (c.result == "varies") sufficient.push_back(n);
    else if (c.result == "failed")
      res.findings.push_back(fmt::format("varying {} alone made every run fail: {}", n, c.failure));
  }

  // 4. Fix the sufficient ones together, vary the rest; grow the set from pairs if needed.
  std::vector<std::string> cause = sufficient;
  auto rest_of = [&](const std::vector<std::string>& fixed_set) {
    std::vector<std::string> r;
    for (const auto& n : names)
      if (!broken.count(n) && std::find(fixed_set.begin(), fixed_set.end(), n) == fixed_set.end()) r.push_back(n);
    return r;
  };
  auto fixed_labels = [&](const std::vector<std::string>& set) {
    std::vector<std::string> l;
    for (const auto& n : set) l.push_back(label_of(n, true));
    return l;
  };
  Cell check = run_cell(cause.empty() ? "vary everything (no single factor varied)"
                                      : fmt::format("fix {}; vary the rest", join(cause, ", ", " and ")),
                        rest_of(cause), res.cell_runs, true);
  if (check.result == "varies") {
    // Interactions: pairs of the remaining factors, varied together with everything else fixed.
    std::vector<std::string> rest = rest_of(cause);
    for (size_t i = 0; i < rest.size(); ++i) {
      for (size_t j = i + 1; j < rest.size(); ++j) {
        Cell c = run_cell(fmt::format("vary {} and {} only", rest[i], rest[j]), {rest[i], rest[j]}, res.cell_runs, true);
        if (c.result != "varies") continue;
        for (const auto& n : {rest[i], rest[j]})
          if (std::find(cause.begin(), cause.end(), n) == cause.end()) cause.push_back(n);
      }
    }
    if (cause.size() > sufficient.size())
      check = run_cell(fmt::format("fix {}; vary the rest", join(cause, ", ", " and ")), rest_of(cause),
                       res.cell_runs, true);
  }
  res.cause = cause;
  if (check.result != "deterministic" || !supports_determinism(check) || cause.empty()) {
    res.verdict = "inconclusive";
    if (check.result == "varies")
      res.conclusion = fmt::format("fixing {} is not enough and no pair of the other factors explains the rest",
                                   cause.empty() ? "any single factor" : join(fixed_labels(cause), ", ", " and "));
    else
      res.conclusion = fmt::format("no run differed with {} fixed, but {} runs cannot rule out the baseline rate "
                                   "of {}; raise --max-cell-runs",
                                   join(fixed_labels(cause), ", ", " and "), check.runs, percent(all.assessment.rate));
    return res;
  }

  // 5. Is each of them needed? Fix it alone (others varied): if that still varies, it is not enough alone.
  bool each_alone_insufficient = true;
  if (cause.size() > 1) {
    for (const auto& n : cause) {
      Cell c = run_cell(fmt::format("fix {} only", n), rest_of({n}), res.cell_runs, true);
      if (c.result != "varies") each_alone_insufficient = false;
    }
  }
  res.verdict = "explained";
  if (cause.size() == 1) {
    static const std::map<std::string, std::string> nouns = {
        {"heap", "heap layout"},   {"aslr", "address-space layout (ASLR)"}, {"process", "process reuse"},
        {"threads", "extra threads"}, {"path", "input path"},               {"cwd", "working directory"},
        {"tmpdir", "TMPDIR"},      {"time", "time"},                        {"locale", "locale"},
        {"umask", "umask"},        {"pid", "pid"},                          {"threadvars", "thread-count variables"}};
    auto it = nouns.find(cause[0]);
    std::string noun = it != nouns.end() ? "the " + it->second : cause[0].substr(cause[0].find(':') + 1);
    res.conclusion = fmt::format("varies with {}; nothing else matters (deterministic when {})", noun,
                                 label_of(cause[0], true));
  } else {
    res.conclusion = fmt::format("deterministic when {}", join(fixed_labels(cause), ", ", " and "));
    if (each_alone_insufficient) res.conclusion += cause.size() == 2 ? "; neither alone is enough" : "; no one of them alone is enough";
  }
  return res;
}

} // namespace kdet::engine
