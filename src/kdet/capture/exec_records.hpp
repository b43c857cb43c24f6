//===- capture/exec_records.hpp - command compiles in the record logs -------===//
//
// kdet-exec-shim records a command compile (ptxas, nvcc, --exec NAME) in the
// same log format as library compiles, with kind "exec" and a few keys of its
// own (docs/CAPTURE.md): the program is the "library", the input files named in
// argv are inputs tagged "file", and argv with {input}/{output} placeholders is
// the options.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kdet {
class Hasher;
}

namespace kdet::capture {

struct Compile;

// What only a command compile has.
struct ExecInfo {
  std::string argv0, cwd;
  std::vector<std::string> args; // argv[1..] as given
  std::vector<std::string> env;  // NAME=VALUE, the recorded variables
  std::string status;            // "exited 0", "signaled 9"; empty: unfinished
  std::vector<std::pair<std::string, std::string>> outputs; // (kind, path as given)
};

// The names `kdet capture` always captures as commands.
const std::vector<std::string>& default_exec_names();

// True when `name` is usable with --exec: a base name of letters, digits and . _ + -
// (not "." or "..").
bool valid_exec_name(const std::string& name);

// Applies one line of a kind-exec record ("argv0", "arg", "cwd", "env", "file",
// "status", "output_file"); false when it is not one of these.
bool apply_exec_line(Compile& c, const std::vector<std::string>& w);

// Adds what identifies a command compile beyond kind, program, inputs and
// options: the recorded environment except TMPDIR.
void add_exec_identity(Hasher& h, const Compile& c);

// File name (no folder) for a command's input in a bundle: the base name it was
// given, reduced to safe characters ("input" when nothing is left).
std::string exec_input_name(const std::optional<std::string>& given);

// JSON `exec` of a compile entry: argv0, args, cwd, env, status, outputs, and
// ppid (the process that ran the command: the pipeline, or nvcc for its children).
nlohmann::json exec_json(const Compile& c);

} // namespace kdet::capture
