//===- scan/failures.hpp - a scan's failed jobs, grouped by how they failed ----===//
//
// A census through a compiler too old for its inputs fails thousands of jobs the same way. The
// reports show one line per group (how many, which compiler, kdet's description such as
// "ptxas exited 255", and the compiler's first error line), and list the jobs only on demand.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/store/scan_result.hpp"

#include <string>
#include <vector>

namespace kdet::scan {

// Jobs that failed the same way: the same compiler, status, description and the compiler's
// first error line once the input's paths and line numbers are made generic
// (engine::generic_failure).
struct FailureGroup {
  std::string compiler;
  std::string status;  // backend::Status spelling of the jobs' most common outcome
  std::string detail;  // kdet's description ("/usr/local/cuda/bin/ptxas exited 255")
  std::string message; // the compiler's first error line, generic; "" when it printed nothing
  std::vector<const store::JobRow*> jobs; // in the result's order
};

// The failed jobs (JobStatus::failed) of `r`, grouped; the largest group first, ties in the order
// of their first job. The groups point into `r`.
std::vector<FailureGroup> group_failures(const store::ScanResult& r);

// "compile-error: ptxas exited 255: ptxas <file>, line N; fatal : Unsupported .version 9.0"
// (status, description, message; the parts that are empty left out).
std::string describe(const FailureGroup& g);

} // namespace kdet::scan
