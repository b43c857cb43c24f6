//===- stats/evidence.cpp - what "no variance seen" is worth, in one phrasing -===//
#include "kdet/stats/evidence.hpp"

#include "kdet/stats/stats.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>

namespace kdet::stats {

uint64_t runs_to_catch() {
  return runs_to_detect(k_rate_of_interest, k_catch_probability);
}

bool excludes_rate_of_interest(double upper_bound) {
  return upper_bound < k_rate_of_interest;
}

std::string no_variance_seen(uint64_t n, std::string_view unit, std::string_view subject) {
  const std::string units = n == 1 ? std::string(unit) : std::string(unit) + "s";
  const std::string bound = percent(upper_bound(0, n));
  if (n == 0) return fmt::format("no {} made: nothing seen", std::string(unit) + "s");
  if (subject.empty())
    return fmt::format("no variance seen in {} {}: a rate above {} would have shown (95% "
                       "confidence)",
                       n, units, bound);
  return fmt::format("no variance seen in {} {}: {} that varies in more than {} of {}s would "
                     "have shown (95% confidence)",
                     n, units, subject, bound, unit);
}

const char* no_variance_word(double upper_bound) {
  return excludes_rate_of_interest(upper_bound) ? "DETERMINISTIC" : "NO VARIANCE SEEN";
}

std::string unseen_rate_clause(double upper_bound) {
  if (excludes_rate_of_interest(upper_bound)) return "";
  return fmt::format("a rate of up to {} could go unseen", percent(upper_bound));
}

} // namespace kdet::stats
