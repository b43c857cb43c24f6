//===- diff/cubin_entries.cpp - the kernels a loaded image holds -----------===//
#include "kdet/diff/cubin_entries.hpp"

#include "kdet/diff/cubin_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace kdet::diff {

std::vector<std::string> cubin_entry_names(std::string_view image) {
  std::vector<std::string> out;
  Result<detail::CudaElf> elf = detail::read_elf(image);
  if (!elf) return out;
  for (const auto& f : detail::cuda_functions(*elf))
    if (f.entry) out.push_back(f.name);
  return out;
}

namespace {

template <typename T> T at(std::string_view s, size_t off) {
  T v{};
  if (off + sizeof v <= s.size()) std::memcpy(&v, s.data() + off, sizeof v);
  return v;
}

// The length of the 64-bit ELF at the start of `s` (its tables and sections' bytes), which a
// fatbin pads; `s.size()` when it cannot be told.
size_t elf_length(std::string_view s) {
  if (s.size() < 64 ||
      s.substr(0, 4) != "\x7f"
                        "ELF" ||
      s[4] != 2)
    return s.size();
  uint64_t shoff = at<uint64_t>(s, 40);
  uint16_t shnum = at<uint16_t>(s, 60);
  uint64_t end = std::max<uint64_t>(64, at<uint64_t>(s, 32) +
                                            uint64_t{at<uint16_t>(s, 56)} * at<uint16_t>(s, 54));
  end = std::max<uint64_t>(end, shoff + uint64_t{shnum} * 64);
  for (uint16_t i = 0; i < shnum && shoff + uint64_t{i} * 64 + 64 <= s.size(); ++i) {
    size_t sh = shoff + size_t{i} * 64;
    if (at<uint32_t>(s, sh + 4) != 8 /* SHT_NOBITS */)
      end = std::max(end, at<uint64_t>(s, sh + 24) + at<uint64_t>(s, sh + 32));
  }
  return end <= s.size() ? static_cast<size_t>(end) : s.size();
}

} // namespace

std::vector<FatbinMember> fatbin_members(std::string_view image) {
  // Header: u32 magic, u16 version, u16 header size, u64 size of what follows. Each entry:
  // u16 kind, u16 version, u32 header size, u64 payload size (padded), ..., u32 arch at 28,
  // u64 flags at 40 (0x2000 LZ4-compressed, 0x8000 zstd-compressed).
  std::vector<FatbinMember> out;
  constexpr uint32_t k_magic = 0xba55ed50;
  if (image.size() < 16 || at<uint32_t>(image, 0) != k_magic) return out;
  uint64_t end = at<uint16_t>(image, 6) + at<uint64_t>(image, 8);
  end = std::min<uint64_t>(end, image.size());
  uint64_t off = at<uint16_t>(image, 6);
  while (off + 48 <= end && out.size() < 4096) {
    uint32_t header = at<uint32_t>(image, off + 4);
    uint64_t payload = at<uint64_t>(image, off + 8);
    if (header < 48 || header > end - off || payload > end - off - header) break;
    FatbinMember m;
    m.kind = at<uint16_t>(image, off);
    m.arch = at<uint32_t>(image, off + 28);
    m.compressed = (at<uint64_t>(image, off + 40) & 0xa000) != 0;
    if (!m.compressed) m.bytes = image.substr(off + header, payload);
    if (m.kind == 2) m.bytes = m.bytes.substr(0, elf_length(m.bytes));
    out.push_back(m);
    off += header + payload;
  }
  return out;
}

} // namespace kdet::diff
