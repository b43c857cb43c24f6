//===- report/explain_report.hpp - kdet explain's table and conclusion ------===//
#pragma once

#include "kdet/capture/replay.hpp"
#include "kdet/engine/explain.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace kdet::report {

inline constexpr const char* k_explain_schema = "kdet.explain/1";

// The result as JSON (schema kdet.explain/1); `replay`, when given, adds the replayed capture
// bundle ("replay": its id, folder and library).
nlohmann::json explain_to_json(const engine::ExplainOptions& opt, const engine::ExplainResult& r,
                               const capture::ReplayPlan* replay = nullptr);
// The table and conclusion a person reads.
std::string explain_to_text(const engine::ExplainOptions& opt, const engine::ExplainResult& r,
                            bool color, const std::string& input_display);

} // namespace kdet::report
