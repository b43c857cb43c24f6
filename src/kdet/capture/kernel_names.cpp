//===- capture/kernel_names.cpp - naming captured kernels across builds -----===//
#include "kdet/capture/kernel_names.hpp"

#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

namespace kdet::capture {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

// The identifier (or quoted IR name, unquoted) at `pos`; empty when none.
std::string name_at(std::string_view text, size_t pos) {
  if (pos < text.size() && text[pos] == '"') {
    size_t end = text.find('"', pos + 1);
    return end == std::string_view::npos ? "" : std::string(text.substr(pos + 1, end - pos - 1));
  }
  size_t end = pos;
  while (end < text.size() && ident_char(text[end]))
    ++end;
  return std::string(text.substr(pos, end - pos));
}

void skip_space(std::string_view text, size_t& pos) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
    ++pos;
}

// PTX: ".entry NAME" (after .visible/.weak); the name ends at '(' or white space.
void ptx_entries(std::string_view text, std::vector<std::string>& out) {
  for (size_t pos = text.find(".entry"); pos != std::string_view::npos;
       pos = text.find(".entry", pos + 6)) {
    bool starts = pos == 0 || std::isspace(static_cast<unsigned char>(text[pos - 1]));
    size_t at = pos + 6;
    if (!starts || at >= text.size() || !std::isspace(static_cast<unsigned char>(text[at])))
      continue;
    skip_space(text, at);
    std::string n = name_at(text, at);
    if (!n.empty()) out.push_back(n);
  }
}

// NVVM IR: metadata nodes that name a function and "kernel", and ptx_kernel definitions.
void ir_entries(std::string_view text, std::vector<std::string>& out) {
  for (size_t pos = text.find("!\"kernel\""); pos != std::string_view::npos;
       pos = text.find("!\"kernel\"", pos + 9)) {
    size_t open = text.rfind("!{", pos);
    size_t line = text.rfind('\n', pos);
    if (open == std::string_view::npos || (line != std::string_view::npos && open < line)) continue;
    size_t at = text.find('@', open);
    if (at == std::string_view::npos || at > pos) continue;
    std::string n = name_at(text, at + 1);
    if (!n.empty()) out.push_back(n);
  }
  for (size_t pos = text.find("ptx_kernel"); pos != std::string_view::npos;
       pos = text.find("ptx_kernel", pos + 10)) {
    size_t line = text.rfind('\n', pos);
    line = line == std::string_view::npos ? 0 : line + 1;
    if (text.substr(line, 7) != "define ") continue;
    size_t at = text.find('@', pos);
    size_t eol = text.find('\n', pos);
    if (at == std::string_view::npos || at > eol) continue;
    std::string n = name_at(text, at + 1);
    if (!n.empty()) out.push_back(n);
  }
}

bool is_tmp_root_fixed(std::string_view prefix) {
  static const char* roots[] = {"/tmp", "/var/tmp", "/dev/shm"};
  for (const char* r : roots)
    if (prefix == r) return true;
  return false;
}

bool is_tmp_root(std::string_view prefix) {
  return is_tmp_root_fixed(prefix);
}

} // namespace

std::vector<std::string> entry_names(std::string_view text) {
  std::vector<std::string> all;
  if (text.find(".version") != std::string_view::npos &&
      text.find(".target") != std::string_view::npos)
    ptx_entries(text, all);
  else if (text.find("define ") != std::string_view::npos)
    ir_entries(text, all);
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& n : all)
    if (seen.insert(n).second) out.push_back(std::move(n));
  return out;
}

std::string normalize_volatile(std::string_view input) {
  // $TMPDIR first: under /tmp (TMPDIR=/tmp/$USER) the /tmp rule would take its own
  // component for the per-build one.
  std::string tmpdir_applied;
  const char* t = std::getenv("TMPDIR");
  std::string root = t ? t : "";
  while (root.size() > 1 && root.back() == '/')
    root.pop_back();
  if (root.size() > 1 && !is_tmp_root_fixed(root)) {
    std::string pat = root + "/";
    for (size_t i = 0; i < input.size();) {
      if (input.compare(i, pat.size(), pat) == 0) {
        size_t j = i + pat.size();
        while (j < input.size() && input[j] != '/' && input[j] != ' ' && input[j] != '"' &&
               input[j] != '\'' && input[j] != '\n')
          ++j;
        tmpdir_applied += "{tmpdir}/*";
        i = j;
      } else {
        tmpdir_applied += input[i++];
      }
    }
    input = tmpdir_applied;
  }
  std::string_view text = input;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    // tmpxft_00001234_00000000-5_k.cpp1.ii: nvcc's temporary names
    if (text.compare(i, 7, "tmpxft_") == 0) {
      size_t j = i + 7;
      while (j < text.size() && (std::isxdigit(static_cast<unsigned char>(text[j])) ||
                                 text[j] == '_' || text[j] == '-'))
        ++j;
      out += "{tmpxft}";
      i = j;
      continue;
    }
    if (std::isxdigit(static_cast<unsigned char>(text[i])) &&
        (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      size_t j = i;
      while (j < text.size() && std::isxdigit(static_cast<unsigned char>(text[j])))
        ++j;
      if (j - i >= 16 && (j == text.size() || !std::isalnum(static_cast<unsigned char>(text[j])))) {
        out += "{hex}";
        i = j;
        continue;
      }
    }
    out += text[i];
    if (text[i] == '/') {
      // After a temporary root, the next component is a per-build name.
      size_t start = out.size() - 1;
      while (start > 0 && out[start - 1] != ' ' && out[start - 1] != '=' && out[start - 1] != '"' &&
             out[start - 1] != '\'' && out[start - 1] != '\n')
        --start;
      std::string_view prefix(out.data() + start, out.size() - 1 - start);
      // "-I/tmp": the path starts at its first '/'.
      size_t slash = prefix.find('/');
      if (slash != std::string_view::npos) prefix.remove_prefix(slash);
      if (is_tmp_root(prefix)) {
        size_t j = i + 1;
        while (j < text.size() && text[j] != '/' && text[j] != ' ' && text[j] != '"' &&
               text[j] != '\'' && text[j] != '\n')
          ++j;
        if (j > i + 1) {
          out += '*';
          i = j;
          continue;
        }
      }
    }
    ++i;
  }
  return out;
}

std::string target_of(const std::vector<std::string>& options) {
  static const char* keys[] = {
      "-arch=", "--gpu-name=", "--gpu-architecture=", "-gpu-name=",
      "-arch",  "--gpu-name",  "-gpu-name",           "--gpu-architecture"};
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    for (const char* k : keys) {
      std::string key = k;
      if (key.back() == '=') {
        if (o.rfind(key, 0) == 0 && o.size() > key.size()) return o.substr(key.size());
      } else if (o == key && i + 1 < options.size()) {
        return options[i + 1];
      }
    }
  }
  return "";
}

} // namespace kdet::capture
