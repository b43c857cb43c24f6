//===- diff/cubin_reader.hpp - reads a CUDA ELF (cubin) with libelf --------===//
//
// Internal to diff/. read_elf() never throws and never trusts the input:
// every size and index is checked, so malformed files are reported, not
// crashed on (fuzzed by fuzz/elf_reader_fuzz.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff::detail {

// One section header and its bytes (empty for SHT_NOBITS).
struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t size = 0; // sh_size (also for NOBITS, where data is empty)
  std::string data;
};

// One .symtab entry.
struct ElfSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t type = 0;
  uint8_t bind = 0;
  uint8_t other = 0;
  uint32_t shndx = 0; // index into CudaElf::sections
};

// What kdet needs from a cubin.
struct CudaElf {
  uint16_t machine = 0;
  uint32_t flags = 0;               // e_flags (encodes the SM architecture)
  uint8_t elf_class = 0;            // 1 = 32-bit, 2 = 64-bit
  std::vector<ElfSection> sections; // index = section index
  std::vector<ElfSymbol> symbols;   // index = symbol index
};

// One .nv.info record: format (1 NVAL, 2 BVAL, 3 HVAL, 4 SVAL), attribute code, value bytes.
struct NvInfoAttr {
  uint8_t format = 0;
  uint8_t code = 0;
  std::string value;
};

// st_other bit ptxas sets on the function symbol of an entry point (a kernel).
constexpr uint8_t k_sto_cuda_entry = 0x10;

// One function with its own code: a `.text.<name>` section. `entry` when it is a kernel:
// its symbol carries STO_CUDA_ENTRY. A device function ptxas keeps apart (nvcc -G, -rdc,
// a call it does not inline: `__fAtomicAdd`, `f`) has a .text of its own, and a .nv.info.<name>,
// but no such mark. A .text with no function symbol of its name counts as a kernel.
struct CudaFunction {
  std::string name;
  size_t text = 0; // section index of .text.<name>
  bool entry = true;
};

// Reads an ELF image, or says why it cannot be read.
Result<CudaElf> read_elf(std::string_view image);

// The functions of `elf`, in section order (a name's first .text only).
std::vector<CudaFunction> cuda_functions(const CudaElf& elf);

// What symbol `index` (as .nv.info records and relocations hold it) names: a section
// symbol's section (".nv.constant0.k"), else the symbol's name; "symbol N" when there is no
// such symbol. Symbol indices move when sections come and go (-lineinfo adds some), names do
// not.
std::string symbol_label(const CudaElf& elf, uint32_t index);

// Parses a .nv.info / .nv.info.<kernel> section; stops at the first truncated record.
std::vector<NvInfoAttr> parse_nv_info(std::string_view data);

// "REGCOUNT", "MAX_STACK_SIZE", ... for known EIATTR codes, else "EIATTR_0x<code>".
std::string eiattr_name(uint8_t code);

// Little-endian u32 at `offset` of `s`, or 0 when out of range.
uint32_t read_u32(std::string_view s, size_t offset);

} // namespace kdet::diff::detail
