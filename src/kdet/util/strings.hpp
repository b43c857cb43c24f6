//===- util/strings.hpp - small text helpers --------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdet {

// Splits a command template into argv the way a POSIX shell splits words,
// without running a shell: whitespace separates, '...' and "..." quote,
// backslash escapes. Throws Error naming the template when a quote is open.
std::vector<std::string> split_command(std::string_view text);

// Replaces {name} placeholders in `text` with values; an unknown name is left as is.
std::string substitute(std::string_view text, const std::map<std::string, std::string>& values);

// "1.5 KiB", "3.2 MiB"
std::string human_bytes(uint64_t bytes);

// "12 ms", "1.23 s", "2 min 3 s"
std::string human_seconds(double seconds);

// "8.9%", "0.31%", "<0.01%"
std::string percent(double fraction);

// Parses a non-negative integer; nullopt on any junk.
std::optional<uint64_t> parse_u64(std::string_view text);

// Parses "0x..." or decimal.
std::optional<uint64_t> parse_seed(std::string_view text);

// "1 loop", "3 loops": a count with its noun, plural unless the count is 1 (`plural` when the
// plural is not noun + "s").
std::string plural(uint64_t n, std::string_view noun, std::string_view plural_form = {});

bool starts_with(std::string_view s, std::string_view prefix);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

// Shell-quotes argv for display so that a printed command can be pasted back.
std::string shell_join(const std::vector<std::string>& argv);

// First line of `text`, trimmed.
std::string first_line(std::string_view text);

// True when `s` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s);

// `s` as valid UTF-8 for JSON and terminals: valid sequences are kept, and each
// byte that is not part of one becomes the character of the same value
// (U+0080..U+00FF, as Latin-1 reads it), so a Latin-1 name "caf\xe9" shows as
// "café" instead of failing the whole report. docs/ARCHITECTURE.md states it.
std::string utf8_safe(std::string_view s);

// `j` with every string and object key made utf8_safe (numbers, bools kept).
nlohmann::json utf8_safe_json(const nlohmann::json& j);

// j.dump(indent) of utf8_safe_json(j): never throws on names, options or
// environment values that are not UTF-8. Every JSON kdet writes goes through it.
std::string json_text(const nlohmann::json& j, int indent = 2);

// XML and HTML text (element content and attribute values): & < > " ' escaped,
// bytes mapped as utf8_safe does, and the characters XML 1.0 forbids (controls
// other than tab, newline and carriage return; U+FFFE, U+FFFF) shown as their
// Control Pictures sign (U+2400 + c) or U+FFFD, so the document always parses.
std::string xml_text(std::string_view s);

// Text from outside kdet (a capture folder's records, names, paths, compiler messages) made
// safe to print on a terminal or into a CI log: bytes mapped as utf8_safe does, and every
// control character but tab and newline shown as an escape, "\x1b" for C0 and DEL, "\u009b"
// for C1, so that no escape sequence in the text can retitle a terminal, move its cursor or
// hide lines. With `keep_color`, kdet's own colour sequences (ESC [ N m, N among reset, bold,
// dim and the foreground colours) are kept; every other ESC is shown.
std::string terminal_text(std::string_view s, bool keep_color = false);

} // namespace kdet
