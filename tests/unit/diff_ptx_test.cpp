// Unit tests for diff/ PTX classification: real libNVVM 13.0 PTX
// (tests/data/diff/*.ptx, see make_ptx.py) transformed in known ways.
#include "kdet/diff/diff.hpp"
#include "kdet/util/fs.hpp"

#include <chrono>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <regex>

namespace kdet::diff {
namespace {

std::string data(const std::string& name) {
  return read_file(std::string(KDET_SOURCE_DIR) + "/tests/data/diff/" + name);
}

const Entry* find(const Report& r, const std::string& name) {
  for (const auto& e : r.entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

// Renumbers every virtual register: %pN -> %p(limit - N) where limit is the declared count,
// so the result is still valid PTX with the same declarations. Labels get a 9 prepended.
std::string renumber(const std::string& ptx) {
  std::map<std::string, int> limit;
  std::regex decl(R"(%(\w+?)<(\d+)>)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), decl); it != std::sregex_iterator();
       ++it)
    limit[(*it)[1]] = std::max(limit[(*it)[1]], std::stoi((*it)[2]));
  std::regex reg(R"(%(rd|fd|rs|r|f|p|h)(\d+)\b)");
  std::string out;
  auto last = ptx.cbegin();
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), reg); it != std::sregex_iterator();
       ++it) {
    out.append(last, (*it)[0].first);
    int n = std::stoi((*it)[2]);
    out += "%" + (*it)[1].str() + std::to_string(limit[(*it)[1]] - n);
    last = (*it)[0].second;
  }
  out.append(last, ptx.cend());
  return std::regex_replace(out, std::regex(R"(\$L__BB)"), "$$L__BB9");
}

// Index of the first line containing `needle` at or after `from`.
size_t line_with(const std::vector<std::string>& lines, const std::string& needle,
                 size_t from = 0) {
  for (size_t i = from; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string::npos) return i;
  ADD_FAILURE() << "no line with " << needle;
  return 0;
}

TEST(DiffPtx, DetectsPtx) {
  EXPECT_EQ(detect_format(data("saxpy.ptx")), Format::ptx);
  EXPECT_EQ(detect_format("hello\nworld\n"), Format::text);
}

TEST(DiffPtx, IdenticalFiles) {
  std::string a = data("tiled_matmul.ptx");
  Report r = compare(a, a);
  EXPECT_TRUE(identical(r));
  EXPECT_EQ(summary_line(r), "identical");
  EXPECT_EQ(to_json(r)["schema"], "kdet.diff/1");
}

TEST(DiffPtx, RenumberedRegistersAreRenamed) {
  for (const char* name : {"saxpy.ptx", "block_reduce.ptx", "tiled_matmul.ptx", "row_softmax.ptx",
                           "two_kernels.ptx"}) {
    std::string a = data(name), b = renumber(a);
    ASSERT_NE(a, b) << name;
    Report r = compare(a, b);
    EXPECT_EQ(r.overall, Change::renamed) << name;
    EXPECT_EQ(summary_line(r), "same after register renaming") << name;
    for (const auto& e : r.entries) {
      if (e.kind == "module") continue;
      EXPECT_EQ(e.change, Change::renamed) << name << " " << e.name;
      EXPECT_TRUE(e.hunks.empty())
          << name << " " << e.name << ": renaming must not show in the diff";
    }
  }
}

TEST(DiffPtx, SwappedIndependentInstructionsAreReordered) {
  auto lines = lines_of(data("block_reduce.ptx"));
  size_t i = line_with(lines, "ld.param.u64"); // two independent parameter loads
  ASSERT_NE(lines[i + 1].find("ld.param.u64"), std::string::npos);
  auto swapped = lines;
  std::swap(swapped[i], swapped[i + 1]);
  Report r = compare(join(lines), join(swapped));
  const Entry* e = find(r, "block_reduce");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reordered);
  EXPECT_EQ(e->moved, 1u);
  EXPECT_TRUE(r.ordering_only);
  EXPECT_EQ(summary_line(r), "ordering differences only: differ by instruction order in 1 of 1 "
                             "function");
  // The smallest diff: one line out, one line in, with the original line numbers.
  size_t minus = 0, plus = 0;
  for (const auto& h : e->hunks)
    for (const auto& l : h.lines) {
      minus += l.op == '-';
      plus += l.op == '+';
      if (l.op == '-') {
        EXPECT_TRUE(l.line_a == i + 1 || l.line_a == i + 2);
      }
    }
  EXPECT_EQ(minus, 1u);
  EXPECT_EQ(plus, 1u);
}

