//===- diff/cubin_compare.cpp - per-kernel comparison of two cubins --------===//
//
// A function is a `.text.<name>` section: a kernel (entry kind "kernel")
// where its symbol is an entry point (STO_CUDA_ENTRY), else a device function
// (kind "function": nvcc -G and -rdc keep some apart). It owns
// `.nv.info.<name>`, `.nv.constant<N>.<name>`, `.nv.shared.<name>`,
// `.rela.text.<name>`, the module-wide .nv.info records of symbols defined in
// its .text, and those symbols. Per function, kernel or not:
//  - .text, where nvdisasm lists both cubins (and each listing has as many
//    instructions as the kernel's .text has 16-byte words), is compared as
//    canonical SASS (sass_compare.cpp): renamed (aspect "names"), reordered
//    or code (aspect "text"). Otherwise, or when the listings print the same
//    text, as 16-byte SASS words (Myers over interned words): same multiset in
//    another order -> reordered (moved = words off the LCS), otherwise code
//    (aspect "text"). The report's notes say which was used, and why not SASS.
//  - attributes: REGCOUNT -> "register_count"; FRAME_SIZE, MIN/MAX_STACK_SIZE,
//    CRS_STACK_SIZE -> "stack"; other EIATTR records -> "attributes";
//    .nv.shared size -> "shared_memory"; constant banks -> "constants";
//    symbol value/size/binding -> "symbol" (only when .text is the same,
//    since sizes follow the code); relocations -> "text".
//  - symbol indices (in relocations, PARAM_CBANK, EXTERNS and the module
//    .nv.info records) are compared by the names they resolve to: -lineinfo
//    adds sections, and a symbol for each, which renumbers the others.
//  - class: code if .text changed, else attributes if any attribute-like
//    aspect changed, else reordered or renamed as .text was.
// Sections owned by no kernel form "(module sections)" (class code when they
// differ); .debug*, .nv_debug*, .note* and SHT_NOTE form "(debug and notes)"
// (class metadata), so a cubin whose only change is there reads "metadata only".
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/cubin_reader.hpp"
#include "kdet/diff/impact.hpp"
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <elf.h>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>

namespace kdet::diff::detail {

namespace {

constexpr size_t k_word = 16; // SASS instruction size on sm_70 and later
constexpr uint8_t k_param_cbank = 0x0a;
constexpr uint8_t k_externs = 0x0f;

struct AttrVal {
  std::string value;
  std::string aspect;
};

struct Kernel {
  size_t text = 0;   // section index of .text.<name>
  bool entry = true; // a kernel; false for a device function (cuda_functions())
  std::map<std::string, size_t>
      owned; // ".nv.constant0" / ".nv.shared" / ".rela.text" / ".nv.info" -> section
  std::map<std::string, AttrVal> attrs;       // display name -> value
  std::map<std::string, std::string> symbols; // symbol name -> "value size bind other"
};

struct Model {
  const CudaElf* elf = nullptr;
  std::map<std::string, Kernel> kernels;
  std::vector<std::string> kernel_order;
  std::map<std::string, size_t> module_sections; // name -> index
  std::map<std::string, size_t> meta_sections;
  std::map<std::string, std::string> module_symbols;
};

bool starts(const std::string& s, std::string_view p) {
  return s.rfind(p, 0) == 0;
}

std::string hex(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < 64; ++i)
    out += fmt::format("{:02x}", static_cast<unsigned char>(v[i]));
  if (v.size() > 64) out += fmt::format("...({} bytes)", v.size());
  return out;
}

std::string render_value(const NvInfoAttr& a) {
  if (a.format != 4 || a.value.size() == 2) {
    unsigned v = a.value.size() >= 2 ? static_cast<unsigned char>(a.value[0]) |
                                           (static_cast<unsigned char>(a.value[1]) << 8)
                                     : 0;
    return std::to_string(v);
  }
  if (a.value.size() % 4 == 0 && a.value.size() <= 64) {
    std::string out;
    for (size_t i = 0; i < a.value.size(); i += 4) {
      if (i) out += ", ";
      out += std::to_string(read_u32(a.value, i));
    }
    return out;
  }
  return hex(a.value);
}

uint32_t read_u16(std::string_view s, size_t offset) {
  if (offset > s.size() || s.size() - offset < 2) return 0;
  return static_cast<uint32_t>(static_cast<unsigned char>(s[offset])) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[offset + 1])) << 8);
}

