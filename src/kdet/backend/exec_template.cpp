//===- backend/exec_template.cpp - split, check and expand exec templates ----===//
#include "kdet/backend/exec_template.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>

namespace kdet::backend {

namespace {

struct Placeholder {
  size_t pos = 0;
  size_t len = 0; // including the braces
  std::string name;
};

bool name_char(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return first ? alpha : alpha || (c >= '0' && c <= '9') || c == '-';
}

// Every `{name}` in a word. `${NAME}` is shell syntax and `{1}`, `{}`, `{a,b}`
// are not names, so none of them is a placeholder.
std::vector<Placeholder> placeholders_in(const std::string& word) {
  std::vector<Placeholder> out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '{' || (i > 0 && word[i - 1] == '$')) continue;
    size_t j = i + 1;
    while (j < word.size() && name_char(word[j], j == i + 1))
      ++j;
    if (j == i + 1 || j >= word.size() || word[j] != '}') continue;
    out.push_back({i, j - i + 1, word.substr(i + 1, j - i - 1)});
    i = j;
  }
  return out;
}

// The program a word names, without folder and version: "/usr/bin/python3.11" -> "python".
std::string program_stem(const std::string& word) {
  std::string base =
      word.substr(word.find_last_of('/') == std::string::npos ? 0 : word.find_last_of('/') + 1);
  while (!base.empty() &&
         (std::isdigit(static_cast<unsigned char>(base.back())) || base.back() == '.'))
    base.pop_back();
  return base;
}

bool is_shell(const std::string& stem) {
  static const std::set<std::string> shells = {"sh",  "bash", "dash", "zsh", "ksh",  "mksh",
                                               "ash", "yash", "fish", "csh", "tcsh", "busybox"};
  return shells.count(stem) != 0;
}

// Flags after which an interpreter reads code from the next word (or the rest of the flag word).
const std::vector<std::string>* code_flags(const std::string& stem) {
  static const std::map<std::string, std::vector<std::string>> flags = {
      {"python", {"-c"}}, {"perl", {"-e", "-E"}},
      {"ruby", {"-e"}},   {"node", {"-e", "-p", "--eval", "--print"}},
      {"php", {"-r"}},    {"lua", {"-e"}}};
  auto it = flags.find(stem);
  return it == flags.end() ? nullptr : &it->second;
}

// Index of the word a shell started at `shell` would run as code (`sh -ec 'CODE'`), or npos.
size_t shell_script_word(const std::vector<std::string>& w, size_t shell) {
  bool dash_c = false;
  size_t i = shell + 1;
  for (; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a == "--" || a == "-") {
      ++i;
      break;
    }
    if (a.size() < 2 || (a[0] != '-' && a[0] != '+')) break;
    if (a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file") {
      ++i;
      continue;
    }
    if (a[0] == '-' && a[1] != '-' && a.find('c') != std::string::npos) dash_c = true;
  }
  return dash_c && i < w.size() ? i : std::string::npos;
}

// `"{input}"` and `'{input}'` in a script become `"$1"`, as does a bare `{input}`.
std::string as_positional(const std::string& script, const std::map<std::string, int>& numbers) {
  std::string out;
  auto found = placeholders_in(script);
  size_t at = 0;
  for (const auto& p : found) {
    size_t begin = p.pos, end = p.pos + p.len;
    if (begin > 0 && end < script.size() &&
        (script[begin - 1] == '"' || script[begin - 1] == '\'') &&
        script[end] == script[begin - 1]) {
      --begin;
      ++end;
    }
    if (begin < at) continue;
    out += script.substr(at, begin - at);
    out += fmt::format("\"${}\"", numbers.at(p.name));
    at = end;
  }
  return out + script.substr(at);
}

