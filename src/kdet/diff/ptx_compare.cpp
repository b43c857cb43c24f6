//===- diff/ptx_compare.cpp - canonicalise and classify PTX functions ------===//
//
// Rules, per function present in both inputs (matched by name):
//  1. identical   its source lines are byte-for-byte equal.
//  2. trivia      equal once comments are removed and whitespace collapsed.
//  Otherwise each side is canonicalised: virtual registers whose prefix the
//  function declares with `.reg .T %p<N>` are renamed %p1, %p2, ... per prefix
//  in order of first appearance, and labels defined in the body are renamed
//  $L__1, $L__2, ... in order of first appearance. The "shape" of a statement is
//  its canonical form with register and label numbers erased (%r?, $L?).
//  Code class, from the body statements other than the counted .reg lines:
//  - canonical sequences equal                              -> renamed
//  - canonical multisets equal                              -> reordered
//  - shape multisets equal, shape sequences differ          -> reordered
//    (a reorder also permutes first-use names; data flow is not re-checked)
//  - anything else (incl. equal shape sequence, other data flow) -> code
//  moved = statements not on a longest common subsequence of the shapes.
//  A header (signature, .maxntid, ...) difference makes it code. Then:
//  final = code if code, else reg_decls if a `.reg` count or type differs,
//  else the code class. The module-level part (everything outside bodies) is
//  compared as normalised statements: identical / trivia / reordered / code.
//  Hunks: the shapes are aligned (Myers), registers of B are mapped to A's
//  names through aligned statements, and the rendered lines are diffed, so a
//  renumbering does not show and a moved instruction shows as one -/+ pair.
//  The lines shown are each file's own statements (a context line the same up
//  to renaming carries B's own text too), or the canonical ones on request.
// Report: functions_reordered when the common functions come in another order
// (then at least reordered); ordering_only when it is reordered and no entry is
// worse than reordered.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/diff/ptx_reader.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

