//===- backend/python_stage.hpp - a Python stage's parts, checked -------------===//
//
// What `--py FILE.py:FUNCTION [--python PY]` and a scan manifest's `backend = "python"` name,
// checked in the driver before any worker starts (the worker side is backend/python.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"

#include <string>

namespace kdet::backend {

// Checks a Python stage: `file` a readable regular file, `function` a Python name, `python` an
// interpreter found in PATH (empty: python3). On success fills `config` (kind python, the file
// absolute, the interpreter's absolute path) and returns ""; else says what is wrong, naming
// the part ("file stage.py: No such file or directory").
std::string python_stage_config(const std::string& file, const std::string& function,
                                const std::string& python, BackendConfig& config);

// Splits "FILE.py:FUNCTION" at its last colon; false when either part is empty.
bool split_python_spec(const std::string& spec, std::string& file, std::string& function);

} // namespace kdet::backend
