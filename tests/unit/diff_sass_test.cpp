// Unit tests for diff/ SASS listings: the nvdisasm and cuobjdump listings of one real cubin
// (tests/data/sass/, from the device machine) and edits of them: the reader, the canonical
// form, the comparison's classes, and how nvdisasm is found.
#include "kdet/diff/internal.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/diff/sass_reader.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>
#include <regex>
#include <sys/stat.h>

namespace kdet::diff::detail {
namespace {

std::string data(const std::string& name) {
  return read_file(std::string(KDET_SOURCE_DIR) + "/tests/data/sass/" + name);
}

std::string nvdisasm_listing() {
  return data("saxpy_sm90.nvdisasm.txt");
}
std::string cuobjdump_listing() {
  return data("saxpy_sm90.cuobjdump.txt");
}

// The one function of a listing.
SassFunction only_function(const std::string& text) {
  SassListing l = read_sass(text);
  EXPECT_EQ(l.functions.size(), 1u);
  return l.functions.empty() ? SassFunction{} : l.functions[0];
}

// Every `PREFIX<n>` register becomes PREFIX<n + shift> (RZ, URZ, PT, UPT stay).
std::string shift_registers(std::string text, const std::string& prefix, int shift) {
  std::regex re("\\b" + prefix + "([0-9]+)\\b");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), re);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, static_cast<size_t>(it->position()) - last);
    out += prefix + std::to_string(std::stoi((*it)[1]) + shift);
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + text.substr(last);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

Change compare_functions(const SassFunction& a, const SassFunction& b, Entry& e,
                         bool canonical = false) {
  bool approximate = false, cut = false;
  size_t budget = k_max_report_hunk_lines;
  Change c = compare_sass(a, b, canonical, e, approximate, budget, cut);
  EXPECT_FALSE(approximate);
  EXPECT_FALSE(cut);
  return c;
}

TEST(DiffSass, ReadsNvdisasm) {
  SassFunction f = only_function(nvdisasm_listing());
  EXPECT_EQ(f.name, "saxpy");
  ASSERT_EQ(f.instructions.size(), 32u); // .text.saxpy is 0x200 bytes
  EXPECT_EQ(f.instructions[0].text, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(f.instructions[7].text, "@P0 EXIT");
  EXPECT_EQ(f.instructions[19].text, "BRA `(.L_x_0)");
  EXPECT_EQ(f.instructions[19].address, 0x130u);
  EXPECT_EQ(f.labels.at(".L_x_0"), 0x130u);
  EXPECT_EQ(f.labels.at("saxpy"), 0u);
}

TEST(DiffSass, ReadsCuobjdump) {
  SassFunction f = only_function(cuobjdump_listing());
  EXPECT_EQ(f.name, "saxpy");
  ASSERT_EQ(f.instructions.size(), 32u); // the encoding lines are not instructions
  EXPECT_EQ(f.instructions[0].text, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(f.instructions[13].text, "LDG.E R2, desc[UR4][R2.64]");
  EXPECT_EQ(f.instructions[19].text, "BRA 0x130");
  EXPECT_EQ(f.instructions[31].address, 0x1f0u);
}

TEST(DiffSass, BothListingsCanonicaliseAlike) {
  auto a = canonical_text(canonicalise(only_function(nvdisasm_listing())));
  auto b = canonical_text(canonicalise(only_function(cuobjdump_listing())));
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 33u); // 32 instructions and the branch target's label
  EXPECT_EQ(a[0], "LDC R0, c[0x0][0x28]");
  EXPECT_EQ(a[1], "S2R R1, SR_TID.X");
  EXPECT_EQ(a[2], "S2UR UR0, SR_CTAID.X");
  EXPECT_EQ(a[3], "LDC R2, c[0x0][RZ]") << "RZ is kept";
  EXPECT_EQ(a[6], "ISETP.GE.AND P0, PT, R2, UR0, PT") << "PT is kept";
  EXPECT_EQ(a[19], ".L_x_0:");
  EXPECT_EQ(a[20], "BRA `(.L_x_0)");
}

TEST(DiffSass, RenamedRegistersCanonicaliseEqual) {
  std::string renamed = shift_registers(nvdisasm_listing(), "R", 20);
  renamed = shift_registers(renamed, "UR", 8);
  renamed = shift_registers(renamed, "P", 3);
  ASSERT_NE(renamed.find("IMAD R27, R27, UR12, R20"), std::string::npos);
  SassFunction a = only_function(nvdisasm_listing()), b = only_function(renamed);
  EXPECT_EQ(canonical_text(canonicalise(a)), canonical_text(canonicalise(b)));
  Entry e;
  EXPECT_EQ(compare_functions(a, b, e), Change::renamed);
  EXPECT_EQ(e.aspects, std::vector<std::string>{"names"});
  EXPECT_TRUE(e.hunks.empty());
}

TEST(DiffSass, SwappedPairIsReordered) {
  // LDC.64 R2 and ULDC.64 UR4 (0x80, 0x90) swapped, addresses kept in order.
  std::string text = cuobjdump_listing();
  std::string x = "LDC.64 R2, c[0x0][0x218] ;", y = "ULDC.64 UR4, c[0x0][0x208] ;";
  size_t px = text.find(x), py = text.find(y);
  ASSERT_NE(px, std::string::npos);
  ASSERT_NE(py, std::string::npos);
  text.replace(py, y.size(), x + std::string(y.size() - x.size(), ' '));
  text.replace(px, x.size(), y.substr(0, x.size()));
  text.insert(px + x.size(), y.substr(x.size()));
  SassFunction a = only_function(cuobjdump_listing()), b = only_function(text);
  ASSERT_EQ(b.instructions[8].text, "ULDC.64 UR4, c[0x0][0x208]");
  ASSERT_EQ(b.instructions[9].text, "LDC.64 R2, c[0x0][0x218]");
  EXPECT_NE(canonical_text(canonicalise(a)), canonical_text(canonicalise(b)));
  Entry e;
  EXPECT_EQ(compare_functions(a, b, e), Change::reordered);
  EXPECT_EQ(e.moved, 1u);
  EXPECT_FALSE(e.hunks.empty());
}

TEST(DiffSass, ShiftedBranchAddressesCanonicaliseEqual) {
  // cuobjdump: the function's code 0x100 further on, the branch target with it.
  std::string text = cuobjdump_listing();
  std::string shifted;
  std::regex addr("/\\*([0-9a-f]{4})\\*/");
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), addr); it != std::sregex_iterator();
       ++it) {
    shifted += text.substr(last, static_cast<size_t>(it->position()) - last);
    char buf[16];
    std::snprintf(buf, sizeof buf, "/*%04lx*/", std::stoul((*it)[1], nullptr, 16) + 0x100);
    shifted += buf;
    last = static_cast<size_t>(it->position() + it->length());
  }
  shifted += text.substr(last);
  shifted = replace_all(shifted, "BRA 0x130;", "BRA 0x230;");
  SassFunction a = only_function(text), b = only_function(shifted);
  ASSERT_EQ(b.instructions[19].text, "BRA 0x230");
  EXPECT_EQ(canonical_text(canonicalise(a)), canonical_text(canonicalise(b)));
  // nvdisasm: another label name for the same place.
  std::string relabelled = replace_all(nvdisasm_listing(), ".L_x_0", ".L_x_7");
  EXPECT_EQ(canonical_text(canonicalise(only_function(nvdisasm_listing()))),
            canonical_text(canonicalise(only_function(relabelled))));
}

