#include "kdet/cli/run_options.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/python_stage.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/stream.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fmt/format.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

void add_compile_options(CLI::App* cmd, CompileArgs& a) {
  cmd->add_option("input", a.input,
                  "The input: NVVM IR (.ll/.bc), CUDA C++ (.cu), PTX (.ptx), or anything "
                  "for --backend exec")
      ->required();
  cmd->add_option("compiler_options", a.options,
                  "Options after -- go to the compiler (e.g. -arch=compute_90a -opt=3)");
  cmd->add_option("--backend,-b", a.backend,
                  "nvvm, nvrtc, nvjitlink, exec or python (default: from the input's extension; "
                  "python with --py)")
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        for (auto k : backend::k_kinds)
          names.emplace_back(backend::to_string(k));
        return names;
      }()));
  cmd->add_option("--lib", a.lib,
                  "Compiler library for nvvm/nvrtc/nvjitlink (default: under $CUDA_HOME, then "
                  "/usr/local/cuda)");
  cmd->add_option("--cmd", a.command,
                  "exec: command template with {input}, {output}, {workdir}; split into argv "
                  "without a shell (a shell script takes names as \"$1\"); without {output} "
                  "stdout is the artifact")
      ->check(CLI::Validator(
          [](std::string& s) {
            return trim(s).empty() ? std::string("the command template is empty") : "";
          },
          "", "command"));
  cmd->add_option("--output-ext", a.output_ext,
                  "exec: extension given to {output} (e.g. cubin, o, ptx)");
  cmd->add_option("--py", a.py,
                  "A Python-hosted stage, FILE.py:FUNCTION: FUNCTION(input_bytes, options) returns "
                  "the output's bytes; a worker's interpreter imports FILE once and calls it per "
                  "run (docs/PYTHON.md)");
  cmd->add_option("--python", a.python, "The interpreter for --py (default: python3 on PATH)");
  cmd->add_option("--timeout", a.timeout_seconds,
                  "Seconds before a compile counts as hung and is killed "
                  "(default 300; 0 = never)")
      ->check(real_option(k_timeout_range));
  cmd->add_option("--max-output", a.max_output,
                  "An artifact larger than SIZE (e.g. 512M, 2G) makes the run's "
                  "outcome output-too-large (default 1G)");
}

void add_factor_options(CLI::App* cmd, FactorArgs& a) {
  for (const auto& f : perturb::factor_registry()) {
    if (f.name == "env-vary") {
      cmd->add_option("--env-vary", a.env_vary, f.help)->allow_extra_args(false);
      continue;
    }
    cmd->add_option("--" + f.name, a.values[f.name], f.help);
  }
  cmd->add_option("--env", a.env, "Set K=V in the compiler's environment (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--seed", a.seed,
                  "Master seed (decimal or 0x hex); every run's perturbation derives from it "
                  "(default: random, printed)");
}

void resolve_python_stage(const CompileArgs& a, backend::BackendConfig& b) {
  if (a.py.empty()) throw Error("--backend python needs --py FILE.py:FUNCTION, the stage to call");
  if (!a.lib.empty() || !a.command.empty())
    throw Error::format("{} is not for a Python stage; --py FILE.py:FUNCTION names it",
                        a.lib.empty() ? "--cmd" : "--lib");
  std::string file, fn;
  if (!backend::split_python_spec(a.py, file, fn))
    throw Error::format("--py {}: expected FILE.py:FUNCTION, e.g. --py stage.py:compile", a.py);
  if (std::string why = backend::python_stage_config(file, fn, a.python, b); !why.empty()) {
    const bool interpreter = why.rfind("interpreter", 0) == 0 && !a.python.empty();
    throw Error::format("{} {}: {}", interpreter ? "--python" : "--py",
                        interpreter ? a.python : a.py, why);
  }
}

