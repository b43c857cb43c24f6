//===- perturb/registry.cpp - the factor table ------------------------------===//
#include "kdet/perturb/registry.hpp"

#include "kdet/perturb/factors/kit.hpp"
#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

namespace {

std::vector<FactorInfo> build() {
  std::vector<FactorInfo> rows;
#define KDET_FACTOR(NAME) rows.push_back(factor_##NAME());
#include "kdet/perturb/factors/factors.def"
  return rows;
}

} // namespace

const char* to_string(Regime r) {
  return r == Regime::across   ? "across processes"
         : r == Regime::inside ? "inside one process"
                               : "both";
}

const std::vector<FactorInfo>& factor_registry() {
  static const std::vector<FactorInfo> rows = build();
  return rows;
}

const FactorInfo* find_factor(const std::string& name) {
  for (const auto& f : factor_registry())
    if (f.name == name) return &f;
  return nullptr;
}

const FactorInfo& factor(const std::string& name) {
  if (const FactorInfo* f = find_factor(name)) return *f;
  std::string all;
  for (const auto& f : factor_registry())
    all += (all.empty() ? "" : ", ") + f.name;
  throw Error::format("'{}' is not a factor; the factors are {}", name, all);
}

Regime covered_regime(const Setting& s, bool exec_backend) {
  if (exec_backend) return Regime::across;
  switch (s.process) {
  case ProcessMode::fresh:
    return Regime::across;
  case ProcessMode::same:
    return Regime::inside;
  case ProcessMode::both:
    return Regime::both;
  }
  return Regime::both;
}

std::string describe_regime(const Setting& s, bool exec_backend) {
  if (exec_backend) return "across processes (the compiler is a new process every run)";
  switch (s.process) {
  case ProcessMode::fresh:
    return "across processes only (a fresh worker per run; history inside one process not tested)";
  case ProcessMode::same:
    return "inside one process only (every run in one worker; ASLR and pid, which differ only "
           "between "
           "processes, not tested)";
  case ProcessMode::both:
    break;
  }
  return "across processes (odd runs: a fresh worker each) and inside one process (even runs: one "
         "shared worker)";
}

std::vector<const FactorInfo*> regime_factors() {
  static const std::vector<const FactorInfo*> out = [] {
    std::vector<const FactorInfo*> v;
    for (const auto& f : factor_registry()) {
      if (!f.set || f.fixed.empty() || f.varied.empty()) continue;
      Setting fixed, varied;
      f.set(fixed, f.fixed, "registry");
      f.set(varied, f.varied, "registry");
      if (covered_regime(fixed, false) != covered_regime(varied, false)) v.push_back(&f);
    }
    return v;
  }();
  return out;
}

bool reaches(const FactorInfo& f, bool exec_backend, bool python_backend) {
  return exec_backend ? f.exec : python_backend ? f.python : f.library;
}

bool varies(const FactorInfo& f, const Setting& s) {
  return f.varies ? f.varies(s) : f.get(s) == f.varied;
}

std::vector<std::string> unreachable_factors(const Setting& s, bool exec_backend) {
  std::vector<std::string> out;
  if (covered_regime(s, exec_backend) != Regime::inside) return out;
  for (const auto& f : factor_registry())
    if (f.regime == Regime::across && varies(f, s)) out.push_back(f.name);
  return out;
}

} // namespace kdet::perturb
