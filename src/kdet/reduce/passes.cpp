//===- reduce/passes.cpp - the reduction passes, one table --------------------===//
#include "kdet/reduce/passes.hpp"

#include "kdet/util/fs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kdet::reduce {

namespace {

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

std::string trim_left(const std::string& s) {
  size_t i = s.find_first_not_of(" \t");
  return i == std::string::npos ? std::string() : s.substr(i);
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

// Counts of every `<sigil>name` token in `text`.
std::map<std::string, int> token_counts(const std::string& text, char sigil) {
  std::map<std::string, int> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != sigil) continue;
    size_t j = i + 1;
    while (j < text.size() && ident_char(text[j]))
      ++j;
    if (j > i + 1) ++out[text.substr(i + 1, j - i - 1)];
    i = j - 1;
  }
  return out;
}

// The name after a sigil at the start of `s` ("%x = ..." -> "x"), or "".
std::string leading_name(const std::string& s, char sigil) {
  if (s.empty() || s[0] != sigil) return {};
  size_t j = 1;
  while (j < s.size() && ident_char(s[j]))
    ++j;
  return s.substr(1, j - 1);
}

// The @name defined or declared on a `define`/`declare` line.
std::string function_name(const std::string& line) {
  size_t at = line.find('@');
  if (at == std::string::npos) return {};
  return leading_name(line.substr(at), '@');
}

// A `declare` line standing for a `define` header: linkage, parameter names and attributes gone.
std::string declaration_of(const std::string& header) {
  std::string h = header.substr(0, header.rfind('{'));
  h = h.substr(std::string("define").size());
  std::string out = "declare";
  std::string word;
  size_t depth = 0;
  std::string sig;
  for (size_t i = 0; i < h.size(); ++i) {
    char c = h[i];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0 && --depth == 0) {
      sig += c;
      break;
    }
    if (depth > 0 && c == '%') { // a parameter's name
      while (i + 1 < h.size() && ident_char(h[i + 1]))
        ++i;
      continue;
    }
    sig += c;
  }
  static const std::set<std::string> k_drop = {
      "internal",  "private", "linkonce_odr", "linkonce", "weak",         "weak_odr",
      "dso_local", "hidden",  "protected",    "external", "unnamed_addr", "local_unnamed_addr",
      "noundef",   "zeroext", "signext"};
  std::string cleaned;
  size_t i = 0;
  while (i < sig.size()) {
    if (std::isspace(static_cast<unsigned char>(sig[i])) != 0) {
      cleaned += sig[i++];
      continue;
    }
    size_t j = i;
    while (j < sig.size() && std::isspace(static_cast<unsigned char>(sig[j])) == 0 && sig[j] != '(')
      ++j;
    word = sig.substr(i, j - i);
    if (sig[i] == '@' || !k_drop.count(word)) cleaned += word;
    if (j < sig.size() && sig[j] == '(') {
      cleaned += sig.substr(j);
      break;
    }
    i = j;
  }
  out += cleaned;
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

std::vector<std::string> targets_of(const std::string& l);

// Lines of each `define ... {` .. `}` block: [first, last] indices.
std::vector<std::pair<size_t, size_t>> define_blocks(const std::vector<std::string>& lines) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!starts_with(lines[i], "define ")) continue;
    size_t j = i;
    while (j < lines.size() && !starts_with(lines[j], "}"))
      ++j;
    if (j == lines.size()) break;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

