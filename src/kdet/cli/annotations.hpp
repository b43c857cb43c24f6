//===- cli/annotations.hpp - --annotations: GitHub workflow commands on stderr ===//
//
// `::error file=F,line=L,title=T::message` lines, which a GitHub Actions runner shows
// on the file they name and in the job's summary (GitHub's "workflow commands"). One
// per thing that fails the gate: a varied bundle, a failed pipeline, a kernel that
// differs between builds, a pair where B varies or fails. Other CI systems see plain
// lines on stderr.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/builds.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/scan/labels.hpp"

#include <string>
#include <vector>

namespace kdet::cli {

// One "::error ...::message\n" line: `file` "" for none, `line` 0 for none; the
// message's and properties' special characters escaped as GitHub reads them.
std::string annotation(const std::string& title, const std::string& file, size_t line,
                       const std::string& message);

// kdet capture: the failed pipeline, no compile captured, each varied bundle.
std::string capture_annotations(const capture::CaptureResult& r);

// kdet capture --builds and capture compare: each failed build, each kernel not the same.
std::string builds_annotations(const capture::BuildsResult& r);

// kdet compare: each pair where B varies (regressed, nondeterministic-both, hidden) or B failed.
std::string compare_annotations(const std::vector<scan::Pairing>& pairs);

} // namespace kdet::cli
