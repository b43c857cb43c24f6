//===- backend/python_stage.cpp - a Python stage's parts, checked -------------===//
#include "kdet/backend/python_stage.hpp"

#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

bool python_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

} // namespace

bool split_python_spec(const std::string& spec, std::string& file, std::string& function) {
  const auto colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) return false;
  file = spec.substr(0, colon);
  function = spec.substr(colon + 1);
  return true;
}

std::string python_stage_config(const std::string& file, const std::string& function,
                                const std::string& python, BackendConfig& config) {
  if (!python_identifier(function))
    return fmt::format("function '{}' is not a Python function name", function);
  struct stat st {};
  if (::access(file.c_str(), R_OK) != 0 || ::stat(file.c_str(), &st) != 0)
    return fmt::format("file {}: {}", file, std::strerror(errno));
  // Python would wait for ever on a FIFO's writer, in a worker kdet then waits on.
  if (!S_ISREG(st.st_mode))
    return fmt::format("file {}: not a regular file; give the stage's Python file", file);
  const std::string py = python.empty() ? "python3" : python;
  std::string exe = find_program(py);
  if (exe.empty())
    return fmt::format("interpreter '{}' not found in PATH{}", py,
                       python.empty() ? " (python3 is the default; name another)" : "");
  config.kind = Kind::python;
  config.lib = absolute_path(file);
  config.function = function;
  config.python = absolute_path(exe);
  config.command.clear();
  config.output_ext.clear();
  return {};
}

} // namespace kdet::backend
