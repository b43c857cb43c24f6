//===- diff/resources.cpp - what a cubin's kernels ask of the GPU -----------===//
//
// Where each number lives (checked against `ptxas -v` of CUDA 13.0 for sm_75 to
// sm_121 by tests/e2e/impact_real.sh):
//  - registers: the module .nv.info record EIATTR_REGCOUNT (0x2f) of the
//    kernel's symbol; before sm_90 ptxas also puts the count in the high byte
//    of the .text section's sh_info (its low 24 bits are the symbol index),
//    used when the record is missing. From sm_90 on that byte is 0.
//  - stack frame, min and max stack: EIATTR_FRAME_SIZE (0x11),
//    EIATTR_MIN_STACK_SIZE (0x12), EIATTR_MAX_STACK_SIZE (0x23) of the symbol.
//  - barriers: EIATTR_NUM_BARRIERS (0x4c) in .nv.info.<kernel>, absent when the
//    kernel uses none. The .text section's flags hold no barrier count in CUDA
//    13.0 cubins (0x6 with 0 and with 6 barriers); older toolkits kept it in
//    bits 20-26 of sh_flags, read when the attribute is missing.
//  - launch bounds: EIATTR_MAX_THREADS (0x05, .maxntid x y z), EIATTR_REQNTID
//    (0x10, .reqntid), EIATTR_MAXREG_COUNT (0x1b, .maxnreg; 255 when none).
//  - static shared memory: the size of .nv.shared.<kernel> (NOBITS). From
//    sm_90 on, where the cubin has a .nv.shared.reserved.<N> section, the
//    kernel's section starts with the 1 KB the system reserves per block
//    (4096 bytes of `.shared` give a 5120-byte section, and ptxas -v says
//    4096): that window is left out of `shared` and kept in shared_reserved.
//  - constant memory: the size of each .nv.constant<bank>.<kernel>; bank 0
//    holds the parameters and what the driver puts there (ptxas's cmem[0]).
//  - kernel or device function: the function symbol's STO_CUDA_ENTRY
//    (cubin_reader.hpp's cuda_functions()). nvcc -G and -rdc give device
//    functions a .text (and .nv.info) of their own; they are read the same
//    way, kept apart, and given no occupancy: no one launches them.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/resources.hpp"

#include "kdet/diff/cubin_reader.hpp"

#include <algorithm>
#include <cctype>
#include <elf.h>