namespace kdet::diff::detail {

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// A register or label occurrence inside a statement.
struct Tok {
  bool label = false;
  std::string prefix; // register prefix ("rd"), empty for labels
  uint32_t sym = 0;   // index into Side::syms
};

// A statement cut around its register and label tokens: pieces.size() == toks.size() + 1.
struct Stmt {
  std::vector<std::string> pieces;
  std::vector<Tok> toks;
  std::string norm;
  size_t line = 0;
};

// A `.reg .T %p<N>;` declaration.
struct RegDecl {
  std::string type;
  uint64_t count = 0;
  size_t line = 0;
};

// One function, tokenised.
struct Side {
  std::vector<Stmt> body;               // without the counted .reg lines
  std::vector<PtxStatement> head;       // header + counted .reg lines, as normalised text
  std::map<std::string, RegDecl> decls; // prefix -> declaration
  std::vector<std::string> canon;       // canonical name per symbol (first use)
  std::vector<bool> sym_is_label;
  std::vector<std::string> sym_prefix;
};

// Parses `.reg .b64 %rd<15>;` into prefix and declaration.
bool parse_reg_decl(const std::string& s, std::string& prefix, RegDecl& d) {
  if (s.rfind(".reg ", 0) != 0) return false;
  size_t t0 = 5, t1 = s.find(' ', t0);
  if (t1 == std::string::npos) return false;
  d.type = s.substr(t0, t1 - t0);
  size_t p = t1 + 1;
  if (p >= s.size() || s[p] != '%') return false;
  size_t q = ++p;
  while (q < s.size() && std::isalpha(static_cast<unsigned char>(s[q])))
    ++q;
  if (q == p || q >= s.size() || s[q] != '<') return false;
  prefix = s.substr(p, q - p);
  size_t r = ++q;
  uint64_t n = 0;
  while (r < s.size() && std::isdigit(static_cast<unsigned char>(s[r])) && n < (1ull << 40))
    n = n * 10 + static_cast<uint64_t>(s[r++] - '0');
  if (r == q || s.compare(r, std::string::npos, ">;") != 0) return false;
  d.count = n;
  return true;
}

Side tokenise(const PtxFunction& f) {
  Side side;
  for (const auto& h : f.header)
    side.head.push_back(h);
  std::set<std::string> labels;
  std::vector<const PtxStatement*> body;
  for (const auto& s : f.body) {
    std::string prefix;
    RegDecl d;
    d.line = s.line;
    if (parse_reg_decl(s.text, prefix, d)) {
      side.decls[prefix] = d;
      side.head.push_back(s);
      continue;
    }
    if (s.text.size() > 1 && s.text.back() == ':')
      labels.insert(s.text.substr(0, s.text.size() - 1));
    body.push_back(&s);
  }
  std::unordered_map<std::string, uint32_t> sym_ids;
  std::map<std::string, uint32_t> counters;
  uint32_t label_counter = 0;
  auto symbol = [&](const std::string& name, bool label, const std::string& prefix) {
    auto [it, fresh] = sym_ids.emplace(name, static_cast<uint32_t>(side.canon.size()));
    if (fresh) {
      side.canon.push_back(label ? fmt::format("$L__{}", ++label_counter)
                                 : fmt::format("%{}{}", prefix, ++counters[prefix]));
      side.sym_is_label.push_back(label);
      side.sym_prefix.push_back(prefix);
    }
    return it->second;
  };
  for (const auto* s : body) {
    Stmt st;
    st.norm = s->text;
    st.line = s->line;
    const std::string& t = s->text;
    std::string piece;
    size_t i = 0;
    while (i < t.size()) {
      char c = t[i];
      bool boundary = i == 0 || !ident_char(t[i - 1]);
      if (c == '%' && boundary) {
        size_t j = i + 1;
        while (j < t.size() && std::isalpha(static_cast<unsigned char>(t[j])))
          ++j;
        size_t k = j;
        while (k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])))
          ++k;
        std::string prefix = t.substr(i + 1, j - i - 1);
        if (k > j && (k == t.size() || !ident_char(t[k])) && side.decls.count(prefix)) {
          st.pieces.push_back(std::move(piece));
          piece.clear();
          st.toks.push_back({false, prefix, symbol(t.substr(i, k - i), false, prefix)});
          i = k;
          continue;
        }
      } else if (ident_start(c) && boundary) {
        size_t j = i + 1;
        while (j < t.size() && ident_char(t[j]))
          ++j;
        std::string name = t.substr(i, j - i);
        if (labels.count(name)) {
          st.pieces.push_back(std::move(piece));
          piece.clear();
          st.toks.push_back({true, "", symbol(name, true, "")});
        } else {
          piece += name;
        }
        i = j;
        continue;
      }
      piece += c;
      ++i;
    }
    st.pieces.push_back(std::move(piece));
    side.body.push_back(std::move(st));
  }
  return side;
}

// Renders a statement with the given name per symbol (or the erased shape when names is null).
std::string render(const Stmt& s, const Side& side, const std::vector<std::string>* names) {
  std::string out = s.pieces[0];
  for (size_t t = 0; t < s.toks.size(); ++t) {
    const Tok& tok = s.toks[t];
    if (names)
      out += (*names)[tok.sym];
    else
      out += tok.label ? "$L?" : "%" + tok.prefix + "?";
    out += s.pieces[t + 1];
  }
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Replaces numeric literals (123, 0f3F800000, 0x1F, -4) by '#'.
std::string erase_immediates(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool boundary = i == 0 || !(ident_char(s[i - 1]) || s[i - 1] == '%' || s[i - 1] == '.');
    if (boundary && std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && ident_char(s[i]))
        ++i;
      out += '#';
      continue;
    }
    out += s[i++];
  }
  return out;
}

