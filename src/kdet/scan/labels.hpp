//===- scan/labels.hpp - compare two compilers job by job ----------------------===//
//
// The same (input, target, option set) under compiler A and compiler B gets
// one label: identical (deterministic in both, same output), changed
// (deterministic in both, other output), fixed (varied in A, not in B),
// regressed (not in A, varies in B), varies-both, failed (a side failed on
// every run) or missing (a side has no finished job for it).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/store/scan_result.hpp"

#include <array>
#include <string>
#include <vector>

namespace kdet::scan {

enum class Label { identical, changed, fixed, regressed, varies_both, failed, missing };
inline constexpr std::array<Label, 7> k_all_labels = {
    Label::identical,   Label::changed, Label::fixed,  Label::regressed,
    Label::varies_both, Label::failed,  Label::missing};

// "identical", "changed", "fixed", "regressed", "varies-both", "failed", "missing".
const char* to_string(Label label);

// The label of one pair (either may be null: missing).
Label label_pair(const store::JobRow* a, const store::JobRow* b);

struct Pairing {
  std::string key; // "input target option_set"
  const store::JobRow* a = nullptr;
  const store::JobRow* b = nullptr;
  Label label = Label::missing;
};

// Pairs A's jobs of compiler `ca` with B's jobs of compiler `cb` on (input,
// target, option set). `a_jobs` and `b_jobs` may be the same list.
std::vector<Pairing> pair_jobs(const std::vector<store::JobRow>& a_jobs, const std::string& ca,
                               const std::vector<store::JobRow>& b_jobs, const std::string& cb);

// Counts per label, in k_all_labels order.
std::array<size_t, 7> count_labels(const std::vector<Pairing>& pairs);

// Exit code of a comparison: 1 when anything regressed, else 0.
int compare_exit_code(const std::vector<Pairing>& pairs);

} // namespace kdet::scan
