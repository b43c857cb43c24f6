// Unit tests for diff/: format detection, the capped Myers diff, the text and
// binary fallbacks, and the renderers' escaping and schema.
#include "kdet/diff/diff.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/diff/ptx_reader.hpp"

#include <gtest/gtest.h>
#include <random>

namespace kdet::diff {
namespace {

// Textbook O(nm) LCS length, the reference for the Myers implementation.
size_t lcs_length(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

TEST(DiffLines, MyersFindsAnLcsAndAValidScript) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::vector<uint32_t> a(rng() % 40), b(rng() % 40);
    uint32_t alphabet = 1 + rng() % 5;
    for (auto& x : a)
      x = rng() % alphabet;
    for (auto& x : b)
      x = rng() % alphabet;
    auto s = detail::diff_sequences(a, b);
    ASSERT_FALSE(s.approximate);
    EXPECT_EQ(s.kept, lcs_length(a, b)) << "round " << round;
    // Replaying the script must give back both sequences.
    std::vector<uint32_t> ra, rb;
    for (const auto& e : s.edits) {
      if (e.op != detail::Edit::Op::ins) ra.push_back(a[e.i]);
      if (e.op != detail::Edit::Op::del) rb.push_back(b[e.j]);
      if (e.op == detail::Edit::Op::keep) {
        EXPECT_EQ(a[e.i], b[e.j]);
      }
    }
    EXPECT_EQ(ra, a);
    EXPECT_EQ(rb, b);
  }
}

TEST(DiffLines, CapMakesItApproximateButValid) {
  // Nothing in common: past the cap, one replaced block.
  std::vector<uint32_t> a, b;
  for (uint32_t i = 0; i < 5000; ++i)
    a.push_back(i), b.push_back(i + 100000);
  auto s = detail::diff_sequences(a, b, 50);
  EXPECT_TRUE(s.approximate);
  size_t del = 0, ins = 0;
  for (const auto& e : s.edits)
    del += e.op == detail::Edit::Op::del, ins += e.op == detail::Edit::Op::ins;
  EXPECT_EQ(del, 5000u);
  EXPECT_EQ(ins, 5000u);
}

TEST(DiffLines, PastTheCapUniqueAnchorsKeepTheDiffFine) {
  // Every third element changed: far more edits than the cap, but every kept element is unique.
  std::vector<uint32_t> a, b;
  for (uint32_t i = 0; i < 30000; ++i) {
    a.push_back(i);
    b.push_back(i % 3 == 0 ? i + 1000000 : i);
  }
  auto s = detail::diff_sequences(a, b, 100);
  EXPECT_TRUE(s.approximate);
  EXPECT_EQ(s.kept, 20000u);
  std::vector<uint32_t> ra, rb;
  for (const auto& e : s.edits) {
    if (e.op != detail::Edit::Op::ins) ra.push_back(a[e.i]);
    if (e.op != detail::Edit::Op::del) rb.push_back(b[e.j]);
  }
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rb, b);
}

TEST(DiffFormat, Detection) {
  EXPECT_EQ(detect_format(".version 9.0\n.target sm_90\n"), Format::ptx);
  EXPECT_EQ(detect_format("// no directives\nmov.u32 %r1, 1;\n"), Format::text);
  EXPECT_EQ(detect_format(std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0\x3e\0",
                                      20)),
            Format::binary);
  EXPECT_EQ(detect_format(std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x01\0\xbe\0",
                                      20)),
            Format::cubin);
  EXPECT_EQ(detect_format(std::string("ab\0cd", 5)), Format::binary);
  EXPECT_EQ(detect_format(""), Format::text);
  EXPECT_EQ(parse_format("cubin"), Format::cubin);
  EXPECT_FALSE(parse_format("sass"));
}

TEST(DiffText, UnifiedHunksWithLineNumbers) {
  std::string a, b;
  for (int i = 1; i <= 30; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += (i == 15 ? std::string("changed") : "line " + std::to_string(i)) + "\n";
  }
  Report r = compare(a, b);
  EXPECT_EQ(r.format, Format::text);
  ASSERT_EQ(r.hunks.size(), 1u);
  EXPECT_EQ(r.hunks[0].start_a, 12u);
  EXPECT_EQ(r.hunks[0].count_a, 7u);
  EXPECT_EQ(summary_line(r), "text differs: 1 hunk, +1 -1 lines");
  EXPECT_FALSE(r.ordering_only);
  EXPECT_TRUE(identical(compare(a, a)));
}

