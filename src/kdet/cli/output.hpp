//===- cli/output.hpp - --json, --color and --quiet, decided once ----------===//
//
// Every command that reports shares the same three choices: where its JSON
// goes (a file, written safely, or stdout), whether its text is coloured, and
// whether it prints at all. They are made here, once, so that NO_COLOR, TERM=dumb
// and "JSON on stdout moves the text to stderr" mean the same in every command.
// The progress line of run, explain and scan is drawn here too, in one format.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kdet::cli {

enum class ColorMode { automatic, always, never };

// Parses "auto", "always" or "never"; throws Error naming `option` otherwise.
ColorMode parse_color_mode(const std::string& s, const std::string& option = "--color");

// What the colour decision looks at besides the mode, gathered so the decision is testable.
struct TerminalFacts {
  bool tty = false;     // the text's stream is a terminal
  std::string no_color; // $NO_COLOR ("" when unset)
  std::string term;     // $TERM ("" when unset)
};

// always: colour; never: none; automatic: only on a terminal that is not TERM=dumb,
// and not when NO_COLOR is set to a non-empty value (https://no-color.org).
bool decide_color(ColorMode mode, const TerminalFacts& facts);

// The facts for `fd` from isatty and this process's environment.
TerminalFacts terminal_facts(int fd);

// How a command shows its progress on stderr.
enum class ProgressMode {
  off,    // nothing
  redraw, // one line redrawn in place with \r and ESC[K (a terminal that can)
  lines   // plain lines: no \r, no escape codes, at most one every k_progress_line_interval
};

// A plain progress line at most this often (the last one always): CI logs stay short.
inline constexpr std::chrono::seconds k_progress_line_interval{10};

// off when quiet; redraw on a terminal that is not TERM=dumb; lines on a dumb terminal, and
// off a terminal when `forced` (scan --progress); off otherwise.
ProgressMode decide_progress(bool quiet, bool forced, const TerminalFacts& err);

// A duration in one steady format: "0:07", "1:03", "59:59", "1:02:03" (m:ss below an
// hour, h:mm:ss from then on), whole seconds; "?" when negative or not finite.
std::string clock_text(double seconds);

// "N runs, R runs/s, elapsed E, ETA T": the rate with one decimal, E and T as clock_text;
// the ETA part is left out when `eta_seconds` is not given (NaN), the count when not `count`
// (a line that shows it already).
std::string progress_tail(uint64_t runs, double elapsed_seconds, double eta_seconds,
                          bool count = true);

// One command's progress line on stderr, in a ProgressMode. Not thread-safe: the
// callers' callbacks already come one at a time.
class ProgressLine {
public:
  explicit ProgressLine(ProgressMode mode, std::FILE* out = stderr);
  ProgressMode mode() const { return m_mode; }
  bool on() const { return m_mode != ProgressMode::off; }
  // Seconds since construction.
  double elapsed() const;
  // Shows `text`: redrawn at most 10 times a second, or as a plain line at most every
  // k_progress_line_interval (the first at once); `last` always shows it, and ends
  // a redrawn line with a newline. A plain line the same as the one before is not repeated.
  void show(const std::string& text, bool last = false);
  // Clears a redrawn line (the report follows on a clean line); nothing in other modes.
  void clear();

private:
  ProgressMode m_mode;
  std::FILE* m_out;
  std::chrono::steady_clock::time_point m_start, m_shown;
  bool m_any = false;
  std::string m_line; // the last plain line: the same text twice in a row is written once
};

// The options as parsed; register them with the add_*_option functions.
struct OutputArgs {
  std::string json_path; // empty: no JSON; "-": stdout
  std::string color = "auto";
  bool quiet = false;
};

// --json FILE: "Write `what` as JSON (schema `schema`, unless empty) to FILE, or - for stdout".
void add_json_option(CLI::App* cmd, OutputArgs& o, const std::string& what,
                     const std::string& schema);

// --color auto|always|never, with NO_COLOR and TERM=dumb named in its help.
void add_color_option(CLI::App* cmd, OutputArgs& o);

// --quiet,-q with the command's own meaning in `help`.
void add_quiet_option(CLI::App* cmd, OutputArgs& o, const std::string& help);

// One command's output decisions, made when it starts reporting.
class Output {
public:
  explicit Output(const OutputArgs& args);

  // True when --json - takes stdout, so the text goes to stderr (or nowhere).
  bool json_to_stdout() const { return m_args.json_path == "-"; }
  bool quiet() const { return m_args.quiet; }
  // Where the text report goes: stdout, or stderr when JSON takes stdout.
  FILE* text_stream() const { return json_to_stdout() ? stderr : stdout; }
  // Whether the text report is coloured (decided for text_stream()).
  bool color() const { return m_color; }
  // How progress shows on stderr (decide_progress, not forced).
  ProgressMode progress() const { return m_progress; }

  // Writes `j` (json_text, then a newline) to stdout or, through write_output (which
  // never replaces a device node or follows a planted link), to the --json file.
  // Does nothing when --json was not given.
  void write_json(const nlohmann::json& j) const;

  // Prints `text` to text_stream() unless --quiet.
  void print_text(std::string_view text) const;

private:
  OutputArgs m_args;
  bool m_color = false;
  ProgressMode m_progress = ProgressMode::off;
};

} // namespace kdet::cli
