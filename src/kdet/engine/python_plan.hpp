//===- engine/python_plan.hpp - a run plan for a Python-hosted stage ----------===//
//
// For callers that have a stage in hand rather than a command line (a capture replay of a
// tapped stage): the plan `kdet run INPUT --py FILE:FUNCTION [--python PY] -- OPTIONS` makes,
// before its factors are set (cli's resolve_factor_args, or a scan's setting).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <string>
#include <vector>

namespace kdet::engine {

// The plan that calls `function` of the stage `file` with the bytes of `input_path` and
// `options`, in `python` (empty: python3 on PATH), `runs` times; its setting is the library
// backends' default (process both, heap churn) until the caller sets one. Throws Error naming
// the part at fault (a missing file, a bad function name, no interpreter).
RunPlan python_stage_plan(const std::string& file, const std::string& function,
                          const std::string& input_path, const std::vector<std::string>& options,
                          const std::string& python = "", uint64_t runs = 32);

} // namespace kdet::engine
