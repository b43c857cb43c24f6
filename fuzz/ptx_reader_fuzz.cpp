//===- fuzz/ptx_reader_fuzz.cpp - libFuzzer target for the PTX side of diff -===//
//
// Input: one PTX text, or two separated by a line "====". With one, B is A
// with its first two statement lines swapped, so the reorder, renaming and
// hunk paths all run on every seed.
//
//===----------------------------------------------------------------------===//
#include "fuzz_common.hpp"
#include "kdet/diff/ptx_reader.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)kdet::diff::detail::read_ptx(in);
  std::string a, b;
  size_t sep = in.find("\n====\n");
  if (sep != std::string_view::npos) {
    a = in.substr(0, sep + 1);
    b = in.substr(sep + 6);
  } else {
    a = in;
    b = a;
    size_t l1 = b.find(";\n");
    size_t l2 = l1 == std::string::npos ? l1 : b.find(";\n", l1 + 2);
    if (l2 != std::string::npos) {
      size_t start = b.rfind('\n', l1);
      start = start == std::string::npos ? 0 : start + 1;
      std::string first = b.substr(start, l1 + 2 - start),
                  second = b.substr(l1 + 2, l2 + 2 - (l1 + 2));
      b.replace(start, l2 + 2 - start, second + first);
    }
  }
  kdet::fuzz::compare_all(a, b, kdet::diff::Format::ptx);
  return 0;
}
