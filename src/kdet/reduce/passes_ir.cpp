//===- reduce/passes_ir.cpp - the NVVM IR passes ------------------------------===//
#include "kdet/reduce/passes_ir.hpp"

#include "kdet/reduce/ir_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kdet::reduce::ir {

namespace {

// A `declare` line standing for a `define` header: linkage, parameter names, attributes,
// metadata attachments and everything after the parameter list gone.
std::string declaration_of(const std::string& header) {
  std::string h = strip_comment(header);
  h = h.substr(std::string("define").size());
  std::string sig;
  size_t depth = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    char c = h[i];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0 && --depth == 0) {
      sig += c;
      break;
    }
    Name n;
    if (depth > 0 && c == '%' && read_name(h, i, n)) { // a parameter's name (bare or quoted)
      i = n.end - 1;
      continue;
    }
    if (c == '"') { // a string (a quoted name after @ is copied whole below)
      size_t close = h.find('"', i + 1);
      close = close == std::string::npos ? h.size() - 1 : close;
      sig += h.substr(i, close - i + 1);
      i = close;
      continue;
    }
    sig += c;
  }
  static const std::set<std::string> k_drop = {"internal",
                                               "private",
                                               "linkonce_odr",
                                               "linkonce",
                                               "weak",
                                               "weak_odr",
                                               "dso_local",
                                               "hidden",
                                               "protected",
                                               "external",
                                               "unnamed_addr",
                                               "local_unnamed_addr",
                                               "noundef",
                                               "zeroext",
                                               "signext",
                                               "common",
                                               "available_externally"};
  std::string cleaned;
  size_t i = 0;
  while (i < sig.size()) {
    if (std::isspace(static_cast<unsigned char>(sig[i])) != 0) {
      cleaned += sig[i++];
      continue;
    }
    size_t j = i;
    if (sig[i] == '@') { // the name, quoted or not
      Name n;
      if (read_name(sig, i, n)) j = n.end;
    }
    while (j < sig.size() && std::isspace(static_cast<unsigned char>(sig[j])) == 0 && sig[j] != '(')
      ++j;
    std::string word = sig.substr(i, j - i);
    if (sig[i] == '@' || !k_drop.count(word)) cleaned += word;
    if (j < sig.size() && sig[j] == '(') {
      cleaned += sig.substr(j);
      break;
    }
    i = j;
  }
  std::string out = "declare" + cleaned;
  // "i32 , float" from removed names reads oddly but parses; tidy the common case.
  std::string tidy;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == ' ' && k + 1 < out.size() &&
        (out[k + 1] == ',' || out[k + 1] == ')' || out[k + 1] == ' '))
      continue;
    tidy += out[k];
  }
  return tidy + "\n";
}

// Every `label %x` target on a line.
std::vector<std::string> targets_of(const std::string& l) {
  std::vector<std::string> out;
  for_each_name(l, '%', [&](const Name& n) {
    if (n.begin >= 6 && l.compare(n.begin - 6, 6, "label ") == 0) out.push_back(n.key);
  });
  return out;
}

bool terminator(const std::string& t) {
  static const char* const k_ops[] = {"ret",      "br",          "switch",      "indirectbr",
                                      "invoke",   "resume",      "unreachable", "cleanupret",
                                      "catchret", "catchswitch", "callbr"};
  std::string op = t;
  if (!t.empty() && t[0] == '%') {
    size_t eq = t.find(" = ");
    op = eq == std::string::npos ? t : t.substr(eq + 3);
  }
  for (const char* k : k_ops) {
    size_t n = std::string(k).size();
    if (op.compare(0, n, k) == 0 && (op.size() == n || op[n] == ' ' || op[n] == '\n')) return true;
  }
  return false;
}

