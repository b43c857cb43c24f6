//===- diff/ptx_reader.cpp - splits PTX into module parts and functions ----===//
//
// Two passes. Pass 1 turns lines into statements: comments are removed, a
// statement ends at ';', at a brace that is not part of an initializer
// (`= {1, 2}`), or at the end of a line when no parenthesis is open and the
// line does not end with ',' (this covers `.version 9.0`, labels, `.loc`,
// `.maxntid 256, 1, 1`, and the multi-line `call.uni (...), f, (...);`).
// Pass 2 groups statements: a statement whose first keyword (after .visible,
// .weak, .extern) is .entry or .func opens a header; '{' opens its body and
// the matching '}' closes it; a header that ends with ';' is a prototype and
// stays module-level.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/ptx_reader.hpp"

#include <cctype>

namespace kdet::diff::detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

std::string collapse(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (is_space(c) || c == '\n') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Pass 1: statements, each with its start line.
class StatementSplitter {
public:
  std::vector<PtxStatement> out;

  void line(std::string_view code, size_t line_no) {
    for (char c : code) {
      if (m_quote) {
        add(c, line_no);
        if (c == '"') m_quote = false;
        continue;
      }
      switch (c) {
      case '"':
        m_quote = true;
        add(c, line_no);
        break;
      case ';':
        add(c, line_no);
        emit();
        break;
      case '(':
        ++m_paren;
        add(c, line_no);
        break;
      case ')':
        --m_paren;
        add(c, line_no);
        break;
      case '{':
        if (m_init_brace > 0 || m_pending.find('=') != std::string::npos) {
          ++m_init_brace;
          add(c, line_no);
        } else {
          emit();
          out.push_back({"{", line_no});
        }
        break;
      case '}':
        if (m_init_brace > 0) {
          --m_init_brace;
          add(c, line_no);
        } else {
          emit();
          out.push_back({"}", line_no});
        }
        break;
      default:
        add(c, line_no);
      }
    }
    // End of line: finishes the statement unless it visibly continues.
    size_t end = m_pending.find_last_not_of(" \t\r");
    bool open = m_paren > 0 || m_init_brace > 0 || m_quote ||
                (end != std::string::npos && m_pending[end] == ',');
    if (!open)
      emit();
    else
      m_pending += ' ';
  }

  void finish() { emit(); }

private:
  void add(char c, size_t line_no) {
    if (m_pending_line == 0 && !is_space(c)) m_pending_line = line_no;
    m_pending += c;
  }
  void emit() {
    std::string text = collapse(m_pending);
    if (!text.empty()) out.push_back({std::move(text), m_pending_line});
    m_pending.clear();
    m_pending_line = 0;
    m_paren = 0;
    m_init_brace = 0;
    m_quote = false;
  }

  std::string m_pending;
  size_t m_pending_line = 0;
  int m_paren = 0;
  int m_init_brace = 0;
  bool m_quote = false;
};

// Removes // and /* */ comments from one line; `in_block` carries across lines.
std::string strip_comments(std::string_view line, bool& in_block) {
  std::string out;
  bool quote = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_block) {
      if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') {
        in_block = false;
        ++i;
        out += ' ';
      }
      continue;
    }
    if (quote) {
      out += c;
      if (c == '"') quote = false;
      continue;
    }
    if (c == '"')
      quote = true;
    else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/')
      break;
    else if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
      in_block = true;
      ++i;
      continue;
    }
    out += c;
  }
  return out;
}

// "entry"/"func" when the statement opens a function, else "".
std::string function_kind(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = pos;
    while (end < s.size() && !is_space(s[end]) && s[end] != '(')
      ++end;
    std::string_view word = s.substr(pos, end - pos);
    if (word == ".entry") return "entry";
    if (word == ".func") return "func";
    if (word != ".visible" && word != ".weak" && word != ".extern" && word != ".common") return "";
    pos = end;
    while (pos < s.size() && is_space(s[pos]))
      ++pos;
  }
  return "";
}