Split whole_lines(const std::string& text, bool (*pick)(const std::string& line, bool in_body)) {
  Split s;
  bool body = false;
  for (auto& l : split_lines(text)) {
    Segment seg{l, "", -1};
    if (pick(l, body)) seg.chunk = static_cast<int>(s.chunks++);
    // A body opens on a `define ... {` line (IR) or a `{` line of its own (PTX).
    if (starts_with(l, "}"))
      body = false;
    else if ((starts_with(l, "define ") && l.find('{') != std::string::npos) || starts_with(l, "{"))
      body = true;
    s.segments.push_back(std::move(seg));
  }
  return s;
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
    for (; next <= a; ++next)
      s.segments.push_back({lines[next], "", -1});
    std::string body;
    for (size_t i = a + 1; i < b; ++i)
      body += lines[i];
    bool is_void = lines[a].find(" void @") != std::string::npos;
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

Split ll_instructions(const std::string& text) {
  return whole_lines(text, [](const std::string& l, bool body) {
    if (!body) return false;
    std::string t = trim_left(l);
    return starts_with(t, "store ") || starts_with(t, "call void") ||
           starts_with(t, "tail call void") || starts_with(t, "fence ") ||
           starts_with(t, "atomicrmw ");
  });
}

// Conditional branches made unconditional (to target `which`); cleanup drops
// the blocks no longer reached.
Split ll_branches(const std::string& text, size_t which) {
  Split s;
  bool body = false;
  for (auto& l : split_lines(text)) {
    Segment seg{l, "", -1};
    std::string t = trim_left(l);
    auto targets = targets_of(l);
    if (body && starts_with(t, "br i1 ") && targets.size() == 2) {
      seg.removed = l.substr(0, l.size() - t.size()) + "br label %" + targets[which] + "\n";
      seg.chunk = static_cast<int>(s.chunks++);
    }
    if (starts_with(l, "define ")) body = true;
    if (starts_with(l, "}")) body = false;
    s.segments.push_back(std::move(seg));
  }
  return s;
}

Split ll_branches_else(const std::string& text) {
  return ll_branches(text, 1);
}
Split ll_branches_then(const std::string& text) {
  return ll_branches(text, 0);
}

Split ll_metadata(const std::string& text) {
  return whole_lines(text, [](const std::string& l, bool body) {
    return !body && l.size() > 1 && l[0] == '!' && std::isalpha(static_cast<unsigned char>(l[1])) &&
           !starts_with(l, "!nvvmir.version");
  });
}

Split ptx_functions(const std::string& text) {
  auto lines = split_lines(text);
  Split s;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    bool head = !std::isspace(static_cast<unsigned char>(l.empty() ? ' ' : l[0])) &&
                (l.find(".entry ") != std::string::npos || l.find(".func ") != std::string::npos);
    if (!head) {
      s.segments.push_back({l, "", -1});
      continue;
    }
    size_t j = i;
    while (j < lines.size() && !starts_with(lines[j], "}"))
      ++j;
    if (j == lines.size()) { // a declaration without a body
      s.segments.push_back({l, "", -1});
      continue;
    }
    std::string block;
    for (size_t k = i; k <= j; ++k)
      block += lines[k];
    s.segments.push_back({block, "", static_cast<int>(s.chunks++)});
    i = j;
  }
  return s;
}

Split ptx_lines(const std::string& text) {
  return whole_lines(text, [](const std::string& l, bool body) {
    std::string t = trim_left(l);
    return body && !t.empty() && t.find(';') != std::string::npos;
  });
}

Split text_lines(const std::string& text) {
  return whole_lines(text, [](const std::string&, bool) { return true; });
}

// The label a line defines ("bb3:" -> "bb3"), or "".
std::string label_of(const std::string& l) {
  size_t colon = l.find(':');
  if (l.empty() || colon == std::string::npos || colon == 0) return {};
  for (size_t i = 0; i < colon; ++i)
    if (!ident_char(l[i])) return {};
  return l.substr(0, colon);
}

// Every `label %x` target on a line.
std::vector<std::string> targets_of(const std::string& l) {
  std::vector<std::string> out;
  size_t p = 0;
  while ((p = l.find("label %", p)) != std::string::npos) {
    out.push_back(leading_name(l.substr(p + 6), '%'));
    p += 7;
  }
  return out;
}