Entry compare_functions(const PtxFunction& fa, const PtxFunction& fb, bool canonical,
                        bool& approximate, size_t& budget, bool& cut) {
  Entry e;
  e.name = fa.name;
  e.kind = fa.kind;
  Side a = tokenise(fa), b = tokenise(fb);
  e.count_a = a.body.size();
  e.count_b = b.body.size();
  if (fa.raw == fb.raw) return e;

  std::vector<std::string> norm_a, norm_b;
  for (const auto& h : fa.header)
    norm_a.push_back(h.text);
  for (const auto& s : fa.body)
    norm_a.push_back(s.text);
  for (const auto& h : fb.header)
    norm_b.push_back(h.text);
  for (const auto& s : fb.body)
    norm_b.push_back(s.text);
  if (norm_a == norm_b) {
    e.change = Change::trivia;
    e.notes.push_back("only comments or whitespace differ");
    return e;
  }

  std::vector<std::string> canon_a, canon_b, shape_a, shape_b;
  for (const auto& s : a.body)
    canon_a.push_back(render(s, a, &a.canon)), shape_a.push_back(render(s, a, nullptr));
  for (const auto& s : b.body)
    canon_b.push_back(render(s, b, &b.canon)), shape_b.push_back(render(s, b, nullptr));

  Interner interner;
  std::vector<uint32_t> ids_a, ids_b;
  for (const auto& s : shape_a)
    ids_a.push_back(interner.id(s));
  for (const auto& s : shape_b)
    ids_b.push_back(interner.id(s));
  EditScript align = diff_sequences(ids_a, ids_b);
  approximate |= align.approximate;

  Change code_class;
  if (canon_a == canon_b) {
    code_class = Change::renamed;
    e.aspects.push_back("names");
  } else if (sorted(canon_a) == sorted(canon_b) ||
             (shape_a != shape_b && sorted(shape_a) == sorted(shape_b))) {
    code_class = Change::reordered;
    e.moved = e.count_a - align.kept;
    e.aspects.push_back("order");
    e.notes.push_back(fmt::format("{} of {} instructions moved", e.moved, e.count_a));
  } else {
    code_class = Change::code;
    std::vector<std::string> skel_a, skel_b;
    for (const auto& s : shape_a)
      skel_a.push_back(erase_immediates(s));
    for (const auto& s : shape_b)
      skel_b.push_back(erase_immediates(s));
    if (shape_a == shape_b) {
      e.aspects.push_back("operands");
      e.notes.push_back("same instructions in the same order, but registers flow differently");
    } else if (sorted(skel_a) == sorted(skel_b)) {
      e.aspects.push_back("immediates");
      e.notes.push_back("same instructions up to immediate values");
    } else {
      e.aspects.push_back("code");
    }
    e.notes.push_back(fmt::format("{} in A, {} in B, {} in common",
                                  plural(e.count_a, "instruction"), e.count_b, align.kept));
  }

  std::vector<std::string> head_a, head_b;
  for (const auto& h : fa.header)
    head_a.push_back(h.text);
  for (const auto& h : fb.header)
    head_b.push_back(h.text);
  if (head_a != head_b) {
    code_class = Change::code;
    e.aspects.push_back("signature");
    e.notes.push_back("signature or performance directives differ");
  }

  bool decls_differ = false;
  std::set<std::string> prefixes;
  for (const auto& [p, d] : a.decls)
    prefixes.insert(p);
  for (const auto& [p, d] : b.decls)
    prefixes.insert(p);
  for (const auto& p : prefixes) {
    auto ia = a.decls.find(p), ib = b.decls.find(p);
    auto show = [&](const auto& it, const auto& end) {
      return it == end ? std::string()
                       : fmt::format(".reg {} %{}<{}>", it->second.type, p, it->second.count);
    };
    std::string va = show(ia, a.decls.end()), vb = show(ib, b.decls.end());
    if (va != vb) {
      decls_differ = true;
      e.values.push_back({".reg %" + p, va, vb});
      e.notes.push_back(
          fmt::format("{} -> {}", va.empty() ? "(none)" : va, vb.empty() ? "(none)" : vb));
    }
  }
  if (decls_differ) e.aspects.push_back("reg_decls");
  e.change = code_class == Change::code ? Change::code
             : decls_differ             ? Change::reg_decls
                                        : code_class;

  // Hunks: B's symbols take A's names where aligned statements pin them down, so a renaming
  // does not show; the lines shown are each file's own (or, on request, the canonical ones).
  std::vector<std::string> mapped = map_names(align, a.body, b.body, a.canon, b.canon);
  HunkSide ha, hb;
  for (const auto& h : a.head)
    ha.compared.push_back(h.text), ha.own.push_back(h.text), ha.line.push_back(h.line);
  for (const auto& h : b.head)
    hb.compared.push_back(h.text), hb.own.push_back(h.text), hb.line.push_back(h.line);
  for (const auto& s : a.body)
    ha.compared.push_back(render(s, a, &a.canon)), ha.own.push_back(s.norm),
        ha.line.push_back(s.line);
  for (const auto& s : b.body)
    hb.compared.push_back(render(s, b, &mapped)), hb.own.push_back(s.norm),
        hb.line.push_back(s.line);
  e.hunks = renamed_hunks(ha, hb, canonical, approximate, budget, cut);
  return e;
}

