//===- engine/compiler_log.cpp - the compiler's own words about a failure -----===//
#include "kdet/engine/compiler_log.hpp"

#include "kdet/util/strings.hpp"

#include <cctype>

namespace kdet::engine {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Whether `line` names an error, in the words compilers use (ASCII, any case).
bool says_error(std::string_view line) {
  std::string low(line);
  for (char& c : low)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.find("error") != std::string::npos || low.find("fatal") != std::string::npos;
}

// A character that ends a path word in a compiler's message ("x.ptx, line 3;", "'/a/b':").
bool ends_path(char c) {
  return blank(c) || c == ',' || c == ';' || c == ':' || c == '\'' || c == '"' || c == ')' ||
         c == '(' || c == '\n';
}

} // namespace

std::string first_error_line(std::string_view log) {
  std::string_view first;
  size_t at = 0;
  while (at < log.size()) {
    size_t end = log.find('\n', at);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(at, end - at);
    at = end + 1;
    std::string t = trim(line);
    if (t.empty()) continue;
    if (first.empty()) first = line;
    if (says_error(t)) {
      first = line;
      break;
    }
  }
  std::string t = trim(first);
  if (t.size() > 300) t.resize(300);
  return utf8_safe(t);
}

std::string generic_failure(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    // A word starting with '/' after a blank or a quote (or at the start) is a path.
    bool word_start = i == 0 || ends_path(line[i - 1]);
    if (c == '/' && word_start) {
      while (i < line.size() && !ends_path(line[i]))
        ++i;
      out += "<file>";
      continue;
    }
    if (blank(c)) {
      while (i < line.size() && blank(line[i]))
        ++i;
      out += ' ';
      continue;
    }
    // "line 12" (ptxas, nvcc), "line N" after it.
    if (line.compare(i, 5, "line ") == 0 && i + 5 < line.size() &&
        std::isdigit(static_cast<unsigned char>(line[i + 5])) != 0) {
      out += "line N";
      i += 5;
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) != 0)
        ++i;
      continue;
    }
    out += c;
    ++i;
  }
  return trim(out);
}

} // namespace kdet::engine
