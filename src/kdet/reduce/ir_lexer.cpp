//===- reduce/ir_lexer.cpp - names in LLVM/NVVM IR text, as frontends write them ===//
#include "kdet/reduce/ir_lexer.hpp"

#include <cctype>

namespace kdet::reduce::ir {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

namespace {

bool sigil_char(char c) {
  return c == '@' || c == '%' || c == '!' || c == '#';
}

// Past the string literal that opens at s[at] (a '"'): LLVM escapes a quote as \22, so the
// next '"' closes it.
size_t skip_string(const std::string& s, size_t at) {
  size_t close = s.find('"', at + 1);
  return close == std::string::npos ? s.size() : close + 1;
}

} // namespace

bool read_name(const std::string& s, size_t at, Name& out) {
  if (at + 1 >= s.size() || !sigil_char(s[at])) return false;
  char sigil = s[at];
  size_t j = at + 1;
  if (s[j] == '"') {
    if (sigil == '!' || sigil == '#') return false; // !"string": metadata text, no name
    size_t close = s.find('"', j + 1);
    if (close == std::string::npos) return false;
    out = {s.substr(j + 1, close - j - 1), at, close + 1};
    return true;
  }
  while (j < s.size() && ident_char(s[j]))
    ++j;
  if (j == at + 1) return false;
  out = {s.substr(at + 1, j - at - 1), at, j};
  return true;
}

std::string leading_name(const std::string& s, char sigil) {
  Name n;
  if (s.empty() || s[0] != sigil || !read_name(s, 0, n)) return {};
  return n.key;
}

void for_each_name(const std::string& text, char sigil,
                   const std::function<void(const Name&)>& fn) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ';') { // a comment, to the end of the line
      size_t nl = text.find('\n', i);
      i = nl == std::string::npos ? text.size() : nl + 1;
      continue;
    }
    if (c == '"') {
      i = skip_string(text, i);
      continue;
    }
    Name n;
    if (sigil_char(c) && read_name(text, i, n)) {
      if (c == sigil) fn(n);
      i = n.end;
      continue;
    }
    if (ident_char(c)) { // a word (a type, a keyword, `c` before a string): skip it whole
      while (i < text.size() && ident_char(text[i]))
        ++i;
      continue;
    }
    ++i;
  }
}

std::map<std::string, int> name_counts(const std::string& text, char sigil) {
  std::map<std::string, int> out;
  for_each_name(text, sigil, [&](const Name& n) { ++out[n.key]; });
  return out;
}

std::string replace_names(const std::string& text, char sigil,
                          const std::map<std::string, std::string>& to) {
  if (to.empty()) return text;
  std::string out;
  size_t last = 0;
  for_each_name(text, sigil, [&](const Name& n) {
    auto it = to.find(n.key);
    if (it == to.end()) return;
    out.append(text, last, n.begin - last);
    out += it->second;
    last = n.end;
  });
  out.append(text, last, std::string::npos);
  return out;
}

std::string spell(char sigil, const std::string& key) {
  bool bare = !key.empty() && std::isdigit(static_cast<unsigned char>(key[0])) == 0;
  bool digits = !key.empty();
  for (char c : key) {
    bare = bare && ident_char(c);
    digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  if (bare || digits) return std::string(1, sigil) + key;
  return std::string(1, sigil) + "\"" + key + "\"";
}

std::string trim_left(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  return i == std::string::npos ? std::string() : line.substr(i);
}

std::string strip_comment(const std::string& line) {
  size_t i = 0;
  size_t cut = line.size();
  while (i < line.size()) {
    if (line[i] == '"') {
      i = skip_string(line, i);
      continue;
    }
    if (line[i] == ';') {
      cut = i;
      break;
    }
    ++i;
  }
  bool nl = !line.empty() && line.back() == '\n';
  std::string out = line.substr(0, cut);
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())) != 0)
    out.pop_back();
  if (out.empty()) return nl ? std::string("\n") : std::string();
  return nl ? out + "\n" : out;
}

std::string label_of(const std::string& line) {
  if (line.empty()) return {};
  if (line[0] == '"') {
    size_t close = line.find('"', 1);
    if (close == std::string::npos || close + 1 >= line.size() || line[close + 1] != ':') return {};
    return line.substr(1, close - 1);
  }
  size_t i = 0;
  while (i < line.size() && ident_char(line[i]))
    ++i;
  if (i == 0 || i >= line.size() || line[i] != ':') return {};
  return line.substr(0, i);
}

std::string function_name(const std::string& line) {
  Name n;
  for (size_t at = line.find('@'); at != std::string::npos; at = line.find('@', at + 1))
    if (read_name(line, at, n)) return n.key;
  return {};
}

bool opens_body(const std::string& line) {
  std::string t = strip_comment(line);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back())) != 0)
    t.pop_back();
  return !t.empty() && t.back() == '{';
}

bool numbered(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  return true;
}

} // namespace kdet::reduce::ir
