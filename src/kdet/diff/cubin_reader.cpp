//===- diff/cubin_reader.cpp - reads a CUDA ELF (cubin) with libelf --------===//
//
// .nv.info layout (as emitted by ptxas and nvJitLink): a sequence of records
// {u8 format, u8 attribute, ...}; formats 1-3 carry a 2-byte value, format 4
// (SVAL) a u16 length and that many bytes. The module-wide .nv.info holds
// per-function records whose value starts with the function's symbol index
// (REGCOUNT, FRAME_SIZE, MIN/MAX_STACK_SIZE, ...). In .nv.info.<kernel>, PARAM_CBANK
// starts with the symbol index of the .nv.constant0.<kernel> section symbol and EXTERNS holds
// symbol indices (ptxas 13.0; symbol_label() names them).
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/cubin_reader.hpp"

#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <map>
#include <memory>
#include <set>

namespace kdet::diff::detail {

namespace {

// Upper bounds that keep a hostile header from asking for absurd work.
constexpr size_t k_max_sections = 1 << 16;
constexpr size_t k_max_symbols = 1 << 20;

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

} // namespace

uint32_t read_u32(std::string_view s, size_t offset) {
  if (offset > s.size() || s.size() - offset < 4) return 0;
  auto b = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(s[offset + i]));
  };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

Result<CudaElf> read_elf(std::string_view image) {
  CudaElf out;
  if (elf_version(EV_CURRENT) == EV_NONE) {
    return failure("libelf is unusable");
  }
  // elf_memory wants a writable buffer that outlives the handle.
  std::string buffer(image);
  std::unique_ptr<Elf, ElfCloser> elf(elf_memory(buffer.data(), buffer.size()));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    return failure("not an ELF file");
  }
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf.get(), &eh)) {
    return failure(fmt::format("bad ELF header: {}", elf_errmsg(-1)));
  }
  uint64_t table = static_cast<uint64_t>(eh.e_shnum) * eh.e_shentsize;
  if (eh.e_shoff == 0 || eh.e_shoff > image.size() || table > image.size() - eh.e_shoff) {
    return failure(eh.e_shoff == 0 ? "no section table"
                                   : "the section table lies outside the file (truncated?)");
  }
  out.machine = eh.e_machine;
  out.flags = static_cast<uint32_t>(eh.e_flags);
  out.elf_class = static_cast<uint8_t>(gelf_getclass(elf.get()));
  size_t shnum = 0, shstrndx = 0;
  if (elf_getshdrnum(elf.get(), &shnum) != 0 || elf_getshdrstrndx(elf.get(), &shstrndx) != 0) {
    return failure(fmt::format("bad section table: {}", elf_errmsg(-1)));
  }
  if (shnum > k_max_sections) {
    return failure(fmt::format("{} sections is more than kdet reads", shnum));
  }
  out.sections.assign(shnum, ElfSection{});
  size_t symtab = 0;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    size_t idx = elf_ndxscn(scn);
    GElf_Shdr sh;
    if (idx >= shnum || !gelf_getshdr(scn, &sh)) continue;
    ElfSection& s = out.sections[idx];
    const char* name = elf_strptr(elf.get(), shstrndx, sh.sh_name);
    s.name = name ? name : fmt::format("(section {})", idx);
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    s.size = sh.sh_size;
    if (sh.sh_type == SHT_SYMTAB && symtab == 0) symtab = idx;
    if (sh.sh_type == SHT_NOBITS) continue;
    if (sh.sh_offset > image.size() || sh.sh_size > image.size() - sh.sh_offset) {
      return failure(fmt::format("section {} ({}) lies outside the file", idx, s.name));
    }
    // Raw bytes straight from the image: the cubin is little-endian and kdet compares bytes.
    s.data.assign(image.substr(sh.sh_offset, sh.sh_size));
  }
  if (symtab != 0) {
    Elf_Scn* scn = elf_getscn(elf.get(), symtab);
    Elf_Data* data = scn ? elf_getdata(scn, nullptr) : nullptr;
    if (data && data->d_size > 0) {
      size_t link = out.sections[symtab].link;
      GElf_Sym sym;
      for (int i = 0; static_cast<size_t>(i) < k_max_symbols && gelf_getsym(data, i, &sym); ++i) {
        ElfSymbol e;
        const char* name = link < shnum ? elf_strptr(elf.get(), link, sym.st_name) : nullptr;
        e.name = name ? name : "";
        e.value = sym.st_value;
        e.size = sym.st_size;
        e.type = static_cast<uint8_t>(GELF_ST_TYPE(sym.st_info));
        e.bind = static_cast<uint8_t>(GELF_ST_BIND(sym.st_info));
        e.other = sym.st_other;
        e.shndx = sym.st_shndx;
        out.symbols.push_back(std::move(e));
      }
    }
  }
  return out;
}