TEST(DiffPtx, ReorderThatPermutesFirstUseNamesIsStillReordered) {
  // What a compiler does: the swapped loads also take each other's register numbers.
  auto lines = lines_of(data("block_reduce.ptx"));
  size_t i = line_with(lines, "ld.param.u64");
  auto b = lines;
  std::swap(b[i], b[i + 1]);
  std::string text = join(b);
  text = std::regex_replace(text, std::regex(R"(%rd2\b)"), "%rdX");
  text = std::regex_replace(text, std::regex(R"(%rd3\b)"), "%rd2");
  text = std::regex_replace(text, std::regex(R"(%rdX)"), "%rd3");
  Report r = compare(join(lines), text);
  const Entry* e = find(r, "block_reduce");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reordered);
  EXPECT_EQ(e->moved, 1u);
}

TEST(DiffPtx, ChangedImmediateIsCode) {
  auto lines = lines_of(data("tiled_matmul.ptx"));
  size_t i = line_with(lines, "shl.b32");
  auto b = lines;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(b[i], m, std::regex(R"(, (\d+);)")));
  b[i] = std::regex_replace(b[i], std::regex(R"(, (\d+);)"),
                            ", " + std::to_string(std::stoi(m[1]) + 1) + ";");
  Report r = compare(join(lines), join(b));
  const Entry* e = find(r, "tiled_matmul");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::code);
  EXPECT_NE(std::find(e->aspects.begin(), e->aspects.end(), "immediates"), e->aspects.end());
  EXPECT_EQ(summary_line(r), "code changed in 1 of 1 function");
  size_t changed = 0;
  for (const auto& h : e->hunks)
    for (const auto& l : h.lines)
      changed += l.op != ' ';
  EXPECT_EQ(changed, 2u);
}

TEST(DiffPtx, RegCountChangeIsRegDecls) {
  std::string a = data("row_softmax.ptx");
  std::string b = std::regex_replace(a, std::regex(R"(%rd<(\d+)>)"), "%rd<3000>");
  Report r = compare(a, b);
  const Entry* e = find(r, "row_softmax");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reg_decls);
  ASSERT_EQ(e->values.size(), 1u);
  EXPECT_EQ(e->values[0].b, ".reg .b64 %rd<3000>");
  EXPECT_EQ(summary_line(r), "register declarations changed in 1 of 1 function");
}

TEST(DiffPtx, RegCountAndReorderTogether) {
  auto lines = lines_of(data("block_reduce.ptx"));
  size_t i = line_with(lines, "ld.param.u64");
  auto b = lines;
  std::swap(b[i], b[i + 1]);
  std::string text = std::regex_replace(join(b), std::regex(R"(%rd<15>)"), "%rd<14>");
  Report r = compare(join(lines), text);
  const Entry* e = find(r, "block_reduce");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reg_decls);
  EXPECT_NE(std::find(e->aspects.begin(), e->aspects.end(), "order"), e->aspects.end());
}

TEST(DiffPtx, CommentsOnlyAreTrivia) {
  std::string a = data("saxpy.ptx");
  std::string b =
      std::regex_replace(a, std::regex("Compiler Build ID: [A-Z0-9-]+"), "Compiler Build ID: CL-0");
  b = std::regex_replace(b, std::regex("\tret;"), "\tret;   // the end");
  ASSERT_NE(a, b);
  Report r = compare(a, b);
  EXPECT_EQ(r.overall, Change::trivia);
  EXPECT_EQ(summary_line(r), "differ only in comments or whitespace");
}

TEST(DiffPtx, OneOfThreeFunctionsChanged) {
  // two_kernels.ptx: .func poly, .entry scale_add, .entry mix.
  std::string a = data("two_kernels.ptx");
  auto lines = lines_of(a);
  size_t mix = line_with(lines, ".entry mix");
  size_t i = line_with(lines, "ld.param.u64", mix);
  auto b = lines;
  std::swap(b[i], b[i + 1]);
  Report r = compare(a, join(b));
  ASSERT_TRUE(find(r, "poly") && find(r, "scale_add") && find(r, "mix"));
  EXPECT_EQ(find(r, "poly")->kind, "func");
  EXPECT_EQ(find(r, "poly")->change, Change::identical);
  EXPECT_EQ(find(r, "scale_add")->change, Change::identical);
  EXPECT_EQ(find(r, "mix")->change, Change::reordered);
  EXPECT_EQ(summary_line(r),
            "ordering differences only: differ by instruction order in 1 of 3 functions");
}

