//===- report/explain_report.hpp - kdet explain's table and conclusion ------===//
#pragma once

#include "kdet/engine/explain.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace kdet::report {

inline constexpr const char* k_explain_schema = "kdet.explain/1";

nlohmann::json explain_to_json(const engine::ExplainOptions& opt, const engine::ExplainResult& r);
std::string explain_to_text(const engine::ExplainOptions& opt, const engine::ExplainResult& r,
                            bool color, const std::string& input_display);

} // namespace kdet::report