TEST(DiffSass, BranchToAnotherPlaceDiffers) {
  std::string moved = replace_all(cuobjdump_listing(), "BRA 0x130;", "BRA 0x140;");
  SassFunction a = only_function(cuobjdump_listing()), b = only_function(moved);
  EXPECT_NE(canonical_text(canonicalise(a)), canonical_text(canonicalise(b)));
  Entry e;
  EXPECT_EQ(compare_functions(a, b, e), Change::code);
}

TEST(DiffSass, ChangedInstructionIsCodeWithAHunkInEachListingsOwnText) {
  std::string changed =
      replace_all(nvdisasm_listing(), "FFMA R7, R2, UR6, R7 ;", "FMUL R7, R2, UR6 ;");
  // And every register renamed, which the alignment must not see as a change.
  changed = shift_registers(changed, "R", 1);
  SassFunction a = only_function(nvdisasm_listing()), b = only_function(changed);
  auto changes = [](const Entry& e, char op) {
    std::vector<std::string> out;
    for (const auto& l : e.hunks.at(0).lines)
      if (l.op == op)
        out.push_back(l.text + " @" + std::to_string(op == '-' ? l.line_a : l.line_b));
    return out;
  };
  Entry e;
  EXPECT_EQ(compare_functions(a, b, e), Change::code);
  ASSERT_EQ(e.hunks.size(), 1u);
  // Each listing's own instruction, address and listing line.
  EXPECT_EQ(changes(e, '-'), std::vector<std::string>{"/*0100*/ FFMA R7, R2, UR6, R7; @280"});
  EXPECT_EQ(changes(e, '+'), std::vector<std::string>{"/*0100*/ FMUL R8, R3, UR6; @280"});
  size_t pairs = 0;
  for (const auto& l : e.hunks[0].lines)
    pairs += l.op == ' ' && !l.text_b.empty();
  EXPECT_GT(pairs, 0u) << "context lines show both listings' own registers";

  // --canonical: FFMA R7, R2, UR6, R7: R7 is the third R register used, R2 the fourth, UR6 the
  // second UR.
  Entry c;
  EXPECT_EQ(compare_functions(a, b, c, true), Change::code);
  ASSERT_EQ(c.hunks.size(), 1u);
  EXPECT_EQ(changes(c, '-'), std::vector<std::string>{"FFMA R2, R3, UR1, R2 @280"});
  EXPECT_EQ(changes(c, '+'), std::vector<std::string>{"FMUL R2, R3, UR1 @280"});
}

