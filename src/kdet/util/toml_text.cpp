//===- util/toml_text.cpp - TOML text to toml++, bounded first -----------------===//
#include "kdet/util/toml_text.hpp"

#include "kdet/util/error.hpp"

#include <fmt/format.h>
#include <vector>

namespace kdet {

namespace {

// What toml++ reads as part of a bare key, and more (any byte that ends nothing): counting a
// stray byte as a key part only counts more.
bool bare(char c) {
  return std::string_view(" \t\r\n.=\"'[]{},#").find(c) == std::string_view::npos;
}

// Reads TOML text for its depth alone: strings and comments skipped, keys counted by parts.
class DepthScan {
public:
  DepthScan(std::string_view s, size_t max) : m_s(s), m_max(max) {}

  TomlDepth run() {
    while (m_i < m_s.size() && m_found.line == 0)
      step();
    return m_found;
  }

private:
  struct Open {
    char kind;    // '[' an array, '{' an inline table
    size_t depth; // its own depth
  };

  char at(size_t k) const { return k < m_s.size() ? m_s[k] : '\0'; }

  void exceed(int line, size_t depth) {
    if (depth > m_max && m_found.line == 0) m_found = {line, depth};
  }

  void step() {
    const char c = m_s[m_i];
    if (c == '\n') {
      ++m_line;
      ++m_i;
      if (m_open.empty()) m_want_key = true; // a new line outside any value: a key or a header
      return;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++m_i;
      return;
    }
    if (c == '#') {
      while (m_i < m_s.size() && m_s[m_i] != '\n')
        ++m_i;
      return;
    }
    if (m_want_key)
      key_place(c);
    else
      value_place(c);
  }

  // Where a key may start: a line's start, or in an inline table after '{' or ','.
  void key_place(char c) {
    if (c == '[' && m_open.empty()) { // [table] or [[array of tables]]
      const int line = m_line;
      ++m_i;
      if (at(m_i) == '[') ++m_i;
      // Two a part: each may name an array of tables, whose last table the header goes into.
      m_table = 2 * key_parts();
      exceed(line, m_table);
      return; // the closing brackets and the rest of the line are read as a key's place still
    }
    if (c == '}' && !m_open.empty()) { // {} or a trailing ','
      close();
      return;
    }
    if (bare(c) || c == '"' || c == '\'') {
      const int line = m_line;
      const size_t container = m_open.empty() ? m_table : m_open.back().depth;
      m_next = container + key_parts();
      exceed(line, m_next);
      m_want_key = false;
      return;
    }
    ++m_i; // not TOML here: toml++ stops at it
  }

  void value_place(char c) {
    if (c == '"' || c == '\'') {
      skip_string();
      return;
    }
    if (c == '[' || c == '{') {
      exceed(m_line, m_next);
      m_open.push_back({c, m_next});
      ++m_i;
      if (c == '[')
        m_next = m_open.back().depth + 1;
      else
        m_want_key = true;
      return;
    }
    if (c == ']' || c == '}') {
      if (!m_open.empty())
        close();
      else
        ++m_i;
      return;
    }
    if (c == ',' && !m_open.empty() && m_open.back().kind == '{') m_want_key = true;
    ++m_i;
  }

  // Past a closing bracket: after a value in what encloses it.
  void close() {
    m_open.pop_back();
    ++m_i;
    m_want_key = false;
    if (!m_open.empty() && m_open.back().kind == '[') m_next = m_open.back().depth + 1;
  }

  // A key at m_i: its parts, each bare or quoted, between dots; m_i left after the last.
  size_t key_parts() {
    size_t parts = 0;
    for (;;) {
      while (at(m_i) == ' ' || at(m_i) == '\t')
        ++m_i;
      const char c = at(m_i);
      if (c == '"' || c == '\'') {
        skip_string();
      } else if (m_i < m_s.size() && bare(c)) {
        while (m_i < m_s.size() && bare(m_s[m_i]))
          ++m_i;
      } else {
        break;
      }
      ++parts;
      while (at(m_i) == ' ' || at(m_i) == '\t')
        ++m_i;
      if (at(m_i) != '.') break;
      ++m_i;
    }
    return parts;
  }

  // A string at m_i ("basic", 'literal', """multi-line""" or '''multi-line'''); m_i left after
  // it, or at the line's end where a one-line string is not closed.
  void skip_string() {
    const char q = m_s[m_i];
    const bool escapes = q == '"';
    if (at(m_i + 1) == q && at(m_i + 2) == q) {
      m_i += 3;
      while (m_i < m_s.size()) {
        const char c = m_s[m_i];
        if (c == '\n') ++m_line;
        if (escapes && c == '\\') {
          if (at(m_i + 1) == '\n') ++m_line;
          m_i += 2;
          continue;
        }
        if (c == q && at(m_i + 1) == q && at(m_i + 2) == q) {
          while (at(m_i) == q) // up to two quotes of the string's own end before the delimiter
            ++m_i;
          return;
        }
        ++m_i;
      }
      return;
    }
    ++m_i;
    while (m_i < m_s.size() && m_s[m_i] != '\n') {
      const char c = m_s[m_i];
      if (escapes && c == '\\' && at(m_i + 1) != '\n') {
        m_i += 2;
        continue;
      }
      ++m_i;
      if (c == q) return;
    }
  }

  std::string_view m_s;
  size_t m_max;
  size_t m_i = 0;
  int m_line = 1;
  bool m_want_key = true;
  size_t m_table = 0; // the depth of the last [table] header's table (0: the root)
  size_t m_next = 0;  // the depth the next value takes
  std::vector<Open> m_open;
  TomlDepth m_found;
};

} // namespace

TomlDepth toml_too_deep(std::string_view text, size_t max_depth) {
  return DepthScan(text, max_depth).run();
}

toml::table parse_toml(const std::string& text, const std::string& path) {
  if (TomlDepth d = toml_too_deep(text); d.line > 0)
    throw Error(fmt::format(
        "{}:{}: nested {} deep (each part of a dotted key, each array and each inline table "
        "counts one, each part of a [table] header two); kdet reads TOML nested at most {} deep",
        path, d.line, d.depth, k_toml_max_depth));
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto line = e.source().begin.line;
    throw Error(line > 0 ? fmt::format("{}:{}: not valid TOML: {}", path, line, e.description())
                         : fmt::format("{}: not valid TOML: {}", path, e.description()));
  }
}

} // namespace kdet
