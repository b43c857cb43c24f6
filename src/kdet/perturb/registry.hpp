//===- perturb/registry.hpp - one row per perturbation factor ----------------===//
//
// The single table of the factors kdet controls. `run`'s and `explain`'s
// options, a scan manifest's [setting], `kdet exec --deterministic` and
// explain's experiment all read it, so a factor has one name, one spelling of
// its levels and one meaning everywhere. Each row also says the regime where
// the factor acts: across processes (it differs only between two processes,
// like ASLR or the pid), inside one process (it differs only between compiles
// sharing a process, like heap history), or both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/perturb/setting.hpp"

#include <functional>
#include <string>
#include <vector>

namespace kdet::perturb {

enum class Regime { across, inside, both };

// "across processes", "inside one process", "both".
const char* to_string(Regime r);

struct FactorInfo {
  std::string name;         // "aslr": the word used in --factors, JSON, conclusions
  std::string help;         // --NAME's help text
  std::string manifest_key; // key in a scan manifest's [setting]
  std::string fixed;        // the level that holds it still ("off")
  std::string varied;       // the level that moves it ("on")
  std::string natural;      // what a plain compile sees ("on")
  std::string noun;         // "address-space layout (ASLR)": for conclusions
  Regime regime = Regime::both;
  bool library = true;          // reaches library backends (nvvm, nvrtc, nvjitlink)
  bool exec = true;             // reaches exec compilers
  bool python = true;           // reaches Python stages (--py; backend/python.cpp)
  bool moves_addresses = false; // changes where the compiler's memory lies
  // Parses `value` and stores it; throws Error naming `where` and the valid values.
  std::function<void(Setting&, const std::string& value, const std::string& where)> set;
  // The current value, spelled as `set` takes it.
  std::function<std::string(const Setting&)> get;
};

// Every factor, in the order they are reported.
const std::vector<FactorInfo>& factor_registry();

// The row named `name`, or nullptr.
const FactorInfo* find_factor(const std::string& name);

// The row named `name`; throws Error listing the factors when there is none.
const FactorInfo& factor(const std::string& name);

// Which regimes a setting covers: across processes (fresh workers, or an exec
// compiler), inside one process (several compiles in one worker), or both.
Regime covered_regime(const Setting& s, bool exec_backend);

// A sentence for reports: "across processes (a fresh process per run) and
// inside one process (runs sharing one worker)".
std::string describe_regime(const Setting& s, bool exec_backend);

// Whether the factor reaches a compiler of this kind: exec, a Python stage, or a library.
bool reaches(const FactorInfo& f, bool exec_backend, bool python_backend);

// The factors that vary in `s` but cannot show their effect in the regimes it
// covers (e.g. aslr=on with process=same), for a warning.
std::vector<std::string> unreachable_factors(const Setting& s, bool exec_backend);

} // namespace kdet::perturb
