//===- report/builds_report.hpp - builds compared kernel by kernel -----------===//
//
// The renderings of capture::BuildsResult (`kdet capture --builds N`, `kdet
// capture compare`): a terminal summary in the census's terms ("5 of 6491
// kernels differ across 3 builds"), JSON (schema kdet.builds/2), JUnit XML (a
// test case per kernel) and a self-contained HTML triage page; and the JUnit
// of one plain capture.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/builds.hpp"
#include "kdet/capture/output.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace kdet::report {

// Version 3 says nondeterministic where version 2 said varies (a kernel's status, by_status,
// first_varying_stage, final_output_varies); kdet reads no builds document back.
inline constexpr const char* k_builds_schema = "kdet.builds/3";

// The summary; at most `max_listed` kernels that are not "same" are listed one by one.
std::string builds_to_text(const capture::BuildsResult& r, bool color, size_t max_listed = 40);

nlohmann::json builds_to_json(const capture::BuildsResult& r);

// One testsuite, one testcase per kernel: "same" passes, every other status is a failure
// whose message is the status and the first varying stage.
std::string builds_to_junit(const capture::BuildsResult& r);

// kdet capture --junit (one pipeline run): a test case per bundle named by its kernels (a
// failure for one that varied), and an error case where the pipeline failed or captured
// nothing: the cases fail as capture_exit_code does.
std::string capture_to_junit(const capture::CaptureResult& r);

// One page: the summary, then a table of every kernel (status, target, compiler, first
// varying stage, classification, final artifact), sortable and filterable by status.
std::string builds_to_html(const capture::BuildsResult& r);

// The exit code a builds comparison gives: 3 when a build's pipeline failed or no build
// captured a compile, 1 when a kernel is not "same", 0 otherwise.
int builds_exit_code(const capture::BuildsResult& r);

} // namespace kdet::report
