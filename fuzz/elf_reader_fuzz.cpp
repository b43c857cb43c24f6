//===- fuzz/elf_reader_fuzz.cpp - libFuzzer target for the cubin side of diff -===//
//
// Input: one ELF image. It is read directly, then compared (as cubin and
// auto-detected) with a copy whose middle byte is flipped, so both the
// reader and the per-kernel comparison see every mutation.
//
//===----------------------------------------------------------------------===//
#include "fuzz_common.hpp"
#include "kdet/diff/cubin_reader.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto elf = kdet::diff::detail::read_elf(in))
    for (const auto& s : elf->sections)
      (void)kdet::diff::detail::parse_nv_info(s.data);
  std::string b(in);
  if (!b.empty()) b[b.size() / 2] = static_cast<char>(b[b.size() / 2] ^ 0x10);
  kdet::fuzz::compare_all(in, b, kdet::diff::Format::cubin);
  return 0;
}
