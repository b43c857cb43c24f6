//===- cli/parse_errors.hpp - CLI11's parse errors, said for a user ---------===//
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kdet::cli {

// The message for a parse error of `kdet argv...`: names the option, argument or command at
// fault and the fix (e.g. compiler options after `--`), and the --help to read.
std::string explain_parse_error(CLI::App& root, const CLI::ParseError& e, int argc, char** argv);

} // namespace kdet::cli
