#include "kdet/perturb/setting.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <map>

namespace kdet::perturb {

namespace {

struct LevelSpelling {
  const char* inherit;
  const char* fixed;
  const char* vary;
};

// How each level factor spells its levels on the command line. nullptr: not offered.
const std::map<std::string, LevelSpelling>& spellings() {
  static const std::map<std::string, LevelSpelling> m = {
      {"path", {nullptr, "fixed", "vary"}},       {"cwd", {nullptr, "fixed", "vary"}},
      {"tmpdir", {nullptr, "fixed", "vary"}},     {"time", {"real", "fixed", "vary"}},
      {"locale", {"inherit", "fixed", "vary"}},   {"umask", {"inherit", "fixed", "vary"}},
      {"pid", {nullptr, "fixed", "vary"}},        {"threadvars", {"inherit", "fixed", "vary"}},
      {"mtime", {"real", "fixed", "vary"}},       {"tz", {"inherit", "fixed", "vary"}},
      {"home", {"inherit", "fixed", "vary"}},     {"cpus", {"inherit", "fixed", "vary"}},
      {"hostname", {"inherit", "fixed", "vary"}}, {"hashseed", {"random", "fixed", "vary"}},
  };
  return m;
}

} // namespace

const std::vector<std::string>& level_factor_names() {
  static const std::vector<std::string> names = {"path",  "cwd",  "tmpdir",     "time",    "locale",
                                                 "umask", "pid",  "threadvars", "mtime",   "tz",
                                                 "home",  "cpus", "hostname",   "hashseed"};
  return names;
}

const char* to_string(ProcessMode m) {
  return m == ProcessMode::same ? "same" : m == ProcessMode::fresh ? "fresh" : "both";
}
const char* to_string(HeapMode m) {
  return m == HeapMode::none ? "none" : m == HeapMode::churn ? "churn" : "chaos";
}

std::string level_name(const std::string& factor, Level level) {
  auto it = spellings().find(factor);
  if (it == spellings().end()) return "?";
  const char* s = level == Level::inherit ? it->second.inherit
                  : level == Level::fixed ? it->second.fixed
                                          : it->second.vary;
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
  const auto& sp = spellings().at(factor);
  std::string valid;
  for (const char* s : {sp.inherit, sp.fixed, sp.vary}) {
    if (!s) continue;
    if (v == s)
      return s == sp.inherit ? Level::inherit : s == sp.fixed ? Level::fixed : Level::vary;
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

Level& level_of(Setting& s, const std::string& f) {
  if (f == "path") return s.path;
  if (f == "cwd") return s.cwd;
  if (f == "tmpdir") return s.tmpdir;
  if (f == "time") return s.time;
  if (f == "locale") return s.locale;
  if (f == "umask") return s.umask;
  if (f == "pid") return s.pid;
  if (f == "threadvars") return s.threadvars;
  if (f == "mtime") return s.mtime;
  if (f == "tz") return s.tz;
  if (f == "home") return s.home;
  if (f == "cpus") return s.cpus;
  if (f == "hostname") return s.hostname;
  if (f == "hashseed") return s.hashseed;
  throw Error::format("unknown factor '{}'", f);
}

Level level_of(const Setting& s, const std::string& f) {
  return level_of(const_cast<Setting&>(s), f);
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
  for (const char* f : {"mtime", "tz", "home", "cpus", "hostname", "hashseed"})
    if (level_of(s, f) == Level::inherit) j.erase(f);
  nlohmann::json ev = nlohmann::json::object();
  for (const auto& [k, vals] : s.env_vary)
    ev[k] = vals;
  j["env_vary"] = ev;
  // Only when set, so settings stored before it existed compare equal.
  if (s.history > 0) j["history"] = s.history;
  return j;
}

bool all_fixed(const Setting& s) {
  if (!(s.process == ProcessMode::fresh && s.heap == HeapMode::none && !s.aslr && s.threads == 0))
    return false;
  // pid is left out: it differs between processes by nature unless --pid fixed.
  for (const auto& f : level_factor_names())
    if (f != "pid" && level_of(s, f) == Level::vary) return false;
  return s.env_vary.empty();
}

} // namespace kdet::perturb
