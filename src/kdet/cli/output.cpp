//===- cli/output.cpp - --json, --color and --quiet, decided once ----------===//
#include "kdet/cli/output.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace kdet::cli {

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

} // namespace

ColorMode parse_color_mode(const std::string& s, const std::string& option) {
  if (s == "auto") return ColorMode::automatic;
  if (s == "always") return ColorMode::always;
  if (s == "never") return ColorMode::never;
  throw Error::format("{} {}: valid values are auto, always and never", option, s);
}

bool decide_color(ColorMode mode, const TerminalFacts& facts) {
  switch (mode) {
  case ColorMode::always:
    return true;
  case ColorMode::never:
    return false;
  case ColorMode::automatic:
    break;
  }
  // NO_COLOR set but empty does not count (no-color.org).
  return facts.tty && facts.no_color.empty() && facts.term != "dumb";
}

TerminalFacts terminal_facts(int fd) {
  return {::isatty(fd) == 1, env_or_empty("NO_COLOR"), env_or_empty("TERM")};
}

void add_json_option(CLI::App* cmd, OutputArgs& o, const std::string& what,
                     const std::string& schema) {
  std::string kind = schema.empty() ? "" : fmt::format(" (schema {})", schema);
  cmd->add_option("--json", o.json_path,
                  fmt::format("Write {} as JSON{} to FILE, or - for stdout", what, kind));
}

void add_color_option(CLI::App* cmd, OutputArgs& o) {
  cmd->add_option("--color", o.color,
                  "Colour: auto (on a terminal, unless NO_COLOR is set non-empty or TERM=dumb), "
                  "always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void add_quiet_option(CLI::App* cmd, OutputArgs& o, const std::string& help) {
  cmd->add_flag("--quiet,-q", o.quiet, help);
}

Output::Output(const OutputArgs& args) : m_args(args) {
  m_color = decide_color(parse_color_mode(args.color), terminal_facts(::fileno(text_stream())));
  TerminalFacts err = terminal_facts(2);
  // A progress line redraws itself with \r and ESC[K, which a dumb terminal cannot do.
  m_progress = !args.quiet && err.tty && err.term != "dumb";
  // Refused now, not after the runs (the result would be lost).
  check_output_path(args.json_path, "--json");
}

void Output::write_json(const nlohmann::json& j) const {
  if (m_args.json_path.empty()) return;
  std::string text = json_text(j) + "\n";
  if (json_to_stdout())
    fmt::print("{}", text);
  else
    write_output(m_args.json_path, text, "--json");
}

void Output::print_text(std::string_view text) const {
  if (!m_args.quiet) fmt::print(text_stream(), "{}", text);
}

} // namespace kdet::cli
