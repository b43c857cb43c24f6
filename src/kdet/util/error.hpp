//===- util/error.hpp - errors that reach the user ------------------------===//
//
// Where failing is ordinary, code returns Result<T> or Status (util/result.hpp).
// kdet::Error is thrown where the command cannot go on: in util/ only for a
// file, folder or text the user named that cannot be read or written (the
// message names it); the single catch in cli/main.cpp prints "kdet: error: ..."
// and exits with the error's code. A failure of the compiler under test is
// never an Error: it is a recorded run outcome.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace kdet {

// Process exit codes; scripts and CI depend on them (documented in --help).
enum ExitCode : int {
  k_exit_deterministic = 0,
  k_exit_nondeterministic = 1,
  k_exit_usage = 2,
  k_exit_compiler_failed = 3,
  k_exit_internal = 70, // a bug in kdet (sysexits' EX_SOFTWARE): never a user's or compiler's fault
  k_exit_interrupted = 130,
};

// An error to show the user. Its message names the file, line or option at
// fault and, where it helps, what would be valid.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message, int exit_code = k_exit_usage)
      : std::runtime_error(message), m_exit_code(exit_code) {}

  template <typename... Args> static Error format(fmt::format_string<Args...> f, Args&&... args) {
    return Error(fmt::format(f, std::forward<Args>(args)...));
  }

  int exit_code() const { return m_exit_code; }

private:
  int m_exit_code;
};

// Thrown when the user interrupted (SIGINT/SIGTERM); maps to exit 130.
class Interrupted : public Error {
public:
  Interrupted() : Error("interrupted", k_exit_interrupted) {}
};

} // namespace kdet