// Removes the blocks of [a, b] no branch reaches from the entry, and the phi entries
// of edges that no longer exist. Removing edges keeps every dominance the IR relied
// on, so the module stays valid.
bool ll_cfg_cleanup(std::vector<std::string>& lines, size_t a, size_t b) {
  struct Block {
    std::string name;
    size_t first = 0, last = 0; // line range, label included
    std::vector<std::string> succ;
  };
  std::vector<Block> blocks;
  for (size_t i = a + 1; i < b; ++i) {
    if (trim_left(lines[i]).rfind("switch ", 0) == 0) return false; // successors over lines
    std::string name = label_of(lines[i]);
    if (!name.empty() || blocks.empty()) {
      blocks.push_back({name, i, i, {}});
      if (!name.empty()) continue;
    }
    if (!lines[i].empty()) blocks.back().last = i;
    auto t = targets_of(lines[i]);
    if (starts_with(trim_left(lines[i]), "br ")) blocks.back().succ = t;
  }
  if (blocks.empty()) return false;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < blocks.size(); ++i)
    index[blocks[i].name] = i;
  std::vector<char> seen(blocks.size(), 0);
  std::vector<size_t> todo = {0};
  seen[0] = 1;
  while (!todo.empty()) {
    size_t k = todo.back();
    todo.pop_back();
    for (const auto& s : blocks[k].succ) {
      auto it = index.find(s);
      if (it != index.end() && !seen[it->second]) seen[it->second] = 1, todo.push_back(it->second);
    }
  }
  // A block that only branches on to a block without phis: its predecessors branch there
  // directly (it then has none and goes). It defines nothing, so every use stays dominated.
  bool changed = false;
  for (size_t k = 1; k < blocks.size(); ++k) {
    const Block& bl = blocks[k];
    if (!seen[k] || bl.succ.size() != 1 || bl.last != bl.first + 1 ||
        !starts_with(trim_left(lines[bl.last]), "br label %"))
      continue;
    auto to = index.find(bl.succ[0]);
    if (to == index.end() || to->second == k) continue;
    size_t end = to->second + 1 < blocks.size() ? blocks[to->second + 1].first : b;
    bool phi = false;
    for (size_t i = blocks[to->second].first; i < end; ++i)
      phi = phi || lines[i].find(" = phi ") != std::string::npos;
    if (phi) continue;
    std::string from = "label %" + bl.name, into = "label %" + bl.succ[0];
    for (size_t i = a + 1; i < b; ++i) {
      if (i == bl.last || !starts_with(trim_left(lines[i]), "br ")) continue;
      std::string& l = lines[i];
      for (size_t p = l.find(from); p != std::string::npos; p = l.find(from, p + into.size())) {
        size_t e = p + from.size();
        if (e < l.size() && ident_char(l[e])) continue; // %bb1 inside %bb12
        l.replace(p, from.size(), into);
        changed = true;
      }
    }
    if (changed) return true; // the block structure moved: the next round starts over
  }
  std::map<std::string, std::set<std::string>> preds;
  for (size_t k = 0; k < blocks.size(); ++k)
    if (seen[k])
      for (const auto& s : blocks[k].succ)
        preds[s].insert(blocks[k].name);
  for (size_t k = 0; k < blocks.size(); ++k) {
    size_t end = k + 1 < blocks.size() ? blocks[k + 1].first : b;
    if (!seen[k]) {
      for (size_t i = blocks[k].first; i < end; ++i)
        lines[i].clear();
      changed = true;
      continue;
    }
    for (size_t i = blocks[k].first; i < end; ++i) {
      std::string t = trim_left(lines[i]);
      size_t eq = t.find(" = phi ");
      if (t.empty() || t[0] != '%' || eq == std::string::npos) continue;
      // "%v = phi T [ x, %p ], [ y, %q ]": keep the entries whose block is still a predecessor.
      size_t open = lines[i].find('[');
      std::string head = lines[i].substr(0, open);
      std::string kept;
      size_t p = open;
      bool dropped = false;
      while (p != std::string::npos && p < lines[i].size()) {
        size_t close = lines[i].find(']', p);
        if (close == std::string::npos) break;
        std::string entry = lines[i].substr(p, close - p + 1);
        size_t pct = entry.rfind('%');
        std::string from = pct == std::string::npos ? "" : leading_name(entry.substr(pct), '%');
        if (preds[blocks[k].name].count(from))
          kept += (kept.empty() ? "" : ", ") + entry;
        else
          dropped = true;
        p = lines[i].find('[', close);
      }
      if (dropped && !kept.empty()) {
        lines[i] = head + kept + "\n";
        changed = true;
      }
    }
  }
  return changed;
}

