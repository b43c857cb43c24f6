//===- reduce/ir_cleanup.cpp - what an NVVM IR candidate leaves unused goes ---===//
//
// Every NVVM IR candidate is cleaned to a fixpoint before it is tested, so the
// passes can drop pieces without knowing what depended on them:
//   - the uses of a dropped value (its `;kdet-undef %x` marker) become `undef`;
//   - comments and blank lines go; numbered names (`%0`, `6:`, `@1`) get names,
//     since LLVM wants numbered ones in sequence and a dropped one would break it;
//   - blocks no branch reaches, phi entries of edges gone, blocks that only branch on;
//   - instructions whose value nothing uses; declarations, globals, named types and
//     attribute groups nothing names; numbered metadata no root reaches (named
//     metadata, attachments); kernel annotations of functions only declared now.
//
//===----------------------------------------------------------------------===//
#include "kdet/reduce/ir_lexer.hpp"
#include "kdet/reduce/passes_ir.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kdet::reduce::ir {

namespace {

std::vector<std::string> targets_of(const std::string& l) {
  std::vector<std::string> out;
  for_each_name(l, '%', [&](const Name& n) {
    if (n.begin >= 6 && l.compare(n.begin - 6, 6, "label ") == 0) out.push_back(n.key);
  });
  return out;
}

void erase_empty(std::vector<std::string>& lines) {
  lines.erase(std::remove(lines.begin(), lines.end(), std::string()), lines.end());
}

// The uses of each value a marker names become `undef`, in the marker's function.
void apply_undef_markers(std::vector<std::string>& lines) {
  for (auto [a, b] : define_blocks(lines)) {
    std::map<std::string, std::string> to;
    for (size_t i = a + 1; i < b; ++i) {
      std::string t = trim_left(lines[i]);
      if (!t.starts_with(k_undef_marker)) continue;
      std::string name = leading_name(t.substr(std::string(k_undef_marker).size()), '%');
      if (!name.empty()) to[name] = "undef";
      lines[i].clear();
    }
    if (to.empty()) continue;
    for (size_t i = a; i <= b; ++i)
      lines[i] = replace_names(lines[i], '%', to);
  }
}

// A prefix P such that no key in `keys` is P followed by digits.
std::string free_prefix(const std::set<std::string>& keys, std::string p) {
  auto clash = [&](const std::string& q) {
    for (const auto& k : keys)
      if (k.size() > q.size() && k.compare(0, q.size(), q) == 0 && numbered(k.substr(q.size())))
        return true;
    return false;
  };
  while (clash(p))
    p += "_";
  return p;
}

// Numbered names get names (`%5` -> `%v5`, `6:` -> `v6:`, `@0` -> `@g0`).
void name_numbered(std::vector<std::string>& lines) {
  for (auto [a, b] : define_blocks(lines)) {
    std::set<std::string> keys;
    bool any = false;
    for (size_t i = a; i <= b; ++i)
      for_each_name(lines[i], '%', [&](const Name& n) {
        keys.insert(n.key);
        any = any || numbered(n.key);
      });
    if (!any) continue;
    std::string p = free_prefix(keys, "v");
    std::map<std::string, std::string> to;
    for (const auto& k : keys)
      if (numbered(k)) to[k] = "%" + p + k;
    for (size_t i = a; i <= b; ++i) {
      std::string label = label_of(lines[i]);
      if (numbered(label))
        lines[i] = p + lines[i];
      else
        lines[i] = replace_names(lines[i], '%', to);
    }
  }
  std::set<std::string> globals;
  bool any = false;
  for (auto& l : lines)
    for_each_name(l, '@', [&](const Name& n) {
      globals.insert(n.key);
      any = any || numbered(n.key);
    });
  if (!any) return;
  std::string p = free_prefix(globals, "g");
  std::map<std::string, std::string> to;
  for (const auto& k : globals)
    if (numbered(k)) to[k] = "@" + p + k;
  for (auto& l : lines)
    l = replace_names(l, '@', to);
}

// Removes the blocks of [a, b] no branch reaches from the entry, and the phi entries
// of edges that no longer exist. Removing edges keeps every dominance the IR relied
// on, so the module stays valid.
bool cfg_cleanup(std::vector<std::string>& lines, size_t a, size_t b) {
  struct Block {
    std::string name;
    size_t first = 0, last = 0; // line range, label included
    std::vector<std::string> succ;
  };
  std::vector<Block> blocks;
  size_t start = body_start(lines, a, b);
  for (size_t i = start; i < b; ++i) {
    std::string t = trim_left(lines[i]);
    if (t.starts_with("indirectbr ") || t.find("invoke ") != std::string::npos ||
        t.find("callbr ") != std::string::npos)
      return false; // successors this does not follow
    std::string name = label_of(lines[i]);
    if (!name.empty() || blocks.empty()) {
      blocks.push_back({name, i, i, {}});
      if (!name.empty()) continue;
    }
    blocks.back().last = i;
    if (t.starts_with("br ")) blocks.back().succ = targets_of(lines[i]);
    if (t.starts_with("switch ")) { // its cases may follow on lines of their own, up to `]`
      auto& succ = blocks.back().succ;
      succ = targets_of(lines[i]);
      for (size_t j = i; lines[j].find(']') == std::string::npos && j + 1 < b;) {
        auto more = targets_of(lines[++j]);
        succ.insert(succ.end(), more.begin(), more.end());
        blocks.back().last = i = j;
      }
    }
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
  for (size_t k = 1; k < blocks.size(); ++k) {
    const Block& bl = blocks[k];
    if (!seen[k] || bl.succ.size() != 1 || bl.last != bl.first + 1 ||
        !trim_left(lines[bl.last]).starts_with("br label %"))
      continue;
    auto to = index.find(bl.succ[0]);
    if (to == index.end() || to->second == k) continue;
    size_t end = to->second + 1 < blocks.size() ? blocks[to->second + 1].first : b;
    bool phi = false;
    for (size_t i = blocks[to->second].first; i < end; ++i)
      phi = phi || lines[i].find(" = phi ") != std::string::npos;
    if (phi) continue;
    bool changed = false;
    std::map<std::string, std::string> into = {{bl.name, spell('%', bl.succ[0])}};
    for (size_t i = start; i < b; ++i) {
      if (i == bl.last || !trim_left(lines[i]).starts_with("br ")) continue;
      std::string l = replace_names(lines[i], '%', into);
      changed = changed || l != lines[i];
      lines[i] = l;
    }
    if (changed) return true; // the block structure moved: the next round starts over
  }
  std::map<std::string, std::set<std::string>> preds;
  for (size_t k = 0; k < blocks.size(); ++k)
    if (seen[k])
      for (const auto& s : blocks[k].succ)
        preds[s].insert(blocks[k].name);
  bool changed = false;
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
      if (t.empty() || t[0] != '%' || t.find(" = phi ") == std::string::npos) continue;
      // "%v = phi T [ x, %p ], [ y, %q ]": keep the entries whose block is still a predecessor.
      size_t open = lines[i].find('[');
      std::string head = lines[i].substr(0, open);
      std::string kept;
      bool dropped = false;
      for (size_t p = open; p != std::string::npos && p < lines[i].size();) {
        size_t close = lines[i].find(']', p);
        if (close == std::string::npos) break;
        std::string entry = lines[i].substr(p, close - p + 1);
        std::string from;
        for_each_name(entry, '%', [&](const Name& n) { from = n.key; });
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

// Numbered metadata no root reaches; roots: what every line but a numbered node names.
std::set<std::string> unreached_metadata(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> edges;
  std::vector<std::string> todo;
  for (const auto& l : lines) {
    bool node = l.size() > 1 && l[0] == '!' && std::isdigit(static_cast<unsigned char>(l[1]));
    std::string self = node ? leading_name(l, '!') : "";
    for_each_name(l, '!', [&](const Name& n) {
      if (!numbered(n.key) || (node && n.begin == 0)) return;
      if (node)
        edges[self].push_back(n.key);
      else
        todo.push_back(n.key);
    });
    if (node) edges[self];
  }
  std::set<std::string> seen(todo.begin(), todo.end());
  while (!todo.empty()) {
    std::string k = todo.back();
    todo.pop_back();
    for (const auto& e : edges[k])
      if (seen.insert(e).second) todo.push_back(e);
  }
  std::set<std::string> out;
  for (const auto& [k, e] : edges)
    if (!seen.count(k)) out.insert(k);
  return out;
}

// Whether an instruction (the text after `%x = `) does more than compute its value: a call
// (numba's kernel wrapper calls the kernel's body and ignores the status it returns; the call
// is the kernel), an atomic, a volatile or atomic load. Such an instruction stays when its
// value is unused: only the ll-instructions pass removes it, as a candidate of its own.
bool has_side_effects(const std::string& op) {
  static const char* const k_ops[] = {"call ",          "tail call ",   "musttail call ",
                                      "notail call ",   "atomicrmw ",   "cmpxchg ",
                                      "load volatile ", "load atomic ", "va_arg "};
  for (const char* k : k_ops)
    if (op.starts_with(k)) return true;
  return false;
}

// Dead values of each function: an instruction whose name occurs once (its definition) and
// that has no side effect.
bool drop_dead_values(std::vector<std::string>& lines) {
  bool changed = false;
  for (auto [a, b] : define_blocks(lines)) {
    std::map<std::string, int> uses;
    for (size_t i = a; i <= b; ++i)
      for (const auto& [k, c] : name_counts(lines[i], '%'))
        uses[k] += c;
    for (size_t i = a + 1; i < b; ++i) {
      std::string t = trim_left(lines[i]);
      Name n;
      if (t.empty() || t[0] != '%' || !read_name(t, 0, n) || t.compare(n.end, 3, " = ") != 0)
        continue;
      std::string op = t.substr(n.end + 3);
      if (op.starts_with("invoke ") || op.starts_with("callbr ")) continue; // terminators
      if (has_side_effects(op)) continue;
      if (uses[n.key] == 1) lines[i].clear(), changed = true;
    }
  }
  return changed;
}

// Named metadata loses its operands that were dropped; an empty one goes.
void drop_named_operands(std::vector<std::string>& lines, const std::set<std::string>& dropped) {
  for (auto& l : lines) {
    if (l.size() < 2 || l[0] != '!' || !std::isalpha(static_cast<unsigned char>(l[1]))) continue;
    size_t open = l.find("!{");
    if (open == std::string::npos) continue;
    std::string ops = l.substr(open + 2, l.rfind('}') - open - 2);
    std::string kept;
    size_t p = 0;
    bool any = false;
    while (p <= ops.size()) {
      size_t c = ops.find(',', p);
      if (c == std::string::npos) c = ops.size();
      std::string op = trim_left(ops.substr(p, c - p));
      while (!op.empty() && std::isspace(static_cast<unsigned char>(op.back())))
        op.pop_back();
      bool gone = !op.empty() && op[0] == '!' && dropped.count(op.substr(1));
      any = any || gone;
      if (!op.empty() && !gone) kept += (kept.empty() ? "" : ", ") + op;
      p = c + 1;
    }
    if (any) l = kept.empty() ? std::string() : l.substr(0, open) + "!{" + kept + "}\n";
  }
}

// One round of cleanup; true when it removed something.
bool cleanup_round(std::vector<std::string>& lines) {
  bool changed = false;
  for (auto [a, b] : define_blocks(lines))
    changed = cfg_cleanup(lines, a, b) || changed;
  erase_empty(lines);
  changed = drop_dead_values(lines) || changed;
  std::string all;
  for (auto& l : lines)
    all += l;
  std::set<std::string> defined, declared;
  for (auto& l : lines) {
    if (l.starts_with("define ")) defined.insert(function_name(l));
    if (l.starts_with("declare ")) declared.insert(function_name(l));
  }
  auto at = name_counts(all, '@');
  auto pct = name_counts(all, '%');
  auto hash = name_counts(all, '#');
  std::set<std::string> unreached = unreached_metadata(lines);
  std::set<std::string> dropped_nodes;
  for (auto& l : lines) {
    if (l.empty()) continue;
    bool gone = false;
    if (l.starts_with("declare ")) {
      gone = at[function_name(l)] == 1;
    } else if (l[0] == '@') {
      gone = at[leading_name(l, '@')] == 1;
    } else if (l[0] == '%' && l.find(" = type ") != std::string::npos) {
      gone = pct[leading_name(l, '%')] == 1;
    } else if (l[0] == '!' && std::isdigit(static_cast<unsigned char>(l.size() > 1 ? l[1] : 'x'))) {
      std::string n = leading_name(l, '!');
      // A kernel annotation of a function that is only declared now.
      bool dangling = false;
      for (const auto& tok : name_counts(l, '@'))
        dangling = dangling || (declared.count(tok.first) != 0 && defined.count(tok.first) == 0);
      gone = unreached.count(n) != 0 || dangling;
      if (gone) dropped_nodes.insert(n);
    } else if (l.starts_with("attributes #")) {
      gone = hash[leading_name(l.substr(11), '#')] == 1;
    }
    if (gone) l.clear(), changed = true;
  }
  if (!dropped_nodes.empty()) drop_named_operands(lines, dropped_nodes);
  erase_empty(lines);
  return changed;
}

} // namespace

std::string ll_cleanup(const std::string& text) {
  auto lines = split_lines(text);
  apply_undef_markers(lines);
  // Comments and blank lines carry nothing a compiler reads.
  for (auto& l : lines) {
    l = strip_comment(l);
    if (trim_left(l).empty() || trim_left(l) == "\n") l.clear();
  }
  erase_empty(lines);
  if (!lines.empty() && lines.back().back() != '\n') lines.back() += "\n";
  name_numbered(lines);
  for (int round = 0; round < 1000 && cleanup_round(lines); ++round) {
  }
  std::string out;
  for (auto& l : lines)
    out += l;
  return out;
}

} // namespace kdet::reduce::ir