TEST(DiffPtx, ModuleLevelConstantChange) {
  std::string a = data("two_kernels.ptx");
  std::string b = std::regex_replace(a, std::regex("0, 0, 128, 63"), "0, 0, 160, 63");
  Report r = compare(a, b);
  const Entry* m = find(r, "(module)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->change, Change::code);
  EXPECT_EQ(summary_line(r), "module-level declarations changed");
  EXPECT_FALSE(r.ordering_only);
}

// two_kernels.ptx with its two entries (lines 33-84 and 86-140) swapped.
std::vector<std::string> entries_swapped(const std::vector<std::string>& l) {
  size_t s0 = line_with(l, ".visible .entry scale_add"), m0 = line_with(l, ".visible .entry mix");
  size_t m1 = m0;
  while (m1 < l.size() && l[m1] != "}")
    ++m1;
  ++m1;
  std::vector<std::string> b(l.begin(), l.begin() + static_cast<long>(s0));
  b.insert(b.end(), l.begin() + static_cast<long>(m0), l.begin() + static_cast<long>(m1));
  b.emplace_back();
  b.insert(b.end(), l.begin() + static_cast<long>(s0), l.begin() + static_cast<long>(m0) - 1);
  b.insert(b.end(), l.begin() + static_cast<long>(m1), l.end());
  return b;
}

TEST(DiffPtx, FunctionSwapIsOrderingOnly) {
  std::string a = data("two_kernels.ptx");
  std::string b = join(entries_swapped(lines_of(a)));
  ASSERT_NE(a, b);
  Report r = compare(a, b);
  EXPECT_EQ(r.overall, Change::reordered);
  EXPECT_TRUE(r.functions_reordered);
  EXPECT_TRUE(r.ordering_only);
  EXPECT_EQ(summary_line(r), "ordering differences only: functions in another order");
  auto j = to_json(r);
  EXPECT_EQ(j["ordering_only"], true);
  EXPECT_EQ(j["functions_reordered"], true);
}

TEST(DiffPtx, FunctionSwapPlusRenamingReportsBoth) {
  std::string a = data("two_kernels.ptx");
  std::string b = renumber(join(entries_swapped(lines_of(a))));
  Report r = compare(a, b);
  EXPECT_EQ(r.overall, Change::reordered);
  EXPECT_TRUE(r.ordering_only);
  EXPECT_EQ(summary_line(r), "ordering differences only: functions in another order; registers "
                             "renamed in 3 of 3 functions");
  // Renaming alone is no ordering difference; a code change beside a swap is not "only".
  EXPECT_FALSE(compare(a, renumber(a)).ordering_only);
  std::string c = std::regex_replace(b, std::regex("0, 0, 128, 63"), "0, 0, 160, 63");
  ASSERT_NE(b, c);
  Report rc = compare(a, c);
  EXPECT_FALSE(rc.ordering_only);
  EXPECT_EQ(summary_line(rc), "functions in another order; module-level declarations changed; "
                              "registers renamed in 3 of 3 functions");
}

// Whitespace runs collapsed to one space, ends trimmed: a one-statement line as hunks show it.
std::string collapsed(const std::string& line) {
  std::string out;
  for (char c : line) {
    bool space = c == ' ' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

TEST(DiffPtx, HunksShowEachFilesOwnTextAndLines) {
  // A compiler's reorder: two loads swapped, and every register of B renumbered.
  auto la = lines_of(data("block_reduce.ptx"));
  size_t i = line_with(la, "ld.param.u64");
  auto swapped = la;
  std::swap(swapped[i], swapped[i + 1]);
  auto lb = lines_of(renumber(join(swapped)));
  Report r = compare(join(la), join(lb));
  const Entry* e = find(r, "block_reduce");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reordered);
  ASSERT_FALSE(e->hunks.empty());
  size_t pairs = 0;
  for (const auto& h : e->hunks)
    for (const auto& l : h.lines) {
      if (l.op != '+') {
        ASSERT_GE(l.line_a, 1u);
        EXPECT_EQ(l.text, collapsed(la[l.line_a - 1])) << "A line " << l.line_a;
      }
      if (l.op == '+') {
        EXPECT_EQ(l.text, collapsed(lb[l.line_b - 1])) << "B line " << l.line_b;
      }
      if (l.op == ' ') {
        EXPECT_EQ(l.text_b.empty() ? l.text : l.text_b, collapsed(lb[l.line_b - 1]));
        pairs += !l.text_b.empty();
      }
    }
  EXPECT_GT(pairs, 0u) << "renumbered context lines show B's own names";
  std::string text = to_text(r, false, "a.ptx", "b.ptx");
  // The moved load, at its own line with its own register.
  EXPECT_NE(text.find(fmt::format("- {:>5}        {}", i + 1, collapsed(la[i]))), std::string::npos)
      << text;
  EXPECT_NE(text.find("~ "), std::string::npos) << text;
  // HTML shows both sides' own text of such a line too.
  for (const auto& h : e->hunks)
    for (const auto& l : h.lines)
      if (!l.text_b.empty()) {
        EXPECT_NE(to_html(r).find("~ " + l.text_b), std::string::npos) << l.text_b;
        break;
      }

  // On request, the canonical view: the same alignment, one text for both sides.
  CompareOptions canonical;
  canonical.canonical_hunks = true;
  Report rc = compare(join(la), join(lb), canonical);
  const Entry* ec = find(rc, "block_reduce");
  ASSERT_TRUE(ec);
  EXPECT_EQ(ec->hunks.size(), e->hunks.size());
  for (const auto& h : ec->hunks)
    for (const auto& l : h.lines)
      EXPECT_TRUE(l.text_b.empty()) << l.text;
}

TEST(DiffPtx, FunctionOnlyOnOneSide) {
  std::string a = data("two_kernels.ptx");
  auto lines = lines_of(a);
  size_t start = line_with(lines, ".visible .entry mix");
  std::vector<std::string> b(lines.begin(), lines.begin() + static_cast<long>(start));
  Report r = compare(a, join(b));
  ASSERT_TRUE(find(r, "mix"));
  EXPECT_EQ(find(r, "mix")->change, Change::removed);
  EXPECT_GT(find(r, "mix")->count_a, 0u);
  EXPECT_EQ(find(r, "mix")->notes, std::vector<std::string>{"only in A"});
  EXPECT_EQ(r.overall, Change::removed);
  // The other way round it is added, counted on B's side.
  Report back = compare(join(b), a);
  ASSERT_TRUE(find(back, "mix"));
  EXPECT_EQ(find(back, "mix")->change, Change::added);
  EXPECT_GT(find(back, "mix")->count_b, 0u);
  EXPECT_EQ(find(back, "mix")->notes, std::vector<std::string>{"only in B"});
}

TEST(DiffPtx, RenderersNameTheChange) {
  auto lines = lines_of(data("block_reduce.ptx"));
  size_t i = line_with(lines, "ld.param.u64");
  auto b = lines;
  std::swap(b[i], b[i + 1]);
  Report r = compare(join(lines), join(b));
  std::string text = to_text(r, false, "a.ptx", "b.ptx");
  EXPECT_NE(text.find("reordered"), std::string::npos);
  EXPECT_NE(text.find("1 of 49 instructions moved"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos);
  EXPECT_NE(to_text(r, true, "a", "b").find("\033["), std::string::npos);
  std::string html = to_html(r);
  EXPECT_NE(html.find("kdet-diff-reordered"), std::string::npos);
  EXPECT_EQ(html.find("<html"), std::string::npos);
  auto j = to_json(r);
  EXPECT_EQ(j["overall"], "reordered");
  EXPECT_EQ(j["entries"][1]["moved"], 1);
}

// A synthetic 100k-statement function: renumbered and with one changed immediate it must
// still be classified quickly (the Myers cap keeps the worst case bounded).
TEST(DiffPtx, LargeFunctionStaysFast) {
  std::string head =
      ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry big(\n.param .u64 p\n)\n{\n"
      "\t.reg .b32 \t%r<100002>;\n";
  std::string a = head, b = head;
  for (int i = 1; i <= 100000; ++i) {
    a += "\tadd.s32 \t%r" + std::to_string(i) + ", %r" + std::to_string(i / 2) + ", " +
         std::to_string(i % 7) + ";\n";
    int j = 100001 - i; // same function, registers numbered backwards
    b += "\tadd.s32 \t%r" + std::to_string(j) + ", %r" + std::to_string(100001 - i / 2) + ", " +
         std::to_string(i == 50000 ? 99 : i % 7) + ";\n";
  }
  a += "\tret;\n}\n";
  b += "\tret;\n}\n";
  auto t0 = std::chrono::steady_clock::now();
  Report r = compare(a, b);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Entry* e = find(r, "big");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::code);
  // A blowup guard, not a speed goal (bench/ has those): a quadratic compare of 100k lines
  // takes hours; a linear one well under a second, or seconds under sanitizers.
  EXPECT_LT(s, 120.0) << "100k-line compare took " << s << " s";
  RecordProperty("seconds", std::to_string(s));
}

} // namespace
} // namespace kdet::diff
