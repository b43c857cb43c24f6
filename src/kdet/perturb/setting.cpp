#include "kdet/perturb/setting.hpp"

#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::perturb {

const std::vector<std::string>& level_factor_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& f : factor_registry())
      if (f.levels[1] != nullptr) v.push_back(f.name);
    return v;
  }();
  return names;
}

const char* to_string(ProcessMode m) {
  return m == ProcessMode::same ? "same" : m == ProcessMode::fresh ? "fresh" : "both";
}
const char* to_string(HeapMode m) {
  return m == HeapMode::none ? "none" : m == HeapMode::churn ? "churn" : "chaos";
}

std::string level_name(const std::string& factor, Level level) {
  const FactorInfo* f = find_factor(factor);
  if (f == nullptr) return "?";
  const char* s = f->levels[static_cast<size_t>(level)];
  return s ? s : "?";
}

ProcessMode parse_process(const std::string& v, const std::string& option) {
  if (v == "same") return ProcessMode::same;
  if (v == "fresh") return ProcessMode::fresh;
  if (v == "both") return ProcessMode::both;
  throw Error::format("{}: '{}' is not valid; use both, same or fresh", option, v);
}

HeapMode parse_heap(const std::string& v, const std::string& option) {
  if (v == "none") return HeapMode::none;
  if (v == "churn") return HeapMode::churn;
  if (v == "chaos") return HeapMode::chaos;
  throw Error::format("{}: '{}' is not valid; use none, churn or chaos", option, v);
}

bool parse_aslr(const std::string& v, const std::string& option) {
  if (v == "on") return true;
  if (v == "off") return false;
  throw Error::format("{}: '{}' is not valid; use on or off", option, v);
}

Level parse_level(const std::string& factor, const std::string& v, const std::string& option) {
  const auto& levels = perturb::factor(factor).levels;
  std::string valid;
  for (size_t i = 0; i < levels.size(); ++i) {
    const char* s = levels[i];
    if (!s) continue;
    if (v == s) return static_cast<Level>(i);
    valid += std::string(valid.empty() ? "" : ", ") + s;
  }
  throw Error::format("{}: '{}' is not valid; use {}", option, v, valid);
}

std::pair<std::string, std::vector<std::string>> parse_env_vary(const std::string& value) {
  auto eq = value.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error::format("--env-vary {}: expected NAME=V1,V2,... (values separated by commas)",
                        value);
  auto values = split(value.substr(eq + 1), ',');
  if (values.size() < 2)
    throw Error::format("--env-vary {}: give at least two values to vary between", value);
  return {value.substr(0, eq), values};
}

namespace {

// The row of level factor `f`; throws Error when `f` is not one.
const FactorInfo& level_row(const std::string& f) {
  const FactorInfo* row = find_factor(f);
  if (row == nullptr || row->levels[1] == nullptr) throw Error::format("unknown factor '{}'", f);
  return *row;
}

} // namespace

Level& level_of(Setting& s, const std::string& f) {
  auto it = s.levels.find(f);
  if (it != s.levels.end()) return it->second;
  return s.levels.emplace(f, level_row(f).start).first->second;
}

Level level_of(const Setting& s, const std::string& f) {
  auto it = s.levels.find(f);
  return it != s.levels.end() ? it->second : level_row(f).start;
}

std::string describe(const Setting& s) {
  std::string out = fmt::format("process={} heap={} aslr={} threads={}", to_string(s.process),
                                to_string(s.heap), s.aslr ? "on" : "off", s.threads);
  if (s.history > 0) out += fmt::format(" history={}", s.history);
  Setting defaults;
  for (const auto& f : level_factor_names())
    if (level_of(s, f) != level_of(defaults, f))
      out += fmt::format(" {}={}", f, level_name(f, level_of(s, f)));
  for (const auto& [k, vals] : s.env_vary)
    out += fmt::format(" env-vary:{}({} values)", k, vals.size());
  for (const auto& e : s.env)
    out += " env:" + e;
  out += fmt::format(" seed={:#x}", s.seed);
  return out;
}

nlohmann::json to_json(const Setting& s) {
  nlohmann::json j = {{"process", to_string(s.process)},
                      {"heap", to_string(s.heap)},
                      {"aslr", s.aslr ? "on" : "off"},
                      {"threads", s.threads},
                      {"env", s.env},
                      {"seed", fmt::format("{:#x}", s.seed)}};
  for (const auto& f : level_factor_names())
    j[f] = level_name(f, level_of(s, f));
  // Only when set, as history below: settings stored before these existed compare equal.
  for (const auto& f : factor_registry())
    if (f.json_when_set && level_of(s, f.name) == Level::inherit) j.erase(f.name);
  nlohmann::json ev = nlohmann::json::object();
  for (const auto& [k, vals] : s.env_vary)
    ev[k] = vals;
  j["env_vary"] = ev;
  // Only when set, so settings stored before it existed compare equal.
  if (s.history > 0) j["history"] = s.history;
  return j;
}

bool all_fixed(const Setting& s) {
  return std::none_of(factor_registry().begin(), factor_registry().end(),
                      [&](const FactorInfo& f) { return f.kdet_varies && varies(f, s); });
}

} // namespace kdet::perturb
