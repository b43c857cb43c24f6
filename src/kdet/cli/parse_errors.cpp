//===- cli/parse_errors.cpp - CLI11's parse errors, said for a user ---------===//
//
// CLI11 reports "A subcommand is required", "The following argument was not
// expected: -arch=compute_90a" or "--runs: At Most 1 required but received 2".
// Each kind of parse error is turned here into a sentence that names the option
// or argument at fault and the fix, with the command's --help to read next.
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/parse_errors.hpp"

#include "kdet/cli/main.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::cli {

namespace {

std::string command_names() {
  std::string names;
  for (const auto& c : command_table())
    names += std::string(names.empty() ? "" : ", ") + c.name;
  return names;
}

// The innermost command named on the command line (`kdet cache gc ...` gives gc) and its words.
struct Chosen {
  CLI::App* app = nullptr;
  std::string path; // "run", "cache gc"
};

Chosen chosen_command(CLI::App& root, int argc, char** argv) {
  Chosen c;
  int i = 1;
  // Options before the command name belong to the root (only --help and --version exist).
  while (i < argc && argv[i][0] == '-')
    ++i;
  for (CLI::App* cur = &root; i < argc; ++i) {
    CLI::App* inner = nullptr;
    try {
      inner = cur->get_subcommand(argv[i]);
    } catch (const CLI::Error&) {
    }
    if (!inner) break;
    cur = inner;
    c.app = inner;
    c.path += (c.path.empty() ? "" : " ") + inner->get_name();
  }
  return c;
}

// The option of `app` that CLI11 names "--runs" (or a positional's "input").
const CLI::Option* find_option(CLI::App* app, const std::string& name) {
  if (!app) return nullptr;
  for (const CLI::Option* o : app->get_options())
    if (o->get_name() == name || o->check_name(name)) return o;
  return nullptr;
}

// "--runs" for an option, "INPUT" for a positional.
std::string shown_name(const CLI::Option* o) {
  if (o->get_positional()) {
    std::string n = o->get_name();
    for (auto& ch : n)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return n;
  }
  const auto& longs = o->get_lnames();
  return longs.empty() ? o->get_name() : "--" + longs.front();
}

bool takes_compiler_options(CLI::App* app) {
  return find_option(app, "compiler_options") || find_option(app, "command") ||
         find_option(app, "cmd_template");
}

std::string see_help(const Chosen& c) {
  return c.app ? fmt::format("see `kdet {} --help`", c.path) : "see `kdet --help`";
}

// The words CLI11 lists after "not expected: " (it joins them in reverse).
std::vector<std::string> extra_words(const std::string& what) {
  auto at = what.find("expected: ");
  if (at == std::string::npos) return {};
  std::vector<std::string> words = split(what.substr(at + 10), ' ');
  std::reverse(words.begin(), words.end());
  return words;
}

std::string extras_message(const Chosen& c, const std::string& what) {
  std::vector<std::string> words = extra_words(what);
  if (words.empty()) return what;
  const std::string& w = words.front();
  if (!c.app) {
    if (w.starts_with("-"))
      return fmt::format("kdet does not take {} before a command; options go after the command "
                         "name (kdet COMMAND [OPTIONS]); commands are: {}",
                         w, command_names());
    return fmt::format("unknown command '{}'; commands are: {}", w, command_names());
  }
  // `kdet cc -v nvcc -c k.cu -o k.o`: kdet's options before the compiler turn launcher mode off.
  if (w.starts_with("-") && c.path == "cc")
    return fmt::format(
        "{} is not an option of kdet cc. As a launcher (kdet cc COMPILER ARGS..., nothing "
        "before COMPILER) set kdet's options in the environment: KDET_CACHE_VERBOSE=1, "
        "KDET_CACHE_DIR, KDET_CACHE_VERIFY_RATE, KDET_CACHE_ON_VARIANTS, KDET_CACHE_KEY_ENV; "
        "with a template, the compiler and its options go after `--`: kdet cc [OPTIONS] INPUT "
        "-o OUT -- COMPILER {} ...; {}",
        w, w, see_help(c));
  if (w.starts_with("-") && takes_compiler_options(c.app))
    return fmt::format("{} is not an option of kdet {}; put the compiler's options after `--`: "
                       "kdet {} [OPTIONS] INPUT -- {}; {}",
                       w, c.path, c.path, w, see_help(c));
  if (w.starts_with("-"))
    return fmt::format("kdet {} does not take {}; {}", c.path, w, see_help(c));
  return fmt::format("kdet {}: unexpected argument '{}' (one too many); {}", c.path, w,
                     see_help(c));
}

std::string required_message(const Chosen& c, const std::string& what) {
  if (what.starts_with("A subcommand") || what.starts_with("Requires at least")) {
    if (!c.app)
      return fmt::format("no command given; commands are: {}; see `kdet --help` or `kdet help "
                         "COMMAND`",
                         command_names());
    std::string subs;
    for (const CLI::App* s : c.app->get_subcommands([](CLI::App*) { return true; }))
      subs += std::string(subs.empty() ? "" : ", ") + s->get_name();
    return fmt::format("kdet {} needs a subcommand: {}; {}", c.path, subs, see_help(c));
  }
  std::string name = what.substr(0, what.find(" is required"));
  const CLI::Option* o = find_option(c.app, name);
  if (!o) return fmt::format("{}; {}", what, see_help(c));
  std::string desc = o->get_description();
  return fmt::format("kdet {} needs {}{}; {}", c.path, shown_name(o),
                     desc.empty() ? "" : " (" + desc + ")", see_help(c));
}

std::string mismatch_message(const Chosen& c, const std::string& what) {
  std::string name = what.substr(0, what.find(':'));
  const CLI::Option* o = find_option(c.app, name);
  std::string shown = o ? shown_name(o) : name;
  if (what.find("At Most") != std::string::npos)
    return fmt::format("{} is given more than once; give it once; {}", shown, see_help(c));
  if (what.find("missing") != std::string::npos || what.find("At least") != std::string::npos)
    return fmt::format("{} needs a value, e.g. {}=VALUE; {}", shown, shown, see_help(c));
  return fmt::format("{}; {}", what, see_help(c));
}

std::string conversion_message(const Chosen& c, const std::string& what) {
  // "Could not convert: --quiet = abc" or "--quiet: too many inputs for a flag".
  std::string name = what.starts_with("Could not convert: ") ? what.substr(19) : what;
  name = name.substr(0, name.find_first_of(" :"));
  const CLI::Option* o = find_option(c.app, name);
  if (o && (o->get_expected_max() == 0 || o->get_type_name().empty()))
    return fmt::format("{} is a flag and takes no value: give {} alone; {}", shown_name(o),
                       shown_name(o), see_help(c));
  return fmt::format("{}; {}", what, see_help(c));
}

std::string validation_message(const Chosen& c, const std::string& what) {
  // CLI::IsMember says "--backend: abc not in {nvvm,nvrtc}".
  auto not_in = what.find(" not in {");
  auto colon = what.find(": ");
  if (not_in != std::string::npos && colon != std::string::npos && colon < not_in) {
    std::string values = what.substr(not_in + 9);
    if (!values.empty() && values.back() == '}') values.pop_back();
    return fmt::format("{}: '{}' is not valid; use one of {}; {}", what.substr(0, colon),
                       what.substr(colon + 2, not_in - colon - 2),
                       fmt::join(split(values, ','), ", "), see_help(c));
  }
  return what;
}

} // namespace

std::string explain_parse_error(CLI::App& root, const CLI::ParseError& e, int argc, char** argv) {
  Chosen c = chosen_command(root, argc, argv);
  const std::string what = e.what();
  // `kdet --bogus`: CLI11 says only that a command is missing.
  if (!c.app && argc >= 2 && argv[1][0] == '-')
    return extras_message(c, std::string("expected: ") + argv[1]);
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return extras_message(c, what);
  if (dynamic_cast<const CLI::RequiredError*>(&e)) return required_message(c, what);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) return mismatch_message(c, what);
  if (dynamic_cast<const CLI::ConversionError*>(&e)) return conversion_message(c, what);
  if (dynamic_cast<const CLI::ValidationError*>(&e)) return validation_message(c, what);
  return fmt::format("{}; {}", what, see_help(c));
}

} // namespace kdet::cli
