//===- diff/sass_reader.cpp - reads and canonicalises SASS listings --------===//
//
// Listing shapes read (both printed by CUDA 13 for sm_90; tests/data/sass/):
//  nvdisasm:   `.section .text.NAME,...` opens a function, any other .section
//              closes it; `NAME:` lines define labels; instructions are
//              `/*0130*/  BRA `(.L_x_0);` with targets as `(label).
//  cuobjdump:  `Function : NAME` opens a function; instructions are
//              `/*0130*/  BRA 0x130;  /* 0x...encoding */` with absolute
//              (function-relative) target addresses, and each is followed by a
//              line holding only the second encoding word.
// Other lines (directives, data sections, headers) are skipped. A target is
// resolved to an instruction of the same function: nvdisasm's `(name) through
// the labels the function defines (its own name marks address 0), cuobjdump's
// last hex operand of a branch-like opcode (BRA, BRX, JMP, RET, BSSY, CALL.REL,
// ...; not CALL.ABS, whose operand is a relocation's) through the instruction
// addresses.
// Both become the same canonical `(.L_x_N), so the two listings of one cubin
// canonicalise alike.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/sass_reader.hpp"

#include <cctype>
#include <fmt/format.h>
#include <set>
#include <unordered_map>

namespace kdet::diff::detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
uint64_t hex_value(char c) {
  return static_cast<uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string collapse(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (is_space(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Removes /* ... */ and // ... comments.
std::string strip_comments(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
      out += ' ';
      continue;
    }
    if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/') break;
    out += s[i];
  }
  return out;
}

// "/*01a0*/" at the start of `s`: its value, and `s` advanced past it.
bool take_address(std::string_view& s, uint64_t& address) {
  if (s.substr(0, 2) != "/*") return false;
  size_t end = s.find("*/", 2);
  if (end == std::string_view::npos || end == 2 || end > 18) return false;
  uint64_t v = 0;
  for (size_t i = 2; i < end; ++i) {
    if (!is_hex(s[i])) return false;
    v = v * 16 + hex_value(s[i]);
  }
  address = v;
  s.remove_prefix(end + 2);
  return true;
}

// Opcodes whose last hex operand is a code address in cuobjdump's listing.
bool branch_like(std::string_view text) {
  if (!text.empty() && text[0] == '@') {
    size_t sp = text.find(' ');
    text = sp == std::string_view::npos ? std::string_view() : text.substr(sp + 1);
  }
  std::string_view op = text.substr(0, text.find_first_of(" ."));
  static const std::set<std::string_view> k_ops = {"BRA",  "BRX",  "BRXU", "JMP", "JMX",
                                                   "JMXU", "RET",  "BSSY", "SSY", "PBK",
                                                   "PCNT", "PRET", "CAL",  "JCAL"};
  // CALL.REL's operand is a code address; CALL.ABS's is a relocation's placeholder.
  return k_ops.count(op) > 0 || text.substr(0, 8) == "CALL.REL";
}

bool register_class(std::string_view letters) {
  return letters == "R" || letters == "UR" || letters == "P" || letters == "UP" || letters == "B";
}

// A piece of an instruction before naming: text, a register, or a resolved target.
struct Raw {
  enum class Kind { text, reg, target } kind = Kind::text;
  std::string s;      // text, or the register as listed ("R12")
  std::string prefix; // register class
  size_t target = 0;  // instruction index
};

std::vector<Raw> split(const SassInstruction& ins, const SassFunction& f,
                       const std::unordered_map<uint64_t, size_t>& at) {
  std::vector<Raw> out;
  const std::string& t = ins.text;
  auto text = [&](std::string_view s) {
    if (out.empty() || out.back().kind != Raw::Kind::text) out.push_back({});
    out.back().s += s;
  };
  // cuobjdump: the last hex literal of a branch-like instruction, unless negative (relative).
  size_t address_at = std::string::npos;
  if (branch_like(t)) {
    size_t p = t.rfind("0x");
    if (p != std::string::npos && (p == 0 || (t[p - 1] == ' ' || t[p - 1] == ','))) address_at = p;
  }
  size_t i = 0;
  while (i < t.size()) {
    char c = t[i];
    bool boundary = i == 0 || !(ident_char(t[i - 1]) || t[i - 1] == '.');
    if (c == '`' && t.compare(i, 2, "`(") == 0) {
      size_t close = t.find(')', i + 2);
      if (close != std::string::npos) {
        std::string name = t.substr(i + 2, close - i - 2);
        auto label = f.labels.find(name);
        uint64_t addr = label != f.labels.end() ? label->second : 0;
        bool own = name == f.name;
        auto hit = (label != f.labels.end() || own) ? at.find(addr) : at.end();
        if (hit != at.end()) {
          out.push_back({Raw::Kind::target, "", "", hit->second});
          i = close + 1;
          continue;
        }
      }
    }
    if (i == address_at) {
      size_t j = i + 2;
      uint64_t v = 0;
      while (j < t.size() && is_hex(t[j]) && j - i < 18)
        v = v * 16 + hex_value(t[j++]);
      auto hit = at.find(v);
      if (j > i + 2 && (j == t.size() || !ident_char(t[j])) && hit != at.end()) {
        out.push_back({Raw::Kind::target, "", "", hit->second});
        i = j;
        continue;
      }
    }
    if (boundary && std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < t.size() && std::isalpha(static_cast<unsigned char>(t[j])))
        ++j;
      size_t k = j;
      while (k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])))
        ++k;
      size_t end = k;
      while (end < t.size() && ident_char(t[end]))
        ++end;
      std::string_view letters(t.data() + i, j - i);
      if (k > j && end == k && register_class(letters)) {
        out.push_back({Raw::Kind::reg, t.substr(i, k - i), std::string(letters), 0});
      } else {
        text(std::string_view(t.data() + i, end - i));
      }
      i = end;
      continue;
    }
    text(std::string_view(&t[i], 1));
    ++i;
  }
  return out;
}

} // namespace