// A .nv.info.<kernel> record's value. Two hold symbol indices (ptxas 13.0, checked with
// readelf -s and nvdisasm's index@(...)): PARAM_CBANK {u32 the symbol of
// .nv.constant0.<kernel>, u16 offset and u16 size of the parameters there} and EXTERNS {u32
// the symbol of each function called but not defined here}. They are shown, and so compared,
// by the names, which -lineinfo's renumbering leaves alone.
std::string attr_value(const CudaElf& elf, const NvInfoAttr& a) {
  if (a.format == 4 && a.code == k_param_cbank && a.value.size() == 8)
    return fmt::format("{}, offset {:#x}, size {}", symbol_label(elf, read_u32(a.value, 0)),
                       read_u16(a.value, 4), read_u16(a.value, 6));
  if (a.format == 4 && a.code == k_externs && !a.value.empty() && a.value.size() % 4 == 0) {
    std::string out;
    for (size_t i = 0; i < a.value.size(); i += 4)
      out += (i ? ", " : "") + symbol_label(elf, read_u32(a.value, i));
    return out;
  }
  return render_value(a);
}

// A relocation section's entries as "offset type symbol+addend" lines, the symbol by name
// (r_info holds its index); the raw bytes for a 32-bit ELF or a size that is no whole entry.
std::string relocations(const CudaElf& elf, const ElfSection& s) {
  const size_t size = s.type == SHT_RELA ? 24 : 16;
  if (elf.elf_class != ELFCLASS64 || s.data.size() % size != 0) return s.data;
  std::string out;
  for (size_t at = 0; at < s.data.size(); at += size) {
    uint64_t offset = read_u32(s.data, at) | (uint64_t{read_u32(s.data, at + 4)} << 32);
    uint32_t type = read_u32(s.data, at + 8), symbol = read_u32(s.data, at + 12);
    uint64_t addend =
        size == 24 ? read_u32(s.data, at + 16) | (uint64_t{read_u32(s.data, at + 20)} << 32) : 0;
    out += fmt::format("{:#x} {} {}+{:#x}\n", offset, type, symbol_label(elf, symbol), addend);
  }
  return out;
}

std::string aspect_of(uint8_t code) {
  switch (code) {
  case 0x2f:
    return "register_count";
  case 0x11:
  case 0x12:
  case 0x1e:
  case 0x23:
    return "stack";
  default:
    return "attributes";
  }
}

std::string display_name(uint8_t code) {
  return code == 0x2f ? "register count" : eiattr_name(code);
}

// ".nv.constant0.foo" -> {".nv.constant0", "foo"}; "" when `name` is not kernel-owned.
std::pair<std::string, std::string> owner_of(const std::string& name) {
  for (std::string_view p : {".nv.info.", ".nv.shared.", ".rela.text.", ".rel.text.", ".nv.local."})
    if (starts(name, p) && name.size() > p.size())
      return {std::string(p.substr(0, p.size() - 1)), name.substr(p.size())};
  if (starts(name, ".nv.constant")) {
    size_t i = 12;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])))
      ++i;
    if (i > 12 && i + 1 < name.size() && name[i] == '.')
      return {name.substr(0, i), name.substr(i + 1)};
  }
  return {"", ""};
}

bool is_metadata(const ElfSection& s) {
  return s.type == SHT_NOTE || starts(s.name, ".debug") || starts(s.name, ".nv_debug") ||
         starts(s.name, ".note") || starts(s.name, ".rela.debug") || starts(s.name, ".rel.debug") ||
         starts(s.name, ".rela.nv_debug") || starts(s.name, ".rel.nv_debug");
}

