//===- reduce/names.cpp - short stand-ins for long mangled names --------------===//
#include "kdet/reduce/names.hpp"

#include "kdet/reduce/ir_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kdet::reduce {

namespace {

bool ptx_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

// `_ZN6cudapy8__main__5saxpyB2v1...E__errcode__` -> "cudapy_saxpy__errcode__": the nested
// components of an Itanium name that do not start with '_', and a `__word__` tail.
std::string stand_in(const std::string& name) {
  std::string out;
  size_t p = 0;
  if (name.rfind("_ZN", 0) == 0 || name.rfind("_Z", 0) == 0) {
    p = name[2] == 'N' ? 3 : 2;
    while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p])) != 0) {
      size_t q = p;
      while (q < name.size() && std::isdigit(static_cast<unsigned char>(name[q])) != 0)
        ++q;
      size_t len = std::stoul(name.substr(p, q - p));
      if (q + len > name.size()) break;
      std::string part = name.substr(q, len);
      if (!part.empty() && part[0] != '_') out += (out.empty() ? "" : "_") + part;
      p = q + len;
    }
  }
  std::string clean;
  for (char c : out)
    clean += ptx_ident_char(c) ? c : '_';
  if (clean.empty() || std::isdigit(static_cast<unsigned char>(clean[0])) != 0) {
    for (char c : name.substr(0, 12))
      clean += ptx_ident_char(c) ? c : '_';
  }
  // numba's globals beside a kernel: the kernel's name and a `__errcode__`-like tail.
  if (name.size() > 6 && name.compare(name.size() - 2, 2, "__") == 0) {
    size_t q = name.rfind("__", name.size() - 3);
    bool word = q != std::string::npos && q + 4 < name.size() && name.size() - q < 24;
    for (size_t i = q + 2; word && i + 2 < name.size(); ++i)
      word = std::isalnum(static_cast<unsigned char>(name[i])) != 0;
    if (word) clean += name.substr(q);
  }
  return clean;
}

std::vector<std::string> ir_globals(const std::string& text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  ir::for_each_name(text, '@', [&](const ir::Name& n) {
    if (seen.insert(n.key).second) out.push_back(n.key);
  });
  return out;
}

// The end of the PTX string literal that opens at `at` (past its closing quote, or the line's
// end): `.file 1 "/path/x.py"` names a file, never a symbol to rename.
size_t ptx_string_end(const std::string& text, size_t at) {
  size_t i = at + 1;
  while (i < text.size() && text[i] != '"' && text[i] != '\n')
    i += text[i] == '\\' ? 2 : 1;
  return std::min(text.size(), i + 1);
}

std::vector<std::string> ptx_words(const std::string& text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '"') {
      i = ptx_string_end(text, i);
      continue;
    }
    if (!ptx_ident_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && ptx_ident_char(text[j]))
      ++j;
    std::string w = text.substr(i, j - i);
    if (seen.insert(w).second) out.push_back(w);
    i = j;
  }
  return out;
}

} // namespace

std::vector<Rename> long_names(TextFormat format, const std::string& text) {
  if (format != TextFormat::nvvm_ir && format != TextFormat::ptx) return {};
  std::vector<std::string> names =
      format == TextFormat::nvvm_ir ? ir_globals(text) : ptx_words(text);
  std::set<std::string> taken(names.begin(), names.end());
  std::vector<Rename> out;
  for (const auto& n : names) {
    if (n.size() <= k_long_name || n.rfind("llvm.", 0) == 0 || n.rfind("__nv_", 0) == 0) continue;
    std::string base = stand_in(n);
    std::string to = base;
    for (int k = 2; taken.count(to); ++k)
      to = base + "_" + std::to_string(k);
    taken.insert(to);
    out.push_back({n, to});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Rename& a, const Rename& b) { return a.from.size() > b.from.size(); });
  return out;
}

std::string apply_renames(TextFormat format, const std::string& text,
                          const std::vector<Rename>& renames) {
  if (renames.empty()) return text;
  if (format == TextFormat::nvvm_ir) {
    std::map<std::string, std::string> to;
    for (const auto& r : renames)
      to[r.from] = ir::spell('@', r.to);
    return ir::replace_names(text, '@', to);
  }
  // Each name where it occurs, longest first (a name inside a longer one waits); in PTX not
  // inside string literals, which hold the paths of `.file` directives.
  auto replace_all = [&](const std::string& piece) {
    std::string out = piece;
    for (const auto& r : renames) {
      std::string next;
      size_t last = 0;
      for (size_t p = out.find(r.from); p != std::string::npos; p = out.find(r.from, p + 1)) {
        if (p < last) continue;
        next.append(out, last, p - last);
        next += r.to;
        last = p + r.from.size();
      }
      next.append(out, last, std::string::npos);
      out = std::move(next);
    }
    return out;
  };
  if (format != TextFormat::ptx) return replace_all(text);
  std::string out;
  size_t from = 0;
  for (size_t q = text.find('"'); q != std::string::npos; q = text.find('"', from)) {
    out += replace_all(text.substr(from, q - from));
    from = ptx_string_end(text, q);
    out.append(text, q, from - q);
  }
  out += replace_all(text.substr(from));
  return out;
}

} // namespace kdet::reduce