// Splits `text` into lines; lines of function bodies for which pick() gives a stand-in
// become chunks.
template <typename Pick> Split body_lines(const std::string& text, Pick pick) {
  auto lines = split_lines(text);
  Split s;
  std::vector<char> body(lines.size(), 0);
  for (auto [a, b] : define_blocks(lines))
    for (size_t i = body_start(lines, a, b); i < b; ++i)
      body[i] = 1;
  bool in_switch = false; // the case lines of a switch, up to its `]`
  for (size_t i = 0; i < lines.size(); ++i) {
    Segment seg{lines[i], "", -1};
    std::string t = trim_left(strip_comment(lines[i]));
    bool was_switch = in_switch;
    if (body[i] && (t.starts_with("switch ") || t.find("= switch ") != std::string::npos))
      in_switch = t.find(']') == std::string::npos;
    else if (in_switch && t.find(']') != std::string::npos)
      in_switch = false;
    std::string removed;
    if (body[i] && !was_switch && !t.empty() && t != "\n" && label_of(t).empty() &&
        pick(t, removed)) {
      seg.removed = removed;
      seg.chunk = static_cast<int>(s.chunks++);
    }
    s.segments.push_back(std::move(seg));
  }
  return s;
}

// Conditional branches made unconditional (to target `which`: 1 the else, 0 the then) and
// switches made a branch (to the default, or the first case); the cleanup drops the blocks no
// longer reached.
Split ll_branches(const std::string& text, size_t which) {
  Split s = body_lines(text, [which](const std::string& t, std::string& removed) {
    auto targets = targets_of(t);
    if (t.starts_with("switch ") && !targets.empty()) {
      size_t to = which == 1 || targets.size() < 2 ? 0 : 1;
      removed = "  br label " + spell('%', targets[to]) + "\n";
      return true;
    }
    if (!t.starts_with("br i1 ") || targets.size() != 2) return false;
    removed = "  br label " + spell('%', targets[which]) + "\n";
    return true;
  });
  // A switch's case lines, up to its `]`, go with it.
  for (size_t i = 0; i < s.segments.size(); ++i) {
    const Segment& sw = s.segments[i];
    if (sw.chunk < 0 || sw.text.find("switch ") == std::string::npos ||
        sw.text.find(']') != std::string::npos)
      continue;
    for (size_t j = i + 1; j < s.segments.size(); ++j) {
      s.segments[j].chunk = sw.chunk;
      s.segments[j].removed.clear();
      if (s.segments[j].text.find(']') != std::string::npos) break;
    }
  }
  return s;
}

// A metadata attachment at `n` (`!dbg` and its `!12`): from the comma before it (or the
// blank) to the end of its operand; npos when `n` is no attachment.
std::pair<size_t, size_t> attachment_at(const std::string& l, const Name& n) {
  if (n.key.empty() || std::isalpha(static_cast<unsigned char>(n.key[0])) == 0) return {0, 0};
  size_t j = n.end;
  while (j < l.size() && l[j] == ' ')
    ++j;
  Name op;
  if (!read_name(l, j, op) || !numbered(op.key) || l[j] != '!') return {0, 0};
  size_t from = n.begin;
  while (from > 0 && l[from - 1] == ' ')
    --from;
  if (from > 0 && l[from - 1] == ',') --from;
  return {from, op.end};
}

// `l` without its metadata attachments (`!dbg` ones when `dbg`, the others when not).
std::string strip_attachments(const std::string& l, bool dbg) {
  if (!l.empty() && l[0] == '!') return l;
  std::string out;
  size_t last = 0;
  for_each_name(l, '!', [&](const Name& n) {
    if ((n.key == "dbg") != dbg || n.begin < last) return;
    auto [from, to] = attachment_at(l, n);
    if (to == 0) return;
    out.append(l, last, from - last);
    last = to;
  });
  out.append(l, last, std::string::npos);
  return out;
}

} // namespace

// The index of the first body line of the block whose header is lines[a]: the `{` may end
// the `define` line (clang, Triton) or stand on the next line (numba's llvmlite).
size_t body_start(const std::vector<std::string>& lines, size_t a, size_t b) {
  if (opens_body(lines[a])) return a + 1;
  for (size_t i = a + 1; i < b; ++i)
    if (trim_left(lines[i]).rfind('{', 0) == 0) return i + 1;
  return a + 1;
}

std::vector<std::pair<size_t, size_t>> define_blocks(const std::vector<std::string>& lines) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("define ")) continue;
    size_t j = i;
    while (j < lines.size() && !lines[j].starts_with("}"))
      ++j;
    if (j == lines.size()) break;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

Split ll_functions(const std::string& text) {
  auto lines = split_lines(text);
  Split s;
  size_t next = 0;
  for (auto [a, b] : define_blocks(lines)) {
    for (; next < a; ++next)
      s.segments.push_back({lines[next], "", -1});
    std::string block;
    for (size_t i = a; i <= b; ++i)
      block += lines[i];
    s.segments.push_back({block, declaration_of(lines[a]), static_cast<int>(s.chunks++)});
    next = b + 1;
  }
  for (; next < lines.size(); ++next)
    s.segments.push_back({lines[next], "", -1});
  return s;
}