Model build_model(const CudaElf& elf) {
  Model m;
  m.elf = &elf;
  std::map<size_t, std::string> text_owner;
  for (const auto& f : cuda_functions(elf)) {
    m.kernels[f.name].text = f.text;
    m.kernels[f.name].entry = f.entry;
    m.kernel_order.push_back(f.name);
    text_owner[f.text] = f.name;
  }
  for (size_t i = 0; i < elf.sections.size(); ++i) {
    const auto& s = elf.sections[i];
    if (s.type == SHT_NULL || s.name == ".shstrtab" || s.name == ".strtab" || s.name == ".symtab" ||
        s.name == ".nv.info" || (starts(s.name, ".text.") && text_owner.count(i)))
      continue;
    if (is_metadata(s)) {
      m.meta_sections.emplace(s.name, i);
      continue;
    }
    auto [kind, owner] = owner_of(s.name);
    auto it = m.kernels.find(owner);
    if (!kind.empty() && it != m.kernels.end())
      it->second.owned[kind] = i;
    else
      m.module_sections.emplace(s.name, i);
  }
  // Symbols: those in a kernel's .text belong to it; others are module-level.
  for (const auto& sym : elf.symbols) {
    if (sym.name.empty() || sym.type == STT_SECTION) continue;
    std::string desc = fmt::format("value {:#x} size {} bind {} other {:#x}", sym.value, sym.size,
                                   sym.bind, sym.other);
    auto it = text_owner.find(sym.shndx);
    if (it != text_owner.end()) {
      m.kernels[it->second].symbols[sym.name] = desc;
    } else {
      std::string where = sym.shndx < elf.sections.size() ? elf.sections[sym.shndx].name
                                                          : std::to_string(sym.shndx);
      m.module_symbols[sym.name] = desc + " in " + where;
    }
  }
  // Attributes: per-kernel .nv.info.<name>, and module .nv.info records keyed by symbol.
  for (auto& [name, k] : m.kernels) {
    auto it = k.owned.find(".nv.info");
    if (it == k.owned.end()) continue;
    std::map<std::string, int> seen;
    for (const auto& a : parse_nv_info(elf.sections[it->second].data)) {
      std::string key = display_name(a.code);
      int n = seen[key]++;
      if (n) key += fmt::format("[{}]", n);
      k.attrs[key] = {attr_value(elf, a), aspect_of(a.code)};
    }
  }
  for (const auto& s : elf.sections) {
    if (s.name != ".nv.info") continue;
    for (const auto& a : parse_nv_info(s.data)) {
      if (a.format != 4 || a.value.size() < 8) continue;
      uint32_t idx = read_u32(a.value, 0);
      if (idx >= elf.symbols.size()) continue;
      const auto& sym = elf.symbols[idx];
      auto owner = text_owner.find(sym.shndx);
      if (owner == text_owner.end()) continue;
      std::string key = display_name(a.code);
      if (sym.name != owner->second) key += " (" + sym.name + ")";
      std::string value =
          a.value.size() == 8 ? std::to_string(read_u32(a.value, 4)) : hex(a.value.substr(4));
      m.kernels[owner->second].attrs[key] = {value, aspect_of(a.code)};
    }
  }
  return m;
}

// The Entry kind: "kernel" for an entry point, "function" for a device function.
const char* kind_of(const Kernel& k) {
  return k.entry ? "kernel" : "function";
}

void add_aspect(Entry& e, const std::string& a) {
  if (std::find(e.aspects.begin(), e.aspects.end(), a) == e.aspects.end()) e.aspects.push_back(a);
}

// Compares two .text sections as 16-byte words (count_sass, as kdet impact aligns them);
// returns the change it shows. The same words in another order leave none changed, added or
// removed.
Change compare_text(std::string_view a, std::string_view b, Entry& e, bool& approximate) {
  const SassCounts c = count_sass(a, b);
  e.count_a = c.words_a;
  e.count_b = c.words_b;
  if (a == b) return Change::identical;
  approximate |= c.approximate;
  add_aspect(e, "text");
  if (c.changed == 0 && c.added == 0 && c.removed == 0) {
    e.moved = c.moved;
    e.notes.push_back(
        fmt::format(".text: same SASS words in another order, {} of {} moved", e.moved, c.words_a));
    return Change::reordered;
  }
  e.notes.push_back(fmt::format(
      ".text: {} and {} instruction words, {} in common{}", c.words_a, c.words_b, c.same,
      a.size() != b.size() ? fmt::format(" (size {} -> {} bytes)", a.size(), b.size()) : ""));
  return Change::code;
}

