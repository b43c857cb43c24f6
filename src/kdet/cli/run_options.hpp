//===- cli/run_options.hpp - options shared by run, explain, scan, cache -----===//
//
// The input/backend options and the perturbation-factor options appear in
// several commands; they are registered and resolved here once.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

namespace kdet::cli {

struct CompileArgs {
  std::string input;
  std::string backend; // empty: from the input's extension
  std::string lib;
  std::string command;
  std::string output_ext;
  std::string py;     // --py FILE.py:FUNCTION (a Python stage)
  std::string python; // --python PY (its interpreter)
  double timeout_seconds = 300;
  std::string max_output;           // empty: engine::k_default_max_output
  std::vector<std::string> options; // after --
};

struct FactorArgs {
  // One value per factor of perturb/registry.hpp, as given (empty: the backend's default).
  std::map<std::string, std::string> values;
  std::vector<std::string> env;
  std::vector<std::string> env_vary; // NAME=V1,V2,...
  std::string seed;                  // empty: random
  std::vector<std::string> warnings; // filled by resolve_factor_args
};

void add_compile_options(CLI::App* cmd, CompileArgs& args);
// Registers --NAME for every factor of the registry, plus --env and --seed.
void add_factor_options(CLI::App* cmd, FactorArgs& args);

// A Python stage's backend from --py FILE.py:FUNCTION and --python (the file absolute, the
// interpreter found in PATH); throws Error naming the option at fault.
void resolve_python_stage(const CompileArgs& args, backend::BackendConfig& config);
// Fill the plan's input, backend, options and timeout; throws Error naming the option at fault.
void resolve_compile_args(const CompileArgs& args, engine::RunPlan& plan);
// Fill the plan's setting (after resolve_compile_args: defaults depend on the backend).
void resolve_factor_args(FactorArgs& args, engine::RunPlan& plan);

} // namespace kdet::cli