[[noreturn]] void refuse_shell(const std::vector<std::string>& w, size_t shell, size_t script,
                               const std::string& where) {
  std::map<std::string, int> numbers;
  std::vector<std::string> order;
  int existing = static_cast<int>(w.size() - script - 1); // positional words already after $0
  if (existing > 0) --existing;                           // the first of them is $0
  for (const auto& p : placeholders_in(w[script]))
    if (numbers.emplace(p.name, existing + static_cast<int>(numbers.size()) + 1).second)
      order.push_back(p.name);
  std::vector<std::string> fixed(w.begin(), w.begin() + static_cast<long>(script));
  fixed.push_back(as_positional(w[script], numbers));
  bool has_zero = script + 1 < w.size();
  for (size_t i = script + 1; i < w.size(); ++i)
    fixed.push_back(w[i]);
  if (!has_zero) fixed.push_back(program_stem(w[shell]).empty() ? "sh" : program_stem(w[shell]));
  for (const auto& n : order)
    fixed.push_back("{" + n + "}");
  throw Error::format(
      "{}: {{{}}} is inside the script that {} -c runs; a file name would become shell code "
      "(a name like 'x;touch PWNED;.ll' runs touch). Pass names as positional parameters "
      "instead:\n  {}",
      where, order.front(), w[shell], shell_join(fixed));
}

} // namespace

const std::vector<std::string>& template_placeholders() {
  static const std::vector<std::string> names = {"input", "output", "workdir"};
  return names;
}

std::vector<std::string> check_command_template(const std::string& text, const std::string& where,
                                                const std::vector<std::string>& extra) {
  std::vector<std::string> words = split_command(text);
  if (words.empty())
    throw Error::format(
        "{} is empty: give a command template such as 'ptxas -arch=sm_90a {{input}} -o {{output}}'",
        where);
  std::vector<std::string> valid = template_placeholders();
  valid.insert(valid.end(), extra.begin(), extra.end());
  std::string valid_list;
  for (const auto& v : valid)
    valid_list += (valid_list.empty() ? "{" : ", {") + v + "}";
  for (const auto& w : words)
    for (const auto& p : placeholders_in(w))
      if (std::find(valid.begin(), valid.end(), p.name) == valid.end())
        throw Error::format("{}: unknown placeholder {{{}}} in '{}'; valid placeholders: {}", where,
                            p.name, w, valid_list);
  if (!placeholders_in(words[0]).empty())
    throw Error::format("{}: the program '{}' cannot be a placeholder; name the compiler first",
                        where, words[0]);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string stem = program_stem(words[i]);
    if (is_shell(stem)) {
      size_t script = shell_script_word(words, i);
      if (script != std::string::npos && !placeholders_in(words[script]).empty())
        refuse_shell(words, i, script, where);
    } else if (const auto* flags = code_flags(stem)) {
      for (size_t j = i + 1; j < words.size(); ++j) {
        bool is_code = false;
        size_t code = j;
        for (const auto& f : *flags) {
          if (words[j] == f)
            code = j + 1, is_code = true;
          else if (words[j].starts_with(f) && f.size() == 2)
            is_code = true; // -c'code'
        }
        if (is_code && code < words.size() && !placeholders_in(words[code]).empty())
          throw Error::format(
              "{}: {{{}}} is inside the code that {} runs; a file name would become code. Pass "
              "names as arguments after the code and read them there (sys.argv, @ARGV, ARGV)",
              where, placeholders_in(words[code]).front().name, words[i]);
        if (is_code) break;
      }
    }
  }
  return words;
}

bool template_names(const std::vector<std::string>& words, const std::string& name) {
  for (const auto& w : words)
    for (const auto& p : placeholders_in(w))
      if (p.name == name) return true;
  return false;
}

std::string expand_word(const std::string& word, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t at = 0;
  for (const auto& p : placeholders_in(word)) {
    auto it = values.find(p.name);
    if (it == values.end()) continue;
    out += word.substr(at, p.pos - at);
    out += it->second;
    at = p.pos + p.len;
  }
  return out + word.substr(at);
}

std::string check_output_ext(const std::string& ext, const std::string& where) {
  std::string e = ext.starts_with('.') ? ext.substr(1) : ext;
  bool ok = e.size() <= 32 && e.find("..") == std::string::npos && !e.starts_with('.') &&
            !e.ends_with('.') && std::all_of(e.begin(), e.end(), [](char c) {
              return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' ||
                     c == '-' || c == '.';
            });
  if (!ok || (e.empty() && !ext.empty()))
    throw Error::format("{} '{}': an extension is up to 32 letters, digits and _+-. (e.g. cubin, "
                        "o, ptx), with no '/' or '..'",
                        where, utf8_safe(ext));
  return e;
}

} // namespace kdet::backend