Split ll_bodies(const std::string& text) {
  auto lines = split_lines(text);
  Split s;
  size_t next = 0;
  for (auto [a, b] : define_blocks(lines)) {
    size_t first = body_start(lines, a, b);
    for (; next < first; ++next)
      s.segments.push_back({lines[next], "", -1});
    std::string body;
    for (size_t i = first; i < b; ++i)
      body += lines[i];
    std::string head = strip_comment(lines[a]);
    std::string ret = head.substr(0, head.find('@'));
    bool is_void = ret.find(" void ") != std::string::npos;
    std::string stub = is_void ? "entry:\n  ret void\n" : "entry:\n  unreachable\n";
    if (body != stub)
      s.segments.push_back({body, stub, static_cast<int>(s.chunks++)});
    else
      s.segments.push_back({body, "", -1});
    next = b;
  }
  for (; next < lines.size(); ++next)
    s.segments.push_back({lines[next], "", -1});
  return s;
}

Split ll_branches_else(const std::string& text) {
  return ll_branches(text, 1);
}
Split ll_branches_then(const std::string& text) {
  return ll_branches(text, 0);
}

// Every instruction but terminators; one that defines a value leaves the marker the
// cleanup replaces its uses by `undef` for.
Split ll_instructions(const std::string& text) {
  return body_lines(text, [](const std::string& t, std::string& removed) {
    if (terminator(t) || t[0] == '{' || t[0] == '}') return false;
    if (t[0] == '%') {
      Name n;
      if (!read_name(t, 0, n) || t.compare(n.end, 3, " = ") != 0) return false;
      removed = std::string(k_undef_marker) + spell('%', n.key) + "\n";
    }
    return true;
  });
}

// A pass in one piece: every line `edit` changes (to what it returns; "" drops the line) goes
// at once, or none does.
static Split one_piece(const std::string& text,
                       const std::function<std::optional<std::string>(const std::string&)>& edit) {
  Split s;
  for (auto& l : split_lines(text)) {
    Segment seg{l, "", -1};
    if (auto e = edit(l)) seg.removed = std::move(*e), seg.chunk = 0, s.chunks = 1;
    s.segments.push_back(std::move(seg));
  }
  return s;
}

// Debug info in one piece (`!dbg` attachments, llvm.dbg.* calls, !llvm.dbg.cu): the verifier
// wants every compile unit a subprogram names listed.
Split ll_debug(const std::string& text) {
  return one_piece(text, [](const std::string& l) -> std::optional<std::string> {
    if (trim_left(l).find("call void @llvm.dbg.") != std::string::npos ||
        l.starts_with("!llvm.dbg.cu "))
      return std::string();
    if (std::string d = strip_attachments(l, true); d != l) return d;
    return std::nullopt;
  });
}

// The other metadata attachments (!range, !tbaa, ...), in one piece.
Split ll_attachments(const std::string& text) {
  return one_piece(text, [](const std::string& l) -> std::optional<std::string> {
    if (std::string o = strip_attachments(l, false); o != l) return o;
    return std::nullopt;
  });
}

// Attribute group references (`#0`), in one piece; the cleanup drops the groups.
Split ll_attributes(const std::string& text) {
  return one_piece(text, [](const std::string& l) -> std::optional<std::string> {
    auto refs = name_counts(l, '#');
    if (l.starts_with("attributes ") || refs.empty()) return std::nullopt;
    std::map<std::string, std::string> none;
    for (const auto& [k, c] : refs)
      none[k] = "";
    return replace_names(l, '#', none);
  });
}

Split ll_metadata(const std::string& text) {
  Split s;
  for (auto& l : split_lines(text)) {
    bool named = l.size() > 1 && l[0] == '!' && std::isalpha(static_cast<unsigned char>(l[1]));
    bool pick = named && !l.starts_with("!nvvmir.version") && !l.starts_with("!llvm.dbg.cu");
    s.segments.push_back({l, "", pick ? static_cast<int>(s.chunks++) : -1});
  }
  return s;
}

} // namespace kdet::reduce::ir
