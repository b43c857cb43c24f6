//===- cli/main.hpp - entry point and subcommand table ---------------------===//
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace kdet::cli {

// Runs kdet with the given arguments and returns the process exit code.
int kdet_main(int argc, char** argv);

// A parsed subcommand's work; returns the exit code.
using Action = std::function<int()>;

// One subcommand: `add` registers it (and its options) on the root app and
// stores the action to run when it is the one chosen.
struct CommandSpec {
  const char* name;
  void (*add)(CLI::App& root, Action& action);
};

// The table of subcommands (cli/commands.cpp); one line per command file.
const std::vector<CommandSpec>& command_table();

// The exact command line kdet was started with, shell-quoted (recorded in results).
const std::string& invocation();

// Prints "kdet: error: MESSAGE" on stderr: the one place that says it (the message may hold
// names from files, so its control characters are made visible).
void print_error(std::string_view message);

} // namespace kdet::cli