SassListing read_sass(std::string_view text) {
  SassListing listing;
  SassFunction* fn = nullptr;
  std::vector<std::string> pending; // labels waiting for the next instruction's address
  auto close_function = [&] {
    if (fn) {
      uint64_t end = fn->instructions.empty() ? 0 : fn->instructions.back().address + 16;
      for (const auto& l : pending)
        fn->labels.emplace(l, end);
    }
    pending.clear();
    fn = nullptr;
  };
  auto open_function = [&](std::string name) {
    close_function();
    listing.functions.push_back({});
    fn = &listing.functions.back();
    fn->name = std::move(name);
  };
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    std::string_view line = trim(raw);
    if (line.substr(0, 10) == "Function :") {
      open_function(std::string(trim(line.substr(10))));
      continue;
    }
    if (line.substr(0, 8) == ".section" && line.size() > 8 && is_space(line[8])) {
      std::string_view rest = trim(line.substr(8));
      std::string_view name = rest.substr(0, rest.find_first_of(", \t"));
      if (name.substr(0, 6) == ".text." && name.size() > 6)
        open_function(std::string(name.substr(6)));
      else
        close_function();
      continue;
    }
    if (!fn) continue;
    uint64_t address = 0;
    std::string_view rest = line;
    if (take_address(rest, address)) {
      std::string body = strip_comments(rest);
      body = body.substr(0, body.find(';'));
      std::string ins = collapse(body);
      if (ins.empty() || ins[0] == '.') continue; // a data directive
      for (const auto& l : pending)
        fn->labels.emplace(l, address);
      pending.clear();
      fn->instructions.push_back({std::move(ins), address, line_no});
      continue;
    }
    if (line.size() > 1 && line.back() == ':' && line[0] != '/') {
      std::string_view name = line.substr(0, line.size() - 1);
      bool plain = true;
      for (char c : name)
        plain &= ident_char(c) || c == '.' || c == '$';
      if (plain) {
        pending.emplace_back(name);
        fn->label_lines.emplace(name, line_no);
      }
    }
  }
  close_function();
  return listing;
}

