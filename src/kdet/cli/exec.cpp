//===- cli/exec.cpp - `kdet exec --deterministic -- CMD...` -----------------===//
//
// Runs a command (a build step, a Python compile script) with the factors
// that make compiles repeatable held fixed. A workaround users can put in
// front of a build today, and a way to check what `kdet explain` concluded.
//
//===----------------------------------------------------------------------===//
#include "kdet/util/exec.hpp"

#include "kdet/backend/host_view.hpp"
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/presets.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/faketime_shm.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>

namespace kdet::cli {

namespace {

// The factors a plain command can have fixed are the rows of perturb/registry.hpp with an
// exec_fix; env is kdet exec's own.
constexpr const char* k_env_fix = "env";

// The fixes --fix takes, in the registry's order, then env.
std::vector<std::string> all_fixes() {
  std::vector<std::string> out;
  for (const auto& f : perturb::factor_registry())
    if (f.exec_fix) out.push_back(f.name);
  out.push_back(k_env_fix);
  return out;
}

std::vector<std::string> default_fixes() {
  std::vector<std::string> out;
  for (const auto& f : perturb::factor_registry())
    if (f.exec_fix && f.exec_default) out.push_back(f.name);
  return out;
}

// Kept by --fix env: what a compile needs to find its tools and nothing more.
const std::vector<std::string> k_env_keep = {"PATH",       "HOME",      "USER",
                                             "LOGNAME",    "SHELL",     "TERM",
                                             "CUDA_HOME",  "CUDA_PATH", "LD_LIBRARY_PATH",
                                             "PYTHONPATH", "TMPDIR"};

struct ExecArgs {
  bool deterministic = false;
  std::string fix;
  std::vector<std::string> keep_env;
  std::string time; // empty: perturb::k_fixed_epoch, as kdet run's time=fixed
  double timeout_seconds = 0;
  bool print = false;
  std::vector<std::string> command;
};

int do_exec(const ExecArgs& a) {
  if (!a.deterministic)
    throw Error("kdet exec needs --deterministic (the only mode so far): kdet exec --deterministic "
                "-- CMD...");
  if (a.command.empty())
    throw Error(
        "kdet exec: give the command after --, e.g. kdet exec --deterministic -- nvcc -c k.cu");
  std::set<std::string> fixes;
  const std::vector<std::string> all = all_fixes();
  std::vector<std::string> requested = a.fix.empty() ? default_fixes() : split(a.fix, ',');
  for (const auto& f : requested) {
    if (f == "all") {
      fixes.insert(all.begin(), all.end());
      continue;
    }
    if (std::find(all.begin(), all.end(), f) == all.end()) {
      const perturb::FactorInfo* info = perturb::find_factor(f);
      std::string why = !info ? ""
                        : !info->exec_refusal.empty()
                            ? " (" + info->exec_refusal + ")"
                            : fmt::format(" (kdet run and kdet explain vary and fix {})", f);
      throw Error::format("--fix: '{}' is not a factor kdet exec can fix{}; use any of {}, or all",
                          f, why, fmt::join(all, ", "));
    }
    fixes.insert(f);
  }

  SpawnOptions opt;
  opt.argv = a.command;
  opt.new_process_group = false; // Ctrl-C in the terminal reaches the command as usual
  opt.guard = true;              // so its descendants end with it, even if kdet is SIGKILLed
  opt.inherit_fds = true;        // the caller's descriptors, as without kdet
  opt.fds = {{0, 0}, {1, 1}, {2, 2}};
  std::vector<std::string> env = current_environment();
  if (fixes.count(k_env_fix)) {
    std::vector<std::string> kept;
    for (const auto& e : env) {
      std::string key = e.substr(0, e.find('='));
      if (std::find(k_env_keep.begin(), k_env_keep.end(), key) != k_env_keep.end() ||
          std::find(a.keep_env.begin(), a.keep_env.end(), key) != a.keep_env.end())
        kept.push_back(e);
    }
    env = kept;
  }
  // What the command is started with: each fixed factor's row says (perturb/registry.hpp,
  // exec_fix), as kdet run's fixed level of it; one view of the host (backend/host_view).
  perturb::CommandFix fix;
  fix.time = a.time;
  for (const auto& f : perturb::factor_registry())
    if (f.exec_fix && fixes.count(f.name)) f.exec_fix(fix);
  opt.disable_aslr = fix.disable_aslr;
  // libfaketime's shared clock for the command's process tree; removed when kdet returns.
  std::optional<FaketimeShared> clock;
  if (fix.shared_clock) {
    clock.emplace();
    if (!clock->env().empty()) fix.view.env.push_back(clock->env());
  }
  // One LD_PRELOAD for every fixed factor that needs one.
  if (!fix.preload.empty())
    fix.view.env.push_back("LD_PRELOAD=" + perturb::preload_list(fix.preload));
  const HostView& view = fix.view;
  opt.env = std::move(env);
  backend::apply_host_view(view, backend::HostScope::child, &opt);
  if (a.print) {
    std::string f;
    for (const auto& x : fixes)
      f += (f.empty() ? "" : ",") + x;
    fmt::print(stderr, "kdet exec: fixing {}: {}\n", f, shell_join(a.command));
  }
  // Ctrl-C at the terminal reaches the command too and is its business; a
  // SIGTERM or a SIGINT sent to kdet ends the command (and what it started).
  engine::install_interrupt_handler(/*leave_terminal_sigint=*/true);
  ExitStatus st;
  pid_t pid = spawn(opt, st);
  if (pid < 0) {
    // env(1) and timeout(1)'s convention: 127 when the command is not found, 126 when it is
    // there but cannot be run (not executable, a folder, a bad interpreter).
    fmt::print(stderr, "kdet exec: cannot run {}: {}\n", a.command[0], st.error);
    return st.code == ENOENT ? 127 : 126;
  }
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (a.timeout_seconds > 0)
    deadline = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(static_cast<long long>(a.timeout_seconds * 1000));
  st = wait_child(pid, deadline, engine::interrupt_fd());
  if (engine::interrupted()) throw Interrupted();
  switch (st.kind) {
  case ExitStatus::Kind::exited:
    return st.code;
  case ExitStatus::Kind::signaled:
    return 128 + st.signal;
  case ExitStatus::Kind::timed_out:
    fmt::print(stderr, "kdet exec: {} ran past --timeout and was killed\n", a.command[0]);
    return 124;
  default:
    throw Error::format("cannot run {}: {}", a.command[0], st.describe());
  }
}

} // namespace

void add_exec(CLI::App& root, Action& action) {
  auto args = std::make_shared<ExecArgs>();
  auto* cmd = root.add_subcommand(
      "exec", "Run a command with the factors that make compiles repeatable held fixed");
  std::string fixes;
  for (const auto& f : perturb::factor_registry())
    if (f.exec_fix) fixes += fmt::format("  {:<11} {}\n", f.name, f.exec_help);
  fixes += fmt::format("  {:<11} only PATH, HOME, USER, TERM, CUDA_HOME, LD_LIBRARY_PATH, "
                       "PYTHONPATH, TMPDIR and --keep-env\n",
                       k_env_fix);
  const std::string defaults = fmt::format("{}", fmt::join(default_fixes(), ","));
  cmd->footer(
      fmt::format("Fixes (--fix, comma-separated; default {}):\n", defaults) + fixes +
      "  all         every one of them\n"
      "Each factor is fixed as kdet run's fixed level of it fixes it (the same variables,\n"
      "libraries and settings: perturb/presets.cpp); env is kdet exec's own.\n"
      "Exit status: the command's (128+N when killed by signal N; 124 after --timeout;\n"
      "127 when the command is not found, 126 when it cannot be run; 2 for kdet's own usage\n"
      "errors), as env(1) and timeout(1) do.\n"
      "SIGTERM, or a SIGINT sent to kdet, ends the command and all it started (exit 130);\n"
      "Ctrl-C at the terminal is left to the command. Nothing it starts outlives kdet.\n"
      "Example: kdet exec --deterministic -- python3 compile_kernels.py");
  cmd->add_flag("--deterministic", args->deterministic, "Hold the chosen factors fixed (required)");
  cmd->add_option("--fix", args->fix,
                  fmt::format("Which factors to fix (default {}; 'all' for every one)", defaults));
  cmd->add_option("--keep-env", args->keep_env,
                  "With --fix env: also keep this variable (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option(
      "--time", args->time,
      "With --fix time: the instant the command sees, as 'YYYY-MM-DD hh:mm:ss' in its time "
      "zone (default: 2020-01-01 00:00:00 UTC, kdet run's time=fixed)");
  cmd->add_option("--timeout", args->timeout_seconds,
                  "Kill the command after this many seconds (default: never)")
      ->check(real_option(k_timeout_range));
  cmd->add_flag("--print", args->print, "Say on stderr what is fixed before running");
  cmd->add_option("command", args->command, "The command and its arguments (after --)")->required();
  cmd->callback([args, &action] { action = [args] { return do_exec(*args); }; });
}

} // namespace kdet::cli
