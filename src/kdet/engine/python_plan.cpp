//===- engine/python_plan.cpp - a run plan for a Python-hosted stage ----------===//
#include "kdet/engine/python_plan.hpp"

#include "kdet/backend/python_stage.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kdet::engine {

RunPlan python_stage_plan(const std::string& file, const std::string& function,
                          const std::string& input_path, const std::vector<std::string>& options,
                          const std::string& python, uint64_t runs) {
  RunPlan plan;
  if (std::string why = backend::python_stage_config(file, function, python, plan.backend);
      !why.empty())
    throw Error::format("Python stage {}:{}: {}", file, function, why);
  if (::access(input_path.c_str(), R_OK) != 0)
    throw Error::format("input {}: {}", input_path, std::strerror(errno));
  plan.input_path = absolute_path(input_path);
  plan.options = options;
  plan.runs = runs;
  plan.setting.process = perturb::ProcessMode::both;
  plan.setting.heap = perturb::HeapMode::churn;
  return plan;
}

} // namespace kdet::engine