void resolve_compile_args(const CompileArgs& a, engine::RunPlan& plan) {
  if (::access(a.input.c_str(), R_OK) != 0)
    throw Error::format("input {}: {}", a.input, std::strerror(errno));
  plan.input_path = absolute_path(a.input);
  auto& b = plan.backend;
  // Parsed here, once: past this point the backend is a Kind, never a string.
  b.kind = !a.backend.empty()   ? backend::parse_kind(a.backend, "--backend")
           : !a.py.empty()      ? backend::Kind::python
           : !a.command.empty() ? backend::Kind::exec
                                : backend::backend_for_extension(a.input);
  b.lib = a.lib.empty() ? "" : absolute_path(a.lib);
  b.command = a.command;
  b.output_ext = backend::check_output_ext(a.output_ext, "--output-ext");
  if (b.kind != backend::Kind::python && (!a.py.empty() || !a.python.empty()))
    throw Error::format("{} is for a Python stage (--backend python), not {}",
                        a.py.empty() ? "--python" : "--py", backend::to_string(b.kind));
  if (b.kind == backend::Kind::python) {
    resolve_python_stage(a, b);
  } else if (b.kind == backend::Kind::exec) {
    if (a.command.empty())
      throw Error(
          "--backend exec needs --cmd, e.g. --cmd 'ptxas -arch=sm_90a {input} -o {output}'");
    if (!a.lib.empty())
      throw Error("--lib is for the nvvm, nvrtc and nvjitlink backends; exec takes --cmd");
    auto argv = backend::check_command_template(a.command, "--cmd");
    if (find_program(argv[0]).empty())
      throw Error::format("--cmd: program '{}' not found in PATH", argv[0]);
  } else {
    if (!a.command.empty())
      throw Error::format("--cmd is for --backend exec, not {}", backend::to_string(b.kind));
    if (!a.lib.empty() && ::access(a.lib.c_str(), R_OK) != 0)
      throw Error::format("--lib {}: {}", a.lib, std::strerror(errno));
    // dlopen of a FIFO waits for a writer for ever, in a worker kdet would then wait on.
    struct stat st {};
    if (!a.lib.empty() && ::stat(a.lib.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw Error::format("--lib {}: not a regular file; give the compiler's shared library",
                          a.lib);
  }
  plan.options = a.options;
  if (a.timeout_seconds < 0) throw Error::format("--timeout {}: must be >= 0", a.timeout_seconds);
  plan.timeout = std::chrono::milliseconds(static_cast<long long>(a.timeout_seconds * 1000));
  if (!a.max_output.empty()) {
    auto v = parse_byte_size(a.max_output);
    if (!v)
      throw Error::format(
          "--max-output {}: expected a size above zero such as 512M, 2G or a number of bytes",
          a.max_output);
    plan.max_output = *v;
  }
}

void resolve_factor_args(FactorArgs& a, engine::RunPlan& plan) {
  auto& s = plan.setting;
  bool exec = plan.backend.kind == backend::Kind::exec;
  auto given = [&](const std::string& f) {
    return a.values.count(f) ? a.values.at(f) : std::string();
  };
  if (exec) {
    if (given("process") == "same" || given("process") == "both")
      throw Error::format(
          "--process {}: exec runs a fresh compiler process for every run by nature; use a library "
          "backend (nvvm, nvrtc, nvjitlink) to repeat compiles in one process",
          given("process"));
    if (given("heap") == "churn")
      throw Error("--heap churn: churn happens inside the worker process, which an exec compiler "
                  "does not share; "
                  "use --heap chaos (preloaded into the compiler) or none with exec");
    if (!given("threads").empty() && given("threads") != "0")
      throw Error("--threads: extra threads live in the worker process, which an exec compiler "
                  "does not share");
  }
  // Library backends default to both regimes: fresh workers (ASLR, pid) and one shared worker (heap
  // history).
  s.process = exec ? perturb::ProcessMode::fresh : perturb::ProcessMode::both;
  s.heap = exec ? perturb::HeapMode::none : perturb::HeapMode::churn;
  for (const auto& f : perturb::factor_registry()) {
    const std::string v = given(f.name);
    if (!v.empty()) f.set(s, v, "--" + f.name);
  }
  for (const auto& kv : a.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error::format("--env {}: expected KEY=VALUE", kv);
  }
  s.env = a.env;
  for (const auto& ev : a.env_vary)
    perturb::factor("env-vary").set(s, ev, "--env-vary");
  if (a.seed.empty()) {
    std::random_device rd;
    s.seed = (static_cast<uint64_t>(rd()) << 32) | rd();
  } else {
    auto v = parse_seed(a.seed);
    if (!v) throw Error::format("--seed {}: expected a decimal or 0x-hex number", a.seed);
    s.seed = *v;
  }
  if (s.aslr && !system_aslr_enabled())
    a.warnings.push_back(
        "ASLR is off system-wide (/proc/sys/kernel/randomize_va_space = 0): aslr=on cannot "
        "vary addresses here");
  for (const auto& f : perturb::unreachable_factors(s, exec))
    a.warnings.push_back(
        fmt::format("{}={} acts only across processes, which --process same does not cover; use "
                    "--process both (the default) or fresh to test it",
                    f, perturb::factor(f).get(s)));
}

} // namespace kdet::cli