// Both sides' listings of one kernel, when SASS is compared.
struct SassPair {
  const SassFunction* a = nullptr;
  const SassFunction* b = nullptr;
};

bool same_listing(const SassFunction& a, const SassFunction& b) {
  if (a.instructions.size() != b.instructions.size()) return false;
  for (size_t i = 0; i < a.instructions.size(); ++i)
    if (a.instructions[i].text != b.instructions[i].text) return false;
  return true;
}

Entry compare_kernel(const std::string& name, const Model& ma, const Kernel& ka, const Model& mb,
                     const Kernel& kb, const SassPair& sass, bool canonical, bool& approximate,
                     size_t& budget, bool& cut) {
  Entry e;
  e.name = name;
  e.kind = kind_of(ka);
  if (ka.entry != kb.entry) {
    add_aspect(e, "attributes");
    e.values.push_back({"kernel (entry point)", ka.entry ? "yes" : "no", kb.entry ? "yes" : "no"});
  }
  const auto& sa = ma.elf->sections;
  const auto& sb = mb.elf->sections;
  const std::string& ta = sa[ka.text].data;
  const std::string& tb = sb[kb.text].data;
  Change text;
  if (sass.a && sass.b && ta != tb && !same_listing(*sass.a, *sass.b)) {
    text = compare_sass(*sass.a, *sass.b, canonical, e, approximate, budget, cut);
  } else {
    text = compare_text(ta, tb, e, approximate);
    if (sass.a && sass.b && ta != tb)
      e.notes.push_back("the SASS listings are the same: the instruction words differ only in "
                        "what nvdisasm does not print (scheduling control bits)");
  }

  std::set<std::string> kinds;
  for (const auto& [k, i] : ka.owned)
    kinds.insert(k);
  for (const auto& [k, i] : kb.owned)
    kinds.insert(k);
  for (const auto& kind : kinds) {
    if (kind == ".nv.info") continue; // compared attribute by attribute below
    auto ia = ka.owned.find(kind), ib = kb.owned.find(kind);
    const ElfSection* xa = ia == ka.owned.end() ? nullptr : &sa[ia->second];
    const ElfSection* xb = ib == kb.owned.end() ? nullptr : &sb[ib->second];
    auto size = [](const ElfSection* s) {
      return s ? fmt::format("{} bytes", s->size) : std::string();
    };
    if (xa && xb && xa->size == xb->size && xa->data == xb->data) continue;
    bool relocs = kind == ".rela.text" || kind == ".rel.text";
    if (relocs && xa && xb && relocations(*ma.elf, *xa) == relocations(*mb.elf, *xb)) continue;
    if (kind == ".nv.shared") {
      if (xa && xb && xa->size == xb->size) continue;
      add_aspect(e, "shared_memory");
      e.values.push_back({"shared memory", size(xa), size(xb)});
    } else if (starts(kind, ".nv.constant")) {
      add_aspect(e, "constants");
      std::string bank = "constant bank " + kind.substr(12);
      if (xa && xb && xa->size == xb->size) {
        uint64_t total = 0;
        byte_ranges(xa->data, xb->data, total);
        e.values.push_back({bank, size(xa), fmt::format("{} bytes differ", total)});
      } else {
        e.values.push_back({bank, size(xa), size(xb)});
      }
    } else if (relocs) {
      add_aspect(e, "text");
      e.values.push_back(
          {"relocations", size(xa),
           size(xb) + (xa && xb && xa->size == xb->size ? " (content differs)" : "")});
      if (text == Change::identical) text = Change::code;
    } else {
      add_aspect(e, "attributes");
      e.values.push_back({kind, size(xa), size(xb)});
    }
  }

  std::set<std::string> keys;
  for (const auto& [k, v] : ka.attrs)
    keys.insert(k);
  for (const auto& [k, v] : kb.attrs)
    keys.insert(k);
  for (const auto& k : keys) {
    auto ia = ka.attrs.find(k), ib = kb.attrs.find(k);
    std::string va = ia == ka.attrs.end() ? "" : ia->second.value;
    std::string vb = ib == kb.attrs.end() ? "" : ib->second.value;
    if (va == vb) continue;
    add_aspect(e, (ia != ka.attrs.end() ? ia->second : ib->second).aspect);
    e.values.push_back({k, va, vb});
  }

  if (text == Change::identical) {
    std::set<std::string> names;
    for (const auto& [n, d] : ka.symbols)
      names.insert(n);
    for (const auto& [n, d] : kb.symbols)
      names.insert(n);
    for (const auto& n : names) {
      auto ia = ka.symbols.find(n), ib = kb.symbols.find(n);
      std::string va = ia == ka.symbols.end() ? "" : ia->second;
      std::string vb = ib == kb.symbols.end() ? "" : ib->second;
      if (va == vb) continue;
      add_aspect(e, "symbol");
      e.values.push_back({"symbol " + n, va, vb});
    }
  }

  bool attr_like = false;
  for (const auto& a : e.aspects)
    attr_like |= a != "text" && a != "names" && a != "order";
  if (text == Change::code)
    e.change = Change::code;
  else if (attr_like)
    e.change = Change::attributes;
  else
    e.change = text;
  return e;
}