// One round of NVVM IR cleanup; true when it removed something.
bool ll_cleanup_round(std::vector<std::string>& lines) {
  bool changed = false;
  for (auto [a, b] : define_blocks(lines))
    changed = ll_cfg_cleanup(lines, a, b) || changed;
  // Instructions whose value nothing uses, per function.
  for (auto [a, b] : define_blocks(lines)) {
    std::string body;
    for (size_t i = a; i <= b; ++i)
      body += lines[i];
    auto uses = token_counts(body, '%');
    for (size_t i = a + 1; i < b; ++i) {
      std::string name = leading_name(trim_left(lines[i]), '%');
      if (name.empty() || trim_left(lines[i]).find(" = ") == std::string::npos) continue;
      auto it = uses.find(name);
      if (it != uses.end() && it->second == 1) {
        lines[i].clear();
        changed = true;
      }
    }
  }
  std::string all;
  for (auto& l : lines)
    all += l;
  std::set<std::string> defined;
  for (auto& l : lines)
    if (starts_with(l, "define ")) defined.insert(function_name(l));
  std::set<std::string> declared;
  for (auto& l : lines)
    if (starts_with(l, "declare ")) declared.insert(function_name(l));
  auto at = token_counts(all, '@');
  auto bang = token_counts(all, '!');
  auto hash = token_counts(all, '#');
  std::set<std::string> dropped_nodes;
  for (auto& l : lines) {
    if (l.empty()) continue;
    if (starts_with(l, "declare ")) {
      if (at[function_name(l)] == 1) l.clear(), changed = true;
    } else if (l[0] == '@') {
      std::string n = leading_name(l, '@');
      if (at[n] == 1) l.clear(), changed = true;
    } else if (l[0] == '!' && std::isdigit(static_cast<unsigned char>(l.size() > 1 ? l[1] : 'x'))) {
      std::string n = leading_name(l, '!');
      // A kernel annotation of a function that is only declared now.
      bool dangling = false;
      for (const auto& tok : token_counts(l, '@'))
        dangling = dangling || (declared.count(tok.first) != 0 && defined.count(tok.first) == 0);
      if (bang[n] == 1 || dangling) {
        dropped_nodes.insert(n);
        l.clear();
        changed = true;
      }
    } else if (starts_with(l, "attributes #")) {
      if (hash[leading_name(l.substr(11), '#')] == 1) l.clear(), changed = true;
    }
  }
  // Named metadata loses its operands that were dropped; an empty one goes.
  if (!dropped_nodes.empty())
    for (auto& l : lines) {
      if (l.size() < 2 || l[0] != '!' || !std::isalpha(static_cast<unsigned char>(l[1]))) continue;
      size_t open = l.find("!{");
      if (open == std::string::npos) continue;
      std::string ops = l.substr(open + 2, l.rfind('}') - open - 2);
      std::string kept;
      size_t p = 0;
      while (p <= ops.size()) {
        size_t c = ops.find(',', p);
        if (c == std::string::npos) c = ops.size();
        std::string op = trim_left(ops.substr(p, c - p));
        while (!op.empty() && std::isspace(static_cast<unsigned char>(op.back())))
          op.pop_back();
        if (!op.empty() && !(op[0] == '!' && dropped_nodes.count(op.substr(1))))
          kept += (kept.empty() ? "" : ", ") + op;
        p = c + 1;
      }
      l = kept.empty() ? std::string() : l.substr(0, open) + "!{" + kept + "}\n";
    }
  lines.erase(std::remove(lines.begin(), lines.end(), std::string()), lines.end());
  return changed;
}

} // namespace

TextFormat format_of(const std::string& path) {
  std::string ext = file_extension(path);
  if (ext == "ll") return TextFormat::nvvm_ir;
  if (ext == "ptx") return TextFormat::ptx;
  for (const char* c : {"cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp"})
    if (ext == c) return TextFormat::cxx;
  return TextFormat::text;
}

const char* to_string(TextFormat format) {
  switch (format) {
  case TextFormat::nvvm_ir:
    return "nvvm-ir";
  case TextFormat::ptx:
    return "ptx";
  case TextFormat::cxx:
    return "c++";
  case TextFormat::text:
    return "text";
  }
  return "text";
}

const std::vector<Pass>& pass_table() {
  // NVVM IR gets no line pass: every IR pass keeps the module parseable, so a
  // compiler that accepts anything cannot lead the reduction to broken IR.
  static const std::vector<Pass> table = {
      {"ll-functions", TextFormat::nvvm_ir, ll_functions},
      {"ll-bodies", TextFormat::nvvm_ir, ll_bodies},
      {"ll-branches", TextFormat::nvvm_ir, ll_branches_else},
      {"ll-branches-then", TextFormat::nvvm_ir, ll_branches_then},
      {"ll-instructions", TextFormat::nvvm_ir, ll_instructions},
      {"ll-metadata", TextFormat::nvvm_ir, ll_metadata},
      {"ptx-functions", TextFormat::ptx, ptx_functions},
      {"ptx-lines", TextFormat::ptx, ptx_lines},
      {"lines", TextFormat::text, text_lines},
  };
  return table;
}

std::string render(const Split& split, const std::vector<size_t>& keep) {
  std::vector<char> kept(split.chunks, 0);
  for (size_t k : keep)
    kept[k] = 1;
  std::string out;
  for (const auto& s : split.segments)
    out += (s.chunk < 0 || kept[static_cast<size_t>(s.chunk)]) ? s.text : s.removed;
  return out;
}

std::string cleanup(TextFormat format, const std::string& text) {
  if (format != TextFormat::nvvm_ir) return text;
  auto lines = split_lines(text);
  // Comments and blank lines carry nothing a compiler reads.
  for (auto& l : lines) {
    std::string t = trim_left(l);
    if (t.empty() || t == "\n" || t[0] == ';') l.clear();
  }
  lines.erase(std::remove(lines.begin(), lines.end(), std::string()), lines.end());
  for (int round = 0; round < 1000 && ll_cleanup_round(lines); ++round) {
  }
  std::string out;
  for (auto& l : lines)
    out += l;
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t n = text.find('\n', p);
    size_t end = n == std::string::npos ? text.size() : n + 1;
    out.push_back(text.substr(p, end - p));
    p = end;
  }
  return out;
}

} // namespace kdet::reduce