TEST(DiffSass, CallAndReturnTargetsInBothListings) {
  // nvdisasm names a subroutine's label and the function itself; cuobjdump gives addresses.
  std::string nv = ".section .text.k,\"ax\",@progbits\nk:\n"
                   "/*0000*/ CALL.REL.NOINC `($k$sub) ;\n/*0010*/ EXIT ;\n$k$sub:\n"
                   "/*0020*/ @!P1 BRA `(.L_x_3) ;\n/*0030*/ CALL.ABS.NOINC `(other) ;\n.L_x_3:\n"
                   "/*0040*/ RET.REL.NODEC R4 `(k) ;\n";
  std::string cu = "Function : k\n/*0000*/ CALL.REL.NOINC 0x20 ;\n/*0010*/ EXIT ;\n"
                   "/*0020*/ @!P1 BRA 0x40 ;\n/*0030*/ CALL.ABS.NOINC `(other) ;\n"
                   "/*0040*/ RET.REL.NODEC R4 0x0 ;\n";
  auto a = canonical_text(canonicalise(only_function(nv)));
  auto b = canonical_text(canonicalise(only_function(cu)));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::string>{".L_x_0:", "CALL.REL.NOINC `(.L_x_1)", "EXIT",
                                         ".L_x_1:", "@!P0 BRA `(.L_x_2)", "CALL.ABS.NOINC `(other)",
                                         ".L_x_2:", "RET.REL.NODEC R0 `(.L_x_0)"}));
}

TEST(DiffSass, GarbageReadsAsNoFunction) {
  EXPECT_TRUE(read_sass("not a listing\n/*zz*/ x ;\n\x01\x02").functions.empty());
  EXPECT_TRUE(read_sass("").functions.empty());
  // An instruction line outside any function is skipped; a function without lines is empty.
  SassListing l = read_sass("/*0000*/ EXIT ;\nFunction : k\n/*0000*/\n");
  ASSERT_EQ(l.functions.size(), 1u);
  EXPECT_TRUE(l.functions[0].instructions.empty());
}

class DiffSassOptions : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-sass-options");
    if (const char* v = std::getenv("KDET_NVDISASM")) m_saved = v, m_had = true;
    ::unsetenv("KDET_NVDISASM");
  }
  void TearDown() override {
    if (m_had)
      ::setenv("KDET_NVDISASM", m_saved.c_str(), 1);
    else
      ::unsetenv("KDET_NVDISASM");
    remove_tree(m_dir);
  }
  std::string m_dir, m_saved;
  bool m_had = false;
};

TEST_F(DiffSassOptions, NoneAndPathsAndErrors) {
  SassOptions none = find_sass_options("none", "--nvdisasm");
  EXPECT_TRUE(none.nvdisasm.empty());
  EXPECT_NE(none.why_not.find("--nvdisasm none"), std::string::npos);

  std::string tool = m_dir + "/nvdisasm";
  write_file_synced(tool, "#!/bin/sh\nexit 0\n", true);
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);
  EXPECT_EQ(find_sass_options(tool, "--nvdisasm").nvdisasm, tool);

  std::string plain = m_dir + "/not-executable";
  write_file_synced(plain, "x", true);
  try {
    find_sass_options(plain, "--nvdisasm");
    ADD_FAILURE() << "no error for a file that is not executable";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--nvdisasm " + plain), std::string::npos) << e.what();
  }
  EXPECT_THROW(find_sass_options(m_dir, "--nvdisasm"), Error) << "a folder";

  ::setenv("KDET_NVDISASM", tool.c_str(), 1);
  EXPECT_EQ(find_sass_options("", "--nvdisasm").nvdisasm, tool);
  ::setenv("KDET_NVDISASM", "none", 1);
  EXPECT_TRUE(find_sass_options("", "--nvdisasm").nvdisasm.empty());
  EXPECT_EQ(find_sass_options(tool, "--nvdisasm").nvdisasm, tool) << "the option wins";
  ::setenv("KDET_NVDISASM", plain.c_str(), 1);
  try {
    find_sass_options("", "--nvdisasm");
    ADD_FAILURE() << "no error for a bad KDET_NVDISASM";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("KDET_NVDISASM"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace kdet::diff::detail
