//===- cli/output.cpp - --json, --color and --quiet, decided once ----------===//
#include "kdet/cli/output.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <cmath>
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

ProgressMode decide_progress(bool quiet, bool forced, const TerminalFacts& err) {
  if (quiet) return ProgressMode::off;
  // A redrawn line needs \r and ESC[K, which a dumb terminal cannot do; a log file
  // or a pipe gets plain lines, and only when asked for.
  if (err.tty) return err.term == "dumb" ? ProgressMode::lines : ProgressMode::redraw;
  return forced ? ProgressMode::lines : ProgressMode::off;
}

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<uint64_t>(std::llround(seconds));
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

std::string progress_tail(uint64_t runs, double elapsed_seconds, double eta_seconds, bool count) {
  double rate = elapsed_seconds > 0 ? static_cast<double>(runs) / elapsed_seconds : 0;
  std::string s = count ? fmt::format("{} run{}, ", runs, runs == 1 ? "" : "s") : "";
  s += fmt::format("{:.1f} runs/s, elapsed {}", rate, clock_text(elapsed_seconds));
  if (!std::isnan(eta_seconds)) s += ", ETA " + clock_text(eta_seconds);
  return s;
}

ProgressLine::ProgressLine(ProgressMode mode, std::FILE* out)
    : m_mode(mode), m_out(out), m_start(std::chrono::steady_clock::now()), m_shown(m_start) {}

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void ProgressLine::show(const std::string& text, bool last) {
  if (m_mode == ProgressMode::off) return;
  auto now = std::chrono::steady_clock::now();
  auto gap = m_mode == ProgressMode::redraw
                 ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::milliseconds(100))
                 : std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       k_progress_line_interval);
  if (!last && m_any && now - m_shown < gap) return;
  if (m_mode != ProgressMode::redraw && m_any && text == m_line) return;
  m_any = true;
  m_shown = now;
  if (m_mode == ProgressMode::redraw) {
    fmt::print(m_out, "\r\033[K{}{}", text, last ? "\n" : "");
  } else {
    fmt::print(m_out, "{}\n", text);
    m_line = text;
  }
  std::fflush(m_out);
}

void ProgressLine::clear() {
  if (m_mode == ProgressMode::redraw && m_any) {
    fmt::print(m_out, "\r\033[K");
    std::fflush(m_out);
  }
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
  // --json /dev/stdout (or /proc/self/fd/1, or the file stdout goes to) is stdout: the text
  // report moves to stderr, so stdout stays one JSON document.
  if (names_stdout(m_args.json_path)) m_args.json_path = "-";
  m_color = decide_color(parse_color_mode(args.color), terminal_facts(::fileno(text_stream())));
  m_progress = decide_progress(args.quiet, false, terminal_facts(2));
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
  // Reports quote compilers' messages and names: no escape sequence of theirs reaches the
  // terminal or a CI log (kdet's own colours are kept).
  if (!m_args.quiet) fmt::print(text_stream(), "{}", terminal_text(text, color()));
}

} // namespace kdet::cli