// Compares name -> section maps; records differing ones as values of `e`.
void compare_sections(const std::map<std::string, size_t>& a, const CudaElf& ea,
                      const std::map<std::string, size_t>& b, const CudaElf& eb, Entry& e) {
  std::set<std::string> names;
  for (const auto& [n, i] : a)
    names.insert(n);
  for (const auto& [n, i] : b)
    names.insert(n);
  for (const auto& n : names) {
    auto ia = a.find(n), ib = b.find(n);
    const ElfSection* xa = ia == a.end() ? nullptr : &ea.sections[ia->second];
    const ElfSection* xb = ib == b.end() ? nullptr : &eb.sections[ib->second];
    if (xa && xb && xa->size == xb->size && xa->data == xb->data) continue;
    auto size = [](const ElfSection* s) {
      return s ? fmt::format("{} bytes", s->size) : std::string();
    };
    std::string vb = size(xb);
    if (xa && xb && xa->size == xb->size) {
      uint64_t total = 0;
      byte_ranges(xa->data, xb->data, total);
      vb += fmt::format(", {} differ", total);
    }
    e.values.push_back({n, size(xa), vb});
  }
  e.count_a = a.size();
  e.count_b = b.size();
}

// Lists both cubins with nvdisasm when `sass` names it and some kernel's .text differs;
// fills `pairs` per such kernel when both listings hold it with one instruction per
// 16-byte word, and returns the report's note on how SASS was compared.
std::string list_sass(std::string_view a, std::string_view b, const Model& ma, const Model& mb,
                      const SassOptions& sass, SassListing& la, SassListing& lb,
                      std::map<std::string, SassPair>& pairs) {
  const std::string words = "SASS compared as 16-byte instruction words";
  std::vector<std::string> differ;
  for (const auto& name : ma.kernel_order) {
    auto it = mb.kernels.find(name);
    if (it == mb.kernels.end()) continue;
    if (ma.elf->sections[ma.kernels.at(name).text].data != mb.elf->sections[it->second.text].data)
      differ.push_back(name);
  }
  if (differ.empty()) return "";
  if (sass.nvdisasm.empty()) return fmt::format("{} ({})", words, sass.why_not);
  auto listed = disassemble(sass, a, b);
  if (!listed) return fmt::format("{}: {}", words, listed.why());
  la = std::move(listed->first);
  lb = std::move(listed->second);
  auto find = [](const SassListing& l, const std::string& name) -> const SassFunction* {
    for (const auto& f : l.functions)
      if (f.name == name) return &f;
    return nullptr;
  };
  std::map<std::string, SassPair> found; // all or none: one SASS view per report
  for (const auto& name : differ) {
    SassPair p{find(la, name), find(lb, name)};
    for (auto [f, m, side] : {std::tuple{p.a, &ma, "A"}, std::tuple{p.b, &mb, "B"}}) {
      uint64_t size = m->elf->sections[m->kernels.at(name).text].data.size();
      if (!f)
        return fmt::format("{}: nvdisasm's listing of {} has no function {}", words, side, name);
      if (f->instructions.size() * k_word != size)
        return fmt::format("{}: nvdisasm's listing of {} has {} instructions for {}'s {} bytes",
                           words, side, f->instructions.size(), name, size);
    }
    found[name] = p;
  }
  pairs = std::move(found);
  return fmt::format("SASS compared as canonical nvdisasm listings (registers and branch "
                     "targets renamed by first use; {})",
                     sass.nvdisasm);
}

