//===- util/strings.hpp - small text helpers --------------------------------===//
#pragma once

#include <cstdint>
#include <map>
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

bool starts_with(std::string_view s, std::string_view prefix);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

// Shell-quotes argv for display so that a printed command can be pasted back.
std::string shell_join(const std::vector<std::string>& argv);

// First line of `text`, trimmed.
std::string first_line(std::string_view text);

} // namespace kdet
