//===- scan/manifest_checker.hpp - typed reads of a manifest's TOML, errors with its line ===//
//
// Internal to scan/'s manifest readers: each read names the manifest and the line at fault and
// what would be valid (exit 2).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/error.hpp"
#include "kdet/util/numbers.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <initializer_list>
#include <string>
#include <toml++/toml.h>
#include <vector>

namespace kdet::scan::manifest_detail {

class Checker {
public:
  explicit Checker(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw Error(line > 0 ? fmt::format("{}:{}: {}", m_path, line, message)
                         : fmt::format("{}: {}", m_path, message));
  }
  static int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

  // Rejects keys not in `allowed`, naming the valid ones.
  void keys(const toml::table& t, std::initializer_list<const char*> allowed,
            const std::string& where) const {
    keys(t, std::vector<std::string>(allowed.begin(), allowed.end()), where);
  }
  void keys(const toml::table& t, const std::vector<std::string>& allowed,
            const std::string& where) const {
    for (auto&& [k, v] : t) {
      bool ok = std::any_of(allowed.begin(), allowed.end(),
                            [&key = k](const std::string& a) { return key.str() == a; });
      if (!ok)
        fail(line_of(v), fmt::format("unknown key '{}' in {}; valid keys: {}", k.str(), where,
                                     fmt::join(allowed, ", ")));
    }
  }

  std::string str(const toml::table& t, const char* key, const std::string& where, bool required,
                  std::string fallback = "") const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail(line_of(t), fmt::format("{} needs '{}' (a string)", where, key));
      return fallback;
    }
    if (!n->is_string()) fail(line_of(*n), fmt::format("{}.{} must be a string", where, key));
    return std::string(*n->value<std::string_view>());
  }

  std::vector<std::string> strs(const toml::table& t, const char* key,
                                const std::string& where) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    if (n->is_string()) return {std::string(*n->value<std::string_view>())};
    const toml::array* a = n->as_array();
    if (!a)
      fail(line_of(*n),
           fmt::format("{}.{} must be an array of strings, e.g. [\"a\", \"b\"]", where, key));
    for (auto&& e : *a) {
      if (!e.is_string())
        fail(line_of(e),
             fmt::format("{}.{} must hold strings only (quote numbers: \"90a\")", where, key));
      out.emplace_back(*e.value<std::string_view>());
    }
    return out;
  }

  // `targets`: strings, none empty or blank, none twice (each would be a job of its own).
  std::vector<std::string> targets(const toml::table& t, const std::string& where) const {
    std::vector<std::string> out = strs(t, "targets", where);
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].find_first_not_of(" \t") == std::string::npos)
        fail(line_of(*t.get("targets")),
             fmt::format("{}.targets holds an empty target; give each as e.g. \"90a\"", where));
      // A target becomes a compiler argument (-arch=compute_{target}): a name, not any text.
      const std::string& g = out[i];
      const bool name = !g.empty() && g.size() <= 32 &&
                        std::isalnum(static_cast<unsigned char>(g[0])) &&
                        std::all_of(g.begin(), g.end(), [](char ch) {
                          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
                                 ch == '.' || ch == '-';
                        });
      if (!name)
        fail(line_of(*t.get("targets")),
             fmt::format("{}.targets: '{}' is not a target name (letters, digits, '_', '.' and "
                         "'-', starting with a letter or digit, at most 32; e.g. \"90a\"): it "
                         "becomes a compiler argument",
                         where, utf8_safe(g)));
      if (std::find(out.begin(), out.begin() + static_cast<long>(i), out[i]) !=
          out.begin() + static_cast<long>(i))
        fail(line_of(*t.get("targets")),
             fmt::format("{}.targets lists '{}' twice", where, utf8_safe(out[i])));
    }
    return out;
  }

  // A number in [lo, hi]: NaN and infinities are refused (they compare false with every bound).
  double num(const toml::table& t, const char* key, const std::string& where, double fallback,
             double lo, double hi, const char* meaning) const {
    return real(t, key, where, fallback, RealRange{lo, hi, false}, meaning);
  }

  double real(const toml::table& t, const char* key, const std::string& where, double fallback,
              const RealRange& range, const char* meaning) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (!n->is_number())
      fail(line_of(*n), fmt::format("{}.{} must be a number: {}", where, key, meaning));
    double v = *n->value<double>();
    if (!check_real(v, range).empty())
      fail(line_of(*n), fmt::format("{}.{} = {}: not valid; give {} ({})", where, key, v,
                                    describe(range), meaning));
    return v;
  }

  // A whole number in `range`: 1.5 is refused rather than truncated.
  uint64_t whole(const toml::table& t, const char* key, const std::string& where, uint64_t fallback,
                 const WholeRange& range, const char* meaning) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (!n->is_number())
      fail(line_of(*n), fmt::format("{}.{} must be a number: {}", where, key, meaning));
    bool bad = n->is_integer() ? *n->value<int64_t>() < 0 ||
                                     static_cast<uint64_t>(*n->value<int64_t>()) < range.lo ||
                                     static_cast<uint64_t>(*n->value<int64_t>()) > range.hi
                               : !check_whole(*n->value<double>(), range).empty();
    if (bad)
      fail(line_of(*n), fmt::format("{}.{} = {}: not valid; give {} ({})", where, key,
                                    n->is_integer() ? fmt::format("{}", *n->value<int64_t>())
                                                    : fmt::format("{}", *n->value<double>()),
                                    describe(range), meaning));
    return n->is_integer() ? static_cast<uint64_t>(*n->value<int64_t>())
                           : static_cast<uint64_t>(*n->value<double>());
  }

  const std::string& path() const { return m_path; }

private:
  std::string m_path;
};

} // namespace kdet::scan::manifest_detail
