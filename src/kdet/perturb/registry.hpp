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
// A factor is one file, perturb/factors/NAME.cpp, that builds its row: its words, whether it can
// be honoured here, and its effects on how workers start (launch) and on each run (run).
// perturb/factors/factors.def lists them in the order they are reported and applied. The code
// that applies factors (factors.cpp, engine/) walks the rows and names none of them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/setting.hpp"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace kdet::perturb {

enum class Regime { across, inside, both };

// "across processes", "inside one process", "both".
const char* to_string(Regime r);

// Where one run stands, for a factor's per-run effect.
struct RunSpot {
  uint64_t index = 0; // the run's number
  uint64_t seed = 0;  // the run's seed: a factor's choices are mix_seed(seed, its salt)
  int slot = 0;       // the parallel slot the run goes to
};

// How explain tests a factor on this machine and input (FactorInfo::trial).
struct Trial {
  bool applies = true;    // false: it cannot matter here (left out without a word)
  std::string untestable; // why it cannot be tested here ("" when it can)
  std::string varied;     // its varied level in the experiment ("": the row's)
  std::string noun;       // "": the row's; else this noun, and "follows NOUN" in conclusions
};

// What `kdet exec --deterministic --fix NAME` gives a plain command for the fixed factors
// (FactorInfo::exec_fix fills it; cli/exec.cpp starts the command with it).
struct CommandFix {
  std::string time;                 // in: exec's --time ("": perturb::k_fixed_epoch)
  HostView view;                    // environment changes, umask, PID namespace
  bool disable_aslr = false;        // personality(ADDR_NO_RANDOMIZE), inherited by every child
  std::vector<std::string> preload; // libraries for the command's LD_PRELOAD, in order
  bool shared_clock = false;        // libfaketime's clock shared by the command's process tree
};

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
  // Whether kdet adds variation when the factor is at its varied level (perturb::all_fixed).
  // pid: false, its varied level is the machine's own (pids differ between processes anyway).
  bool kdet_varies = true;

  // A level factor (Setting::levels): its spellings of inherit, fixed and vary (nullptr: not
  // offered), and the level a Setting starts at. Empty spellings: a factor with a field of its
  // own in Setting (process, heap, aslr, threads, env-vary).
  std::array<const char*, 3> levels = {nullptr, nullptr, nullptr};
  Level start = Level::inherit;
  // Left out of a Setting's JSON at its inherit level, so that settings stored before the factor
  // existed compare equal.
  bool json_when_set = false;

  // Parses `value` and stores it; throws Error naming `where` and the valid values.
  std::function<void(Setting&, const std::string& value, const std::string& where)> set;
  // The current value, spelled as `set` takes it.
  std::function<std::string(const Setting&)> get;
  // Whether the factor changes between runs under `s` (nullptr: get(s) == varied).
  std::function<bool(const Setting&)> varies;

  // Prepares what the factor needs in `ctx` (the files the input names, ...) and says why `s`
  // cannot be honoured on this machine ("" when it can), naming the option: a run's usage error.
  std::function<std::string(const Setting&, Context&)> check;
  // How explain tests it here (nullptr: as the row says).
  std::function<Trial(const Context&)> trial;
  // Its effect on how every worker of a session starts.
  std::function<void(const Setting&, const Context&, Launch&)> launch;
  // Its effect on one run, applied just before the compile.
  std::function<void(const Setting&, const Context&, const RunSpot&, RunPerturbation&)> run;

  // Another factor this one may act through (time through the files' times, which libfaketime
  // shifts): where this factor is in explain's cause and `through_factor` was not held apart
  // (left out, not testable or broken), the conclusion adds "; " + `through_words`.
  std::string through_factor;
  std::string through_words;

  // `kdet exec --deterministic --fix NAME`: its line in `kdet exec --help` (what it sets),
  // whether --fix's default holds it, and what it does to the command (throws Error when this
  // machine cannot give it); nullptr: kdet exec cannot fix it, and `exec_refusal` (if any) says
  // why to a user who asks.
  std::string exec_help;
  bool exec_default = false;
  std::function<void(CommandFix&)> exec_fix;
  std::string exec_refusal;
};

// Every factor, in the order they are reported (perturb/factors/factors.def).
const std::vector<FactorInfo>& factor_registry();

// The row named `name`, or nullptr.
const FactorInfo* find_factor(const std::string& name);

// The row named `name`; throws Error listing the factors when there is none.
const FactorInfo& factor(const std::string& name);

// Whether `f` changes between runs under `s`.
bool varies(const FactorInfo& f, const Setting& s);

// Which regimes a setting covers: across processes (fresh workers, or an exec
// compiler), inside one process (several compiles in one worker), or both.
Regime covered_regime(const Setting& s, bool exec_backend);

// A sentence for reports: "across processes (a fresh process per run) and
// inside one process (runs sharing one worker)".
std::string describe_regime(const Setting& s, bool exec_backend);

// The factors whose level decides the regimes a setting covers (its fixed and varied levels
// cover different ones): explain's "inside one process" comes from varying them.
std::vector<const FactorInfo*> regime_factors();

// Whether the factor reaches a compiler of this kind: exec, a Python stage, or a library.
bool reaches(const FactorInfo& f, bool exec_backend, bool python_backend);

// The factors that vary in `s` but cannot show their effect in the regimes it
// covers (e.g. aslr=on with process=same), for a warning.
std::vector<std::string> unreachable_factors(const Setting& s, bool exec_backend);

} // namespace kdet::perturb
