//===- store/run_dir.hpp - the --out folder of `kdet run` --------------------===//
//
// Layout (documented in docs/RUN.md, step 7):
//   DIR/result.json                  the same document as --json (kdet.run/1)
//   DIR/runs.jsonl                   one line per run: its full record
//   DIR/variants/<id12>/<artifact>   one file per artifact of each variant
//   DIR/variants/<id12>/failure.txt  how a failing outcome failed, with its log
//   DIR/logs/<loghash12>.txt         each distinct compiler log, once
// runs.jsonl is appended as each run finishes (a SIGKILLed run keeps the runs
// done), then rewritten in run order with the rest at the end. Files are
// written atomically, reached from DIR's fd without following links; an
// existing result is never overwritten. The readers of the folder (kdet diff's
// variants) live here too, beside the writer. What a record looks like in JSON is
// the caller's to say (report/run_report's record_to_json): the store only files it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace kdet::store {

// One run's record as a line of runs.jsonl (the kdet.run/1 record).
using RecordToJson = std::function<nlohmann::json(const engine::RunRecord&)>;

// Throws Error (exit 2) when `dir` already holds a kdet result or cannot be made.
void prepare_run_dir(const std::string& dir);

// A RunPlan::on_record callback appending each finished run to DIR/runs.jsonl
// (created here: O_EXCL, never through a link); throws Error when it cannot be made.
// A failed append is told once to `warn` (the file is rewritten whole at the end).
std::function<void(const engine::RunRecord&)>
run_log_appender(const std::string& dir, RecordToJson to_json,
                 std::function<void(const std::string&)> warn);

// Writes the whole result into `dir` (prepared before the runs started).
void write_run_dir(const std::string& dir, const engine::RunOutput& out,
                   const nlohmann::json& result, const RecordToJson& to_json);

// Folder name of a variant inside DIR/variants.
std::string variant_dir_name(const std::string& id);

// The folder of the variant of `dir` named by `id` (exact, or either one a prefix of the
// other); throws Error naming `dir` when it is not a run folder, or none or several match.
std::string resolve_variant(const std::string& dir, const std::string& id);

// The ids and run counts of DIR/result.json's variants, most common first; throws Error
// naming the file when it is unreadable or not a kdet result.
std::vector<std::pair<std::string, uint64_t>> variants_by_count(const std::string& dir);

// The ids of the two most common variants of DIR/result.json; throws Error naming the
// file when it is unreadable, not a kdet result, or holds fewer than two variants.
std::pair<std::string, std::string> two_most_common_variants(const std::string& dir);

} // namespace kdet::store
