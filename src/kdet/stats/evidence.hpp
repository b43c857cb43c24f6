//===- stats/evidence.hpp - what "no variance seen" is worth, in one phrasing -===//
//
// Every command that saw no variance says so in the same words, with the rate
// that would have shown: run, explain, capture, builds and scan. The rate users
// care about, and the runs a default spends to catch it, live here too, so the
// verdict's word and the default run count follow from one rule.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kdet::stats {

// The rate kdet's defaults are sized for: 1 compile in 16 (6.25 %), the rate of the seed
// report (22 of 360 runs) and of address-following compilers seen since.
constexpr double k_rate_of_interest = 1.0 / 16;
// The probability with which a default run catches that rate: n runs miss it with probability
// (15/16)^n, at most 1 % from n = 72.
constexpr double k_catch_probability = 0.99;
// Runs that catch k_rate_of_interest with k_catch_probability: 72.
uint64_t runs_to_catch();

// Whether an upper bound (95 %) on the variance rate excludes k_rate_of_interest: then one
// output may be called deterministic (no differing run in n runs: from n = 47).
bool excludes_rate_of_interest(double upper_bound);

// The one phrasing of n trials in which nothing varied, with the rate that would have shown
// (the 95 % bound, upper_bound(0, n)); `unit` names a trial ("run", "build", "job's run") and
// `subject`, when given, what varies:
//   no_variance_seen(32, "run")  "no variance seen in 32 runs: a rate above 8.9% would have
//                                 shown (95% confidence)"
//   no_variance_seen(10, "build", "a kernel")  "no variance seen in 10 builds: a kernel that
//                                 varies in more than 26% of builds would have shown (95%
//                                 confidence)"
std::string no_variance_seen(uint64_t n, std::string_view unit, std::string_view subject = {});

// The verdict words when no run differed: "DETERMINISTIC" where the bound excludes
// k_rate_of_interest, else "NO VARIANCE SEEN".
const char* no_variance_word(double upper_bound);

// What the bound leaves open when it does not exclude k_rate_of_interest: "a rate of up to
// 8.9% could go unseen"; "" when it does.
std::string unseen_rate_clause(double upper_bound);

} // namespace kdet::stats