TEST(DiffText, SameLinesInAnotherOrderAreOrderingOnly) {
  std::string a, b;
  for (int i = 1; i <= 31; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += "line " + std::to_string(32 - i) + "\n";
  }
  Report r = compare(a, b);
  EXPECT_EQ(r.overall, Change::reordered);
  EXPECT_TRUE(r.ordering_only);
  EXPECT_EQ(summary_line(r),
            "ordering differences only: the same lines in another order: 30 of 31 moved");
  EXPECT_EQ(to_json(r)["ordering_only"], true);
  // One line more or less is no longer a reordering.
  Report more = compare(a, b + "line 1\n");
  EXPECT_FALSE(more.ordering_only);
  EXPECT_EQ(more.overall, Change::code);
}

TEST(DiffBinary, ByteRanges) {
  std::string a(1000, '\0'), b = a;
  b[10] = 1;
  b[12] = 1;  // within the merge gap of 10: one range
  b[500] = 1; // far away: a second range
  b += "xyz"; // tail
  Report r = compare(a, b);
  EXPECT_EQ(r.format, Format::binary);
  ASSERT_EQ(r.byte_ranges.size(), 3u);
  EXPECT_EQ(r.byte_ranges[0].offset, 10u);
  EXPECT_EQ(r.byte_ranges[0].length, 3u);
  EXPECT_EQ(r.byte_ranges[1].offset, 500u);
  EXPECT_EQ(r.byte_ranges[2].offset, 1000u);
  EXPECT_EQ(r.byte_ranges[2].length, 3u);
  EXPECT_EQ(r.bytes_differing, 6u);
}

TEST(DiffRender, HtmlIsEscapedAndJsonVersioned) {
  Report r = compare("<script>alert('x')</script>\n", "<b>&amp;</b>\n");
  std::string html = to_html(r);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&amp;amp;"), std::string::npos);
  EXPECT_NE(html.find("class=\"kdet-diff kdet-diff-code\""), std::string::npos);
  auto j = to_json(r);
  EXPECT_EQ(j["schema"], "kdet.diff/1");
  EXPECT_EQ(j["format"], "text");
  EXPECT_FALSE(j["identical"].get<bool>());
  EXPECT_EQ(j["hunks"].size(), 1u);
}

TEST(DiffPtxReader, SplitsFunctionsPrototypesAndMultiLineCalls) {
  const char* ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.global .align 4 .b8 table[8] = {1, 2,
  3, 4, 5, 6, 7, 8};
/* a block
   comment */ .visible .entry k(
	.param .u64 k_param_0
)
.maxntid 128, 1, 1
{
	.reg .b32 	%r<3>;
	{ // callseq 0, 0
	call.uni (retval0),
	vprintf,
	(
	param0
	);
	}
$L__BB0_1:
	ret;
}
)";
  auto m = detail::read_ptx(ptx);
  ASSERT_EQ(m.functions.size(), 1u);
  const auto& f = m.functions[0];
  EXPECT_EQ(f.name, "k");
  EXPECT_EQ(f.kind, "entry");
  EXPECT_EQ(f.first_line, 8u); // where ".visible .entry" starts, after the block comment
  ASSERT_EQ(f.header.size(), 2u);
  EXPECT_EQ(f.header[1].text, ".maxntid 128, 1, 1");
  bool call = false;
  for (const auto& s : f.body)
    call |= s.text == "call.uni (retval0), vprintf, ( param0 );";
  EXPECT_TRUE(call);
  bool proto = false, table = false;
  for (const auto& s : m.module) {
    proto |= s.text.find("vprintf") != std::string::npos;
    table |= s.text.find("table[8] = {1, 2, 3,") != std::string::npos;
  }
  EXPECT_TRUE(proto);
  EXPECT_TRUE(table);
}

} // namespace
} // namespace kdet::diff
