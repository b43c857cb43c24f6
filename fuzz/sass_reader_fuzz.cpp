//===- fuzz/sass_reader_fuzz.cpp - libFuzzer target for SASS listings ------===//
//
// Input: one nvdisasm or cuobjdump listing, or two separated by a line "====".
// With one, B is A with its R registers renumbered (R<n> -> R<n+1>), so the
// renaming path runs on every seed. Each pair of same-named functions is
// canonicalised and compared, as kdet diff does with nvdisasm's listings.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/diff/sass_reader.hpp"

#include <cctype>
#include <cstddef>
#include <cstdint>

namespace {

std::string renumber(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    bool reg = s[i] == 'R' && (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))) &&
               i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]));
    if (reg) out += '1';
  }
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kdet::diff;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string a(in), b;
  size_t sep = in.find("\n====\n");
  if (sep != std::string_view::npos) {
    a = in.substr(0, sep + 1);
    b = in.substr(sep + 6);
  } else {
    b = renumber(in);
  }
  detail::SassListing la = detail::read_sass(a), lb = detail::read_sass(b);
  bool approximate = false, cut = false;
  size_t budget = detail::k_max_report_hunk_lines;
  for (const auto& fa : la.functions)
    for (const auto& fb : lb.functions) {
      if (fa.name != fb.name) continue;
      Report r;
      r.format = Format::cubin;
      r.entries.emplace_back();
      r.entries.back().change = detail::compare_sass(fa, fb, in.size() % 2 == 0, r.entries.back(),
                                                     approximate, budget, cut);
      (void)to_text(r, true, "a", "b");
      (void)to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  for (const auto& f : la.functions)
    (void)detail::canonical_text(detail::canonicalise(f));
  return 0;
}
