#include "kdet/perturb/setting.hpp"

#include "kdet/util/error.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

const char* to_string(ProcessMode m) { return m == ProcessMode::same ? "same" : "fresh"; }
const char* to_string(HeapMode m) { return m == HeapMode::none ? "none" : "churn"; }

ProcessMode parse_process(const std::string& v, const std::string& option) {
  if (v == "same") return ProcessMode::same;
  if (v == "fresh") return ProcessMode::fresh;
  throw Error::format("{}: '{}' is not valid; use same or fresh", option, v);
}

HeapMode parse_heap(const std::string& v, const std::string& option) {
  if (v == "none") return HeapMode::none;
  if (v == "churn") return HeapMode::churn;
  throw Error::format("{}: '{}' is not valid; use none or churn", option, v);
}

bool parse_aslr(const std::string& v, const std::string& option) {
  if (v == "on") return true;
  if (v == "off") return false;
  throw Error::format("{}: '{}' is not valid; use on or off", option, v);
}

std::string describe(const Setting& s) {
  std::string out = fmt::format("process={} heap={} aslr={} threads={}", to_string(s.process),
                                to_string(s.heap), s.aslr ? "on" : "off", s.threads);
  for (const auto& e : s.env) out += " env:" + e;
  out += fmt::format(" seed={:#x}", s.seed);
  return out;
}

nlohmann::json to_json(const Setting& s) {
  return {{"process", to_string(s.process)}, {"heap", to_string(s.heap)},
          {"aslr", s.aslr ? "on" : "off"},   {"threads", s.threads},
          {"env", s.env},                    {"seed", fmt::format("{:#x}", s.seed)}};
}

bool all_fixed(const Setting& s) {
  return s.process == ProcessMode::fresh && s.heap == HeapMode::none && !s.aslr && s.threads == 0;
}

} // namespace kdet::perturb