namespace kdet::diff {

namespace {

constexpr uint8_t k_max_threads = 0x05;
constexpr uint8_t k_reqntid = 0x10;
constexpr uint8_t k_frame_size = 0x11;
constexpr uint8_t k_kparam_info = 0x17;
constexpr uint8_t k_min_stack = 0x12;
constexpr uint8_t k_maxreg_count = 0x1b;
constexpr uint8_t k_max_stack = 0x23;
constexpr uint8_t k_regcount = 0x2f;
constexpr uint8_t k_num_barriers = 0x4c;
constexpr uint64_t k_reserved_window = 1024; // reservedSharedMemPerBlock from sm_80 on

bool starts(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

uint32_t u16(std::string_view v) {
  if (v.size() < 2) return v.empty() ? 0 : static_cast<unsigned char>(v[0]);
  return static_cast<uint32_t>(static_cast<unsigned char>(v[0])) |
         (static_cast<uint32_t>(static_cast<unsigned char>(v[1])) << 8);
}

std::optional<std::array<uint32_t, 3>> dims(const detail::NvInfoAttr& a) {
  if (a.format != 4 || a.value.size() != 12) return std::nullopt;
  return std::array<uint32_t, 3>{detail::read_u32(a.value, 0), detail::read_u32(a.value, 4),
                                 detail::read_u32(a.value, 8)};
}

} // namespace

std::string sm_name(unsigned sm) {
  return "sm_" + std::to_string(sm);
}

std::optional<unsigned> parse_sm(std::string_view t) {
  for (std::string_view p : {"sm_", "compute_", "lto_"})
    if (starts(t, p)) {
      t.remove_prefix(p.size());
      break;
    }
  if (!t.empty() && (t.back() == 'a' || t.back() == 'f')) t.remove_suffix(1);
  if (t.size() < 2 || t.size() > 3) return std::nullopt;
  unsigned v = 0;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

Result<CubinResources> read_resources(std::string_view cubin) {
  Result<detail::CudaElf> read = detail::read_elf(cubin);
  if (!read) return failure(read.why());
  const detail::CudaElf& elf = *read;
  if (elf.machine != EM_CUDA) return failure("not a CUDA ELF (e_machine is not EM_CUDA)");
  CubinResources out;
  // e_flags: the SM number in bits 8-15 (0x6005004 is sm_80, 0x6007802 sm_120).
  out.sm = (elf.flags >> 8) & 0xffU;
  // Kernels and device functions alike into out.kernels; the functions move to
  // out.functions at the end.
  std::map<std::string, size_t> index; // function name -> out.kernels
  std::map<size_t, size_t> by_text;    // .text section -> out.kernels
  std::vector<bool> entry;
  for (const auto& f : detail::cuda_functions(elf)) {
    const auto& s = elf.sections[f.text];
    const std::string& name = f.name;
    entry.push_back(f.entry);
    KernelResources k;
    k.name = name;
    k.text = s.data;
    if (uint32_t regs = s.info >> 24; regs != 0) k.registers = regs;
    // Before CUDA 13 the barrier count sat in sh_flags bits 20-26; an attribute overrides it.
    k.barriers = static_cast<uint32_t>((s.flags >> 20) & 0x7fU);
    index[name] = out.kernels.size();
    by_text[f.text] = out.kernels.size();
    out.kernels.push_back(std::move(k));
  }
  bool reserved_window = false;
  for (const auto& s : elf.sections)
    reserved_window |= starts(s.name, ".nv.shared.reserved.");
  for (const auto& s : elf.sections) {
    auto owned = [&](std::string_view prefix) -> KernelResources* {
      if (!starts(s.name, prefix)) return nullptr;
      auto it = index.find(s.name.substr(prefix.size()));
      return it == index.end() ? nullptr : &out.kernels[it->second];
    };
    if (KernelResources* k = owned(".nv.shared.")) {
      k->shared = s.size;
      if (reserved_window) {
        k->shared_reserved = std::min<uint64_t>(s.size, k_reserved_window);
        k->shared -= k->shared_reserved;
      }
    } else if (starts(s.name, ".nv.constant")) {
      size_t i = 12;
      uint32_t bank = 0;
      while (i < s.name.size() && std::isdigit(static_cast<unsigned char>(s.name[i])) && i < 15)
        bank = bank * 10 + static_cast<uint32_t>(s.name[i++] - '0');
      if (i == 12 || i >= s.name.size() || s.name[i] != '.') continue;
      auto it = index.find(s.name.substr(i + 1));
      if (it != index.end()) out.kernels[it->second].constant[bank] = s.size;
    } else if (KernelResources* k = owned(".nv.info.")) {
      for (const auto& a : detail::parse_nv_info(s.data)) {
        switch (a.code) {
        case k_max_threads:
          k->max_threads = dims(a);
          break;
        case k_reqntid:
          k->reqntid = dims(a);
          break;
        case k_maxreg_count:
          if (a.format != 4) k->max_reg_count = u16(a.value);
          break;
        case k_num_barriers:
          if (a.format != 4) k->barriers = u16(a.value);
          break;
        case k_kparam_info:
          k->params = k->params.value_or(0) + 1;
          break;
        default:
          break;
        }
      }
    }
  }
  // Module .nv.info: per-symbol records {u32 symbol index, u32 value}.
  for (const auto& s : elf.sections) {
    if (s.name != ".nv.info") continue;
    for (const auto& a : detail::parse_nv_info(s.data)) {
      if (a.format != 4 || a.value.size() != 8) continue;
      uint32_t sym = detail::read_u32(a.value, 0), value = detail::read_u32(a.value, 4);
      if (sym >= elf.symbols.size()) continue;
      const auto& symbol = elf.symbols[sym];
      auto k = by_text.find(symbol.shndx);
      if (k == by_text.end() || symbol.name != out.kernels[k->second].name) continue;
      KernelResources& r = out.kernels[k->second];
      if (a.code == k_regcount) r.registers = value;
      if (a.code == k_frame_size) r.stack_frame = value;
      if (a.code == k_min_stack) r.min_stack = value;
      if (a.code == k_max_stack) r.max_stack = value;
    }
  }
  std::vector<KernelResources> all = std::move(out.kernels);
  out.kernels.clear();
  for (size_t i = 0; i < all.size(); ++i)
    (entry[i] ? out.kernels : out.functions).push_back(std::move(all[i]));
  return out;
}

std::optional<uint32_t> kernel_params(std::string_view cubin, const std::string& kernel) {
  Result<CubinResources> res = read_resources(cubin);
  if (!res) return std::nullopt;
  for (const auto& k : res->kernels)
    if (k.name == kernel) return k.params;
  return std::nullopt;
}

} // namespace kdet::diff