Entry compare_module(const PtxModule& ma, const PtxModule& mb, bool& approximate, size_t& budget,
                     bool& cut) {
  Entry e;
  e.name = "(module)";
  e.kind = "module";
  e.count_a = ma.module.size();
  e.count_b = mb.module.size();
  if (ma.module_raw == mb.module_raw) return e;
  std::vector<std::string> ta, tb;
  std::vector<size_t> la, lb;
  for (const auto& s : ma.module)
    ta.push_back(s.text), la.push_back(s.line);
  for (const auto& s : mb.module)
    tb.push_back(s.text), lb.push_back(s.line);
  if (ta == tb) {
    e.change = Change::trivia;
    e.notes.push_back("only comments or whitespace differ");
    return e;
  }
  Interner in;
  std::vector<uint32_t> ia, ib;
  for (const auto& s : ta)
    ia.push_back(in.id(s));
  for (const auto& s : tb)
    ib.push_back(in.id(s));
  EditScript script = diff_sequences(ia, ib);
  approximate |= script.approximate;
  if (sorted(ta) == sorted(tb)) {
    e.change = Change::reordered;
    e.moved = ta.size() - script.kept;
    e.aspects.push_back("order");
    e.notes.push_back(fmt::format("{} of {} module-level statements moved", e.moved, ta.size()));
  } else {
    e.change = Change::code;
    e.aspects.push_back("code");
    e.notes.push_back("module-level declarations or directives differ");
  }
  e.hunks = make_hunks(script, ta, tb, la, lb, 3, &budget, &cut);
  return e;
}

} // namespace

Report compare_ptx(std::string_view a, std::string_view b, bool canonical) {
  Report r;
  r.format = Format::ptx;
  r.size_a = a.size();
  r.size_b = b.size();
  PtxModule ma = read_ptx(a), mb = read_ptx(b);
  size_t budget = k_max_report_hunk_lines;
  bool cut = false;
  r.entries.push_back(compare_module(ma, mb, r.approximate, budget, cut));
  std::map<std::string, const PtxFunction*> by_name_b;
  for (const auto& f : mb.functions)
    by_name_b.emplace(f.name, &f);
  std::set<std::string> seen;
  for (const auto& fa : ma.functions) {
    if (!seen.insert(fa.name).second) continue; // a duplicate name: the first one speaks for it
    auto it = by_name_b.find(fa.name);
    if (it == by_name_b.end()) {
      r.entries.push_back(one_sided_entry(fa.name, fa.kind, true, fa.body.size()));
      continue;
    }
    r.entries.push_back(compare_functions(fa, *it->second, canonical, r.approximate, budget, cut));
  }
  for (const auto& fb : mb.functions) {
    if (!seen.insert(fb.name).second) continue;
    r.entries.push_back(one_sided_entry(fb.name, fb.kind, false, fb.body.size()));
  }
  set_overall(r);
  // Function order: the functions common to both, each side's order (first of a name).
  std::vector<std::string> order_a, order_b;
  std::set<std::string> in_a, in_b, listed;
  for (const auto& f : ma.functions)
    in_a.insert(f.name);
  for (const auto& f : mb.functions)
    if (in_a.count(f.name) && listed.insert(f.name).second) order_b.push_back(f.name);
  for (const auto& f : mb.functions)
    in_b.insert(f.name);
  listed.clear();
  for (const auto& f : ma.functions)
    if (in_b.count(f.name) && listed.insert(f.name).second) order_a.push_back(f.name);
  r.functions_reordered = order_a != order_b;
  if (r.functions_reordered) {
    r.notes.push_back("functions appear in another order");
    if (severity(r.overall) < severity(Change::reordered)) r.overall = Change::reordered;
  } else if (r.overall == Change::identical && a != b) {
    r.overall = Change::reordered;
    r.notes.push_back("the same functions and declarations appear in another order");
  }
  // Ordering differences only: nothing differs but order, names and comments.
  r.ordering_only = r.overall == Change::reordered;
  for (const auto& e : r.entries)
    r.ordering_only &= severity(e.change) <= severity(Change::reordered);
  if (r.approximate) r.notes.push_back("a diff hit its size cap; the diff may not be minimal");
  if (cut) r.notes.push_back(hunks_cut_note());
  return r;
}

} // namespace kdet::diff::detail