std::vector<CudaFunction> cuda_functions(const CudaElf& elf) {
  std::map<std::string_view, std::vector<const ElfSymbol*>> funcs; // name -> FUNC symbols
  for (const auto& sym : elf.symbols)
    if (sym.type == STT_FUNC) funcs[sym.name].push_back(&sym);
  std::vector<CudaFunction> out;
  std::set<std::string_view> seen;
  for (size_t i = 0; i < elf.sections.size(); ++i) {
    std::string_view name = elf.sections[i].name;
    if (name.size() <= 6 || name.substr(0, 6) != ".text." || !seen.insert(name).second) continue;
    CudaFunction f;
    f.name = name.substr(6);
    f.text = i;
    auto it = funcs.find(f.name);
    if (it != funcs.end())
      for (const ElfSymbol* sym : it->second)
        if (sym->shndx == i) f.entry = (sym->other & k_sto_cuda_entry) != 0;
    out.push_back(std::move(f));
  }
  return out;
}

std::string symbol_label(const CudaElf& elf, uint32_t index) {
  if (index == 0 || index >= elf.symbols.size()) return fmt::format("symbol {}", index);
  const ElfSymbol& s = elf.symbols[index];
  if (s.type == STT_SECTION && s.shndx < elf.sections.size()) return elf.sections[s.shndx].name;
  return s.name.empty() ? fmt::format("symbol {}", index) : s.name;
}

std::vector<NvInfoAttr> parse_nv_info(std::string_view d) {
  std::vector<NvInfoAttr> out;
  size_t pos = 0;
  while (d.size() - pos >= 4) {
    NvInfoAttr a;
    a.format = static_cast<uint8_t>(d[pos]);
    a.code = static_cast<uint8_t>(d[pos + 1]);
    size_t len = static_cast<unsigned char>(d[pos + 2]) |
                 (static_cast<size_t>(static_cast<unsigned char>(d[pos + 3])) << 8);
    if (a.format == 4) {
      if (d.size() - pos - 4 < len) break;
      a.value.assign(d.substr(pos + 4, len));
      pos += 4 + len;
    } else if (a.format >= 1 && a.format <= 3) {
      a.value.assign(d.substr(pos + 2, 2));
      pos += 4;
    } else {
      break; // unknown format: the rest cannot be framed
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string eiattr_name(uint8_t code) {
  switch (code) {
  case 0x04:
    return "CTAIDZ_USED";
  case 0x05:
    return "MAX_THREADS";
  case 0x0a:
    return "PARAM_CBANK";
  case 0x0f:
    return "EXTERNS";
  case 0x10:
    return "REQNTID";
  case 0x11:
    return "FRAME_SIZE";
  case 0x12:
    return "MIN_STACK_SIZE";
  case 0x17:
    return "KPARAM_INFO";
  case 0x19:
    return "CBANK_PARAM_SIZE";
  case 0x1b:
    return "MAXREG_COUNT";
  case 0x1c:
    return "EXIT_INSTR_OFFSETS";
  case 0x1d:
    return "S2RCTAID_INSTR_OFFSETS";
  case 0x1e:
    return "CRS_STACK_SIZE";
  case 0x23:
    return "MAX_STACK_SIZE";
  case 0x2f:
    return "REGCOUNT";
  case 0x37:
    return "CUDA_API_VERSION";
  default:
    return fmt::format("EIATTR_0x{:02x}", code);
  }
}

} // namespace kdet::diff::detail