// The function's name: the identifier after .entry/.func and an optional (return list).
std::string function_name(std::string_view s, const std::string& kind) {
  std::string key = "." + kind;
  size_t pos = s.find(key);
  if (pos == std::string_view::npos) return "";
  pos += key.size();
  while (pos < s.size() && is_space(s[pos]))
    ++pos;
  if (pos < s.size() && s[pos] == '(') {
    int depth = 0;
    for (; pos < s.size(); ++pos) {
      if (s[pos] == '(')
        ++depth;
      else if (s[pos] == ')' && --depth == 0) {
        ++pos;
        break;
      }
    }
    while (pos < s.size() && is_space(s[pos]))
      ++pos;
  }
  size_t end = pos;
  while (end < s.size() && is_ident(s[end]))
    ++end;
  return std::string(s.substr(pos, end - pos));
}

} // namespace

bool looks_like_ptx(std::string_view text) {
  std::string_view head = text.substr(0, 1 << 16);
  if (head.find('\0') != std::string_view::npos) return false;
  auto directive = [&](std::string_view d) {
    for (size_t pos = head.find(d); pos != std::string_view::npos; pos = head.find(d, pos + 1)) {
      size_t b = pos;
      while (b > 0 && is_space(head[b - 1]))
        --b;
      size_t after = pos + d.size();
      if ((b == 0 || head[b - 1] == '\n') && after < head.size() && is_space(head[after]))
        return true;
    }
    return false;
  };
  return directive(".version") && directive(".target");
}

PtxModule read_ptx(std::string_view text) {
  // Lines, kept for the raw views.
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (pos < text.size()) lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }

  StatementSplitter splitter;
  bool in_block = false;
  for (size_t i = 0; i < lines.size(); ++i)
    splitter.line(strip_comments(lines[i], in_block), i + 1);
  splitter.finish();

  PtxModule m;
  enum class State { outside, header, body } state = State::outside;
  PtxFunction cur;
  int depth = 0;
  std::vector<bool> in_function(lines.size() + 2, false);
  auto close_function = [&](size_t last_line) {
    cur.last_line = last_line;
    for (size_t l = cur.first_line; l <= last_line && l < in_function.size(); ++l) {
      in_function[l] = true;
      if (l >= 1 && l <= lines.size()) {
        cur.raw.append(lines[l - 1]);
        cur.raw += '\n';
      }
    }
    m.functions.push_back(std::move(cur));
    cur = PtxFunction{};
    state = State::outside;
  };
  for (auto& s : splitter.out) {
    switch (state) {
    case State::outside: {
      std::string kind = function_kind(s.text);
      if (kind.empty() || s.text.back() == ';') {
        m.module.push_back(std::move(s));
        break;
      }
      cur.kind = kind;
      cur.name = function_name(s.text, kind);
      cur.first_line = s.line;
      cur.header.push_back(std::move(s));
      state = State::header;
      break;
    }
    case State::header:
      if (s.text == "{") {
        state = State::body;
        depth = 1;
      } else if (s.text == "}" || s.text.back() == ';') {
        // A prototype (or junk): its statements are module-level after all.
        for (auto& h : cur.header)
          m.module.push_back(std::move(h));
        m.module.push_back(std::move(s));
        cur = PtxFunction{};
        state = State::outside;
      } else {
        cur.header.push_back(std::move(s));
      }
      break;
    case State::body:
      if (s.text == "{") ++depth;
      if (s.text == "}" && --depth == 0) {
        close_function(s.line);
        break;
      }
      cur.body.push_back(std::move(s));
      break;
    }
  }
  if (state != State::outside) close_function(lines.size());

  for (size_t l = 1; l <= lines.size(); ++l) {
    if (in_function[l]) continue;
    m.module_raw.append(lines[l - 1]);
    m.module_raw += '\n';
  }
  return m;
}

} // namespace kdet::diff::detail
