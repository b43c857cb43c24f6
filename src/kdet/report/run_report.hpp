//===- report/run_report.hpp - a run's result for people and for programs ----===//
#pragma once

#include "kdet/engine/differences.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace kdet::report {

inline constexpr const char* k_run_schema = "kdet.run/1";

// The whole result as JSON (schema kdet.run/1), with every run's record when
// `with_records` is set. `input_hash` names the input's content. `reaches`, when given, adds
// each variant's reach ("reach") and their census ("reach_census"). `replay`, when given, is
// the "replay" section (capture::replay_json: a replayed bundle's captured outputs).
nlohmann::json run_to_json(const engine::RunOutput& out, const engine::Assessment& a,
                           const std::string& input_hash, bool with_records,
                           const engine::VariantReaches* reaches = nullptr,
                           const nlohmann::json* replay = nullptr);

// One run's record as JSON (a line of runs.jsonl).
nlohmann::json record_to_json(const engine::RunRecord& r);

// The summary a person reads in five seconds; with `reaches`, a reach line under each
// variant that has one (and their census when there are two or more).
std::string run_to_text(const engine::RunOutput& out, const engine::Assessment& a, bool color,
                        const std::string& input_display,
                        const engine::VariantReaches* reaches = nullptr);

// "fewer than 8.9% of runs would differ, at 95% confidence"
std::string bound_sentence(double upper_bound, double confidence);

} // namespace kdet::report