CudaElf read_or_throw(std::string_view data, const char* side) {
  Result<CudaElf> elf = read_elf(data);
  if (!elf) throw Error::format("{} is not a readable CUDA ELF: {}", side, elf.why());
  return std::move(elf).value();
}

} // namespace

Report compare_cubin(std::string_view a, std::string_view b, const SassOptions& sass,
                     bool canonical) {
  CudaElf ea = read_or_throw(a, "A"), eb = read_or_throw(b, "B");
  Report r;
  r.format = Format::cubin;
  r.size_a = a.size();
  r.size_b = b.size();
  Model ma = build_model(ea), mb = build_model(eb);
  SassListing la, lb;
  std::map<std::string, SassPair> pairs;
  std::string sass_note = list_sass(a, b, ma, mb, sass, la, lb, pairs);
  size_t budget = k_max_report_hunk_lines;
  bool cut = false;

  for (const auto& name : ma.kernel_order) {
    auto it = mb.kernels.find(name);
    if (it == mb.kernels.end()) {
      r.entries.push_back(one_sided_entry(name, kind_of(ma.kernels.at(name)), true));
      continue;
    }
    auto pair = pairs.find(name);
    Entry e = compare_kernel(name, ma, ma.kernels.at(name), mb, it->second,
                             pair == pairs.end() ? SassPair{} : pair->second, canonical,
                             r.approximate, budget, cut);
    r.entries.push_back(std::move(e));
  }
  for (const auto& name : mb.kernel_order) {
    if (ma.kernels.count(name)) continue;
    r.entries.push_back(one_sided_entry(name, kind_of(mb.kernels.at(name)), false));
  }

  Entry mod;
  mod.name = "(module sections)";
  mod.kind = "sections";
  compare_sections(ma.module_sections, ea, mb.module_sections, eb, mod);
  if (ea.flags != eb.flags)
    mod.values.push_back(
        {"ELF e_flags", fmt::format("{:#x}", ea.flags), fmt::format("{:#x}", eb.flags)});
  if (ea.elf_class != eb.elf_class)
    mod.values.push_back({"ELF class", std::to_string(ea.elf_class), std::to_string(eb.elf_class)});
  std::set<std::string> syms;
  for (const auto& [n, d] : ma.module_symbols)
    syms.insert(n);
  for (const auto& [n, d] : mb.module_symbols)
    syms.insert(n);
  for (const auto& n : syms) {
    auto ia = ma.module_symbols.find(n), ib = mb.module_symbols.find(n);
    std::string va = ia == ma.module_symbols.end() ? "" : ia->second;
    std::string vb = ib == mb.module_symbols.end() ? "" : ib->second;
    if (va != vb) mod.values.push_back({"symbol " + n, va, vb});
  }
  if (!mod.values.empty()) {
    mod.change = Change::code;
    mod.aspects.push_back("sections");
  }
  r.entries.push_back(std::move(mod));

  Entry meta;
  meta.name = "(debug and notes)";
  meta.kind = "metadata";
  compare_sections(ma.meta_sections, ea, mb.meta_sections, eb, meta);
  if (!meta.values.empty()) {
    meta.change = Change::metadata;
    meta.aspects.push_back("sections");
  }
  r.entries.push_back(std::move(meta));

  set_overall(r);
  if (r.overall == Change::identical && a != b) {
    r.overall = Change::metadata;
    r.notes.push_back("the files differ only in layout (section order, padding or headers)");
  }
  r.ordering_only = r.overall == Change::reordered;
  for (const auto& e : r.entries)
    r.ordering_only &= severity(e.change) <= severity(Change::reordered);
  if (!sass_note.empty()) r.notes.push_back(sass_note);
  if (r.approximate) r.notes.push_back("a diff hit its size cap; counts are approximate");
  if (cut) r.notes.push_back(hunks_cut_note());
  return r;
}

} // namespace kdet::diff::detail