SassCanonical canonicalise(const SassFunction& f) {
  SassCanonical c;
  c.instructions = f.instructions.size();
  std::unordered_map<uint64_t, size_t> at;
  for (size_t i = 0; i < f.instructions.size(); ++i)
    at.emplace(f.instructions[i].address, i);
  std::vector<std::vector<Raw>> raws;
  std::vector<bool> target(f.instructions.size(), false);
  for (const auto& ins : f.instructions) {
    raws.push_back(split(ins, f, at));
    for (const auto& r : raws.back())
      if (r.kind == Raw::Kind::target) target[r.target] = true;
  }
  std::unordered_map<std::string, uint32_t> ids;
  std::map<std::string, uint32_t> counters;
  uint32_t labels = 0;
  auto symbol = [&](const std::string& key, bool label, const std::string& prefix) {
    auto [it, fresh] = ids.emplace(key, static_cast<uint32_t>(c.names.size()));
    if (fresh)
      c.names.push_back(label ? fmt::format(".L_x_{}", labels++)
                              : fmt::format("{}{}", prefix, counters[prefix]++));
    return it->second;
  };
  for (size_t i = 0; i < raws.size(); ++i) {
    if (target[i]) {
      SassLine def;
      def.pieces = {"", ":"};
      def.toks.push_back({true, "", symbol(fmt::format("L{}", i), true, "")});
      def.index = c.lines.size() + 1;
      def.definition = true;
      def.instruction = i;
      c.lines.push_back(std::move(def));
    }
    SassLine line;
    line.pieces.emplace_back();
    for (const auto& r : raws[i]) {
      switch (r.kind) {
      case Raw::Kind::text:
        line.pieces.back() += r.s;
        break;
      case Raw::Kind::reg:
        line.toks.push_back({false, r.prefix, symbol(r.s, false, r.prefix)});
        line.pieces.emplace_back();
        break;
      case Raw::Kind::target:
        line.pieces.back() += "`(";
        line.toks.push_back({true, "", symbol(fmt::format("L{}", r.target), true, "")});
        line.pieces.emplace_back(")");
        break;
      }
    }
    line.index = c.lines.size() + 1;
    line.instruction = i;
    c.lines.push_back(std::move(line));
  }
  return c;
}

std::string render(const SassLine& line, const std::vector<std::string>* names) {
  std::string out = line.pieces[0];
  for (size_t t = 0; t < line.toks.size(); ++t) {
    const SassToken& tok = line.toks[t];
    if (names)
      out += (*names)[tok.sym];
    else
      out += tok.label ? ".L_x_?" : tok.prefix + "?";
    out += line.pieces[t + 1];
  }
  return out;
}

std::vector<std::string> canonical_text(const SassCanonical& c) {
  std::vector<std::string> out;
  out.reserve(c.lines.size());
  for (const auto& l : c.lines)
    out.push_back(render(l, &c.names));
  return out;
}

LabelsByAddress labels_by_address(const SassFunction& f) {
  LabelsByAddress out;
  for (const auto& [name, address] : f.labels)
    if (name != f.name) out.emplace(address, name);
  return out;
}

std::string listed_text(const SassLine& line, const SassFunction& f,
                        const LabelsByAddress& labels) {
  if (line.instruction >= f.instructions.size()) return render(line, nullptr);
  const SassInstruction& ins = f.instructions[line.instruction];
  if (!line.definition) return fmt::format("/*{:04x}*/ {};", ins.address, ins.text);
  auto it = labels.find(ins.address);
  return it != labels.end() ? it->second + ":" : fmt::format("(target /*{:04x}*/):", ins.address);
}

size_t listed_line(const SassLine& line, const SassFunction& f, const LabelsByAddress& labels) {
  if (line.instruction >= f.instructions.size()) return line.index;
  const SassInstruction& ins = f.instructions[line.instruction];
  if (line.definition)
    if (auto it = labels.find(ins.address); it != labels.end())
      if (auto at = f.label_lines.find(it->second); at != f.label_lines.end()) return at->second;
  return ins.line;
}

} // namespace kdet::diff::detail
