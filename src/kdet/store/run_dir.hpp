//===- store/run_dir.hpp - the --out folder of `kdet run` --------------------===//
//
// Layout (documented in docs/ARCHITECTURE.md):
//   DIR/result.json                  the same document as --json (kdet.run/1)
//   DIR/runs.jsonl                   one line per run: its full record
//   DIR/variants/<id12>/<artifact>   one file per artifact of each variant
//   DIR/variants/<id12>/failure.txt  how a failing outcome failed, with its log
//   DIR/logs/<loghash12>.txt         each distinct compiler log, once
// runs.jsonl is appended as each run finishes (a SIGKILLed run keeps the runs
// done), then rewritten in run order with the rest at the end. Files are
// written atomically, reached from DIR's fd without following links; an
// existing result is never overwritten.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace kdet::store {

// Throws Error (exit 2) when `dir` already holds a kdet result or cannot be made.
void prepare_run_dir(const std::string& dir);

// A RunPlan::on_record callback appending each finished run to DIR/runs.jsonl
// (created here: O_EXCL, never through a link); throws Error when it cannot be made.
std::function<void(const engine::RunRecord&)> run_log_appender(const std::string& dir);

// Writes the whole result into `dir` (prepared before the runs started).
void write_run_dir(const std::string& dir, const engine::RunOutput& out,
                   const nlohmann::json& result);

// Folder name of a variant inside DIR/variants.
std::string variant_dir_name(const std::string& id);

} // namespace kdet::store
