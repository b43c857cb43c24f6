#include "kdet/cli/main.hpp"

#include "kdet/cli/launcher.hpp"
#include "kdet/cli/parse_errors.hpp"
#include "kdet/engine/worker_main.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/faketime_shm.hpp"
#include "kdet/util/reap.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/sysinfo.hpp"
#include "kdet/util/tempdir.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

constexpr const char* k_footer = R"(Exit codes:
  0    deterministic: every run gave the same output (or nothing unexpected)
  1    nondeterminism found (more than one distinct outcome), or a failed gate
  2    usage or input error (the message names the option, file or line)
  3    the compiler failed (error, crash or timeout) on every run, or a captured
       pipeline failed (non-zero exit, killed) or captured no compile
  130  interrupted; what was recorded so far is kept
  70   internal error in kdet itself (a bug: please report it)

Where a command differs, its --help says so (README, "Exit status").
Run `kdet help COMMAND` (or `kdet COMMAND --help`) for a command's options.)";

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// ninja-style: an unknown command gets the closest known name.
void check_command_name(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::string name = argv[1];
  std::string best;
  size_t best_d = 3;
  for (const auto& c : command_table()) {
    if (name == c.name) return;
    size_t d = edit_distance(name, c.name);
    if (d < best_d) {
      best_d = d;
      best = c.name;
    }
  }
  if (!best.empty()) throw Error::format("unknown command '{}'; did you mean '{}'?", name, best);
  std::string names;
  for (const auto& c : command_table())
    names += std::string(names.empty() ? "" : ", ") + c.name;
  throw Error::format("unknown command '{}'; commands are: {}", name, names);
}

// For a parse error: the first --option the chosen command does not take, named with what to use
// instead (the commands that do take it, or explain's own way). Empty when every option is known.
std::string misplaced_option(CLI::App& app, int argc, char** argv) {
  if (argc < 3) return "";
  CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(argv[1]);
  } catch (const CLI::Error&) {
    return "";
  }
  int first = 2;
  std::string path = sub->get_name();
  // Nested commands (`kdet cache gc`): the options belong to the innermost one named.
  while (first < argc) {
    CLI::App* inner = nullptr;
    try {
      inner = sub->get_subcommand(argv[first]);
    } catch (const CLI::Error&) {
    }
    if (!inner) break;
    sub = inner;
    path += " " + sub->get_name();
    ++first;
  }
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) continue;
    std::string name = arg.substr(0, arg.find('='));
    if (name == "--help" || sub->get_option_no_throw(name)) continue;
    std::string takers;
    for (CLI::App* other : app.get_subcommands([](CLI::App*) { return true; }))
      if (other != sub && other->get_option_no_throw(name))
        takers += (takers.empty() ? "kdet " : ", kdet ") + other->get_name();
    std::string msg = fmt::format("kdet {} does not take {}", path, name);
    if (sub->get_name() == "explain" && perturb::find_factor(name.substr(2)))
      msg += fmt::format(
          ": explain varies and fixes {} itself; choose the factors it tests with --factors or "
          "--skip (e.g. --skip {})",
          name.substr(2), name.substr(2));
    else if (!takers.empty())
      msg += fmt::format(" (it is an option of {})", takers);
    return msg + fmt::format("; see `kdet {} --help`", path);
  }
  return "";
}

// An option given an empty value ('--json ""', '--process ""') would otherwise read as not given
// and run with its default: a typo or an unset shell variable must not change the experiment
// silently. Positionals (compiler options after --) may be empty; flags take no value.
void reject_empty_values(CLI::App& app) {
  std::string path = "kdet";
  for (CLI::App* sub = &app; sub;) {
    if (sub != &app) path += " " + sub->get_name();
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_positional() || opt->get_type_size_max() == 0 || opt->count() == 0) continue;
      const auto& longs = opt->get_lnames();
      std::string name = longs.empty() ? opt->get_name() : "--" + longs.front();
      for (const auto& r : opt->results())
        if (r.empty())
          throw Error::format(
              "{}: an empty value is not valid; give a value or leave the option out "
              "(see `{} --help`)",
              name, path);
    }
    auto subs = sub->get_subcommands();
    sub = subs.empty() ? nullptr : subs.front();
  }
}

} // namespace

const std::string& invocation() {
  return command_line();
}

namespace {

int dispatch(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  set_command_line(shell_join(std::vector<std::string>(argv, argv + argc)));
  // `kdet cc nvcc -c k.cu -o k.o`: the compiler's own arguments, not kdet's options.
  if (is_cc_launcher(argc, argv)) return cc_launcher_main(argc, argv);

  CLI::App app{"kdet: finds, measures, explains and contains nondeterminism in GPU kernel "
               "compilers.",
               "kdet"};
  app.set_version_flag("--version", std::string("kdet ") + k_version);
  app.require_subcommand(1);
  app.footer(k_footer);
  Action action;
  for (const auto& c : command_table())
    c.add(app, action);

  // `kdet help [COMMAND...]` is `kdet [COMMAND...] --help`.
  std::vector<char*> args(argv, argv + argc);
  std::string help_flag = "--help";
  if (argc >= 2 && std::strcmp(argv[1], "help") == 0) {
    args.erase(args.begin() + 1);
    args.push_back(help_flag.data());
    argc = static_cast<int>(args.size());
    argv = args.data();
  }
  try {
    check_command_name(argc, argv);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::string misplaced = misplaced_option(app, argc, argv);
      throw Error(misplaced.empty() ? explain_parse_error(app, e, argc, argv) : misplaced);
    }
    reject_empty_values(app);
    if (!action) throw Error("no command given; try `kdet --help`");
    return action();
  } catch (const Interrupted&) {
    fmt::print(stderr, "kdet: interrupted\n");
    return k_exit_interrupted;
  } catch (const Error& e) {
    print_error(e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "kdet: internal error: {}\n", terminal_text(e.what()));
    return k_exit_internal;
  }
}

} // namespace

void print_error(std::string_view message) {
  fmt::print(stderr, "kdet: error: {}\n", terminal_text(message));
}

int kdet_main(int argc, char** argv) {
  // Workers take a fast path: no option parsing library, no extra allocations
  // before the compile call, so fresh workers all reach it in the same state.
  if (argc >= 2 && std::strcmp(argv[1], engine::k_worker_command) == 0)
    return engine::worker_main(argc, argv);

  // Nothing outlives kdet: orphans of its workers and compilers (setsid,
  // double fork) are handed to kdet rather than to init, and ended before it
  // exits; what a killed kdet left in TMPDIR and /dev/shm goes now.
  note_inherited_fds(); // before kdet opens anything: the caller's, for capture and exec
  raise_open_file_limit();
  become_subreaper();
  sweep_stale_temp_dirs();
  sweep_stale_faketime_objects();
  int rc = dispatch(argc, argv);
  kill_orphans();
  return rc;
}

} // namespace kdet::cli
