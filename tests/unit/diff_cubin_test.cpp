// Unit tests for diff/ cubin comparison: real ptxas output of the committed PTX
// (tests/data/diff/*.ptx) under different options, and byte-level edits of it.
#include "kdet/diff/cubin_reader.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/diff/impact.hpp"
#include "kdet/diff/reach.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <sys/stat.h>

namespace kdet::diff {
namespace {

std::string ptxas_path() {
  std::string p = std::string(KDET_DEFAULT_CUDA_HOME) + "/bin/ptxas";
  if (::access(p.c_str(), X_OK) == 0) return p;
  return find_program("ptxas");
}

class DiffCubin : public ::testing::Test {
protected:
  void SetUp() override {
    m_ptxas = ptxas_path();
    if (m_ptxas.empty())
      GTEST_SKIP() << "ptxas not found (looked in " KDET_DEFAULT_CUDA_HOME "/bin and PATH)";
    m_dir = make_temp_dir("kdet-diff-cubin");
  }
  void TearDown() override {
    if (!m_dir.empty()) remove_tree(m_dir);
  }
  // Compiles tests/data/diff/<ptx> with ptxas -arch=sm_90a and extra options; returns the cubin.
  std::string cubin(const std::string& ptx, std::vector<std::string> options) {
    std::string out = m_dir + "/" + std::to_string(m_count++) + ".cubin";
    SpawnOptions so;
    so.argv = {m_ptxas, "-arch=sm_90a"};
    so.argv.insert(so.argv.end(), options.begin(), options.end());
    so.argv.push_back(std::string(KDET_SOURCE_DIR) + "/tests/data/diff/" + ptx);
    so.argv.push_back("-o");
    so.argv.push_back(out);
    CapturedRun run = run_captured(so, std::chrono::seconds(120));
    EXPECT_TRUE(run.status.ok()) << run.status.describe() << "\n" << run.err;
    return read_file(out);
  }
  std::string m_ptxas, m_dir;
  int m_count = 0;
};

const Entry* find(const Report& r, const std::string& name) {
  for (const auto& e : r.entries)
    if (e.name == name) return &e;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

const ValueChange* value(const Entry& e, const std::string& name) {
  for (const auto& v : e.values)
    if (v.name == name) return &v;
  return nullptr;
}

// Section bytes' offset in the file, found through the reader.
size_t section_offset(const std::string& image, const std::string& name) {
  Result<detail::CudaElf> elf = detail::read_elf(image);
  EXPECT_TRUE(elf) << elf.why();
  if (!elf) return 0;
  for (const auto& s : elf->sections)
    if (s.name == name && !s.data.empty()) {
      size_t at = image.find(s.data);
      EXPECT_NE(at, std::string::npos);
      return at;
    }
  ADD_FAILURE() << "no section " << name;
  return 0;
}

TEST_F(DiffCubin, SameOptionsAreIdentical) {
  std::string a = cubin("two_kernels.ptx", {"-O3"}), b = cubin("two_kernels.ptx", {"-O3"});
  EXPECT_EQ(detect_format(a), Format::cubin);
  Report r = compare(a, b);
  EXPECT_TRUE(identical(r));
}

TEST_F(DiffCubin, O0VersusO3NamesRegisterCountAndText) {
  Report r = compare(cubin("two_kernels.ptx", {"-O3"}), cubin("two_kernels.ptx", {"-O0"}));
  EXPECT_EQ(r.format, Format::cubin);
  for (const char* k : {"mix", "scale_add"}) {
    const Entry* e = find(r, k);
    ASSERT_TRUE(e) << k;
    EXPECT_EQ(e->kind, "kernel");
    EXPECT_EQ(e->change, Change::code);
    EXPECT_TRUE(has(e->aspects, "text")) << k;
    EXPECT_TRUE(has(e->aspects, "register_count")) << k;
    const ValueChange* v = value(*e, "register count");
    ASSERT_TRUE(v);
    EXPECT_NE(v->a, v->b);
    EXPECT_LT(e->count_a, e->count_b) << "-O0 code is longer";
  }
  EXPECT_NE(summary_line(r).find("register count changed in 2 of 2 kernels"), std::string::npos)
      << summary_line(r);
  bool said_how = false; // by words, or by canonical SASS where nvdisasm is found
  for (const auto& n : r.notes)
    said_how |= n.rfind("SASS compared as ", 0) == 0;
  EXPECT_TRUE(said_how);
}

TEST_F(DiffCubin, WithoutNvdisasmSassIsComparedAsWords) {
  CompareOptions o;
  o.sass = find_sass_options("none", "--nvdisasm");
  Report r = compare(cubin("two_kernels.ptx", {"-O3"}), cubin("two_kernels.ptx", {"-O0"}), o);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.back(),
            "SASS compared as 16-byte instruction words (nvdisasm not used: --nvdisasm none)");
  EXPECT_TRUE(find(r, "mix")->hunks.empty());
}

TEST_F(DiffCubin, HangingNvdisasmIsAskedOnceThenTheWordsAreCompared) {
  std::string a = cubin("saxpy.ptx", {"-O3"});
  size_t text = section_offset(a, ".text.saxpy");
  std::string b = a;
  b[text + 0x62] = static_cast<char>(b[text + 0x62] ^ 1);
  std::string tool = m_dir + "/hanging-nvdisasm";
  write_file_synced(tool, "#!/bin/sh\nexec sleep 30\n", true);
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);
  CompareOptions o;
  o.sass = find_sass_options(tool, "--nvdisasm");
  o.sass->timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  Report first = compare(a, b, o);
  ASSERT_FALSE(first.notes.empty());
  EXPECT_EQ(first.notes.back(),
            "SASS compared as 16-byte instruction words: nvdisasm timed out on A");
  EXPECT_EQ(find(first, "saxpy")->change, Change::code);
  Report second = compare(a, b, o);
  EXPECT_EQ(second.notes.back(), "SASS compared as 16-byte instruction words: nvdisasm timed "
                                 "out earlier in this process; not run again");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(DiffCubin, WithNvdisasmSassIsComparedCanonically) {
  SassOptions sass = find_sass_options("", "--nvdisasm");
  if (sass.nvdisasm.empty()) GTEST_SKIP() << sass.why_not;
  CompareOptions o;
  o.sass = sass;
  Report r = compare(cubin("two_kernels.ptx", {"-O3"}), cubin("two_kernels.ptx", {"-O0"}), o);
  std::string text = to_text(r, false, "a", "b");
  ASSERT_FALSE(r.notes.empty()) << text;
  EXPECT_EQ(r.notes.back().rfind("SASS compared as canonical nvdisasm listings", 0), 0u) << text;
  const Entry* e = find(r, "mix");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::code) << text;
  EXPECT_FALSE(e->hunks.empty()) << text;
  EXPECT_NE(summary_line(r).find("SASS changed in 2 of 2 kernels"), std::string::npos) << text;
}

TEST_F(DiffCubin, MaxRegCountLowersRegisterCount) {
  Report r = compare(cubin("row_softmax.ptx", {"-O3"}),
                     cubin("row_softmax.ptx", {"-O3", "--maxrregcount", "24"}));
  const Entry* e = find(r, "row_softmax");
  ASSERT_TRUE(e);
  const ValueChange* v = value(*e, "register count");
  ASSERT_TRUE(v) << to_text(r, false, "a", "b");
  EXPECT_EQ(v->b, "24");
  EXPECT_GT(std::stoi(v->a), 24);
  ASSERT_TRUE(value(*e, "MAXREG_COUNT"));
}

TEST_F(DiffCubin, LineInfoIsNotACodeChange) {
  Report r =
      compare(cubin("row_softmax.ptx", {"-O3"}), cubin("row_softmax.ptx", {"-O3", "-lineinfo"}));
  const Entry* e = find(r, "row_softmax");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::identical) << to_text(r, false, "a", "b");
  const Entry* meta = find(r, "(debug and notes)");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->change, Change::metadata);
  EXPECT_TRUE(value(*meta, ".nv_debug_line_sass"));
}

// -lineinfo adds sections, and a section symbol for each, so symbols are renumbered: the
// .nv.info records (PARAM_CBANK, EXTERNS) and relocations that hold symbol indices compare
// by what they name. calls.ptx assembled with -c has relocations and EXTERNS.
TEST_F(DiffCubin, LineInfoRenumberingChangesNoKernel) {
  const std::pair<const char*, const char*> cases[] = {
      {"two_kernels.ptx", "-O3"}, {"two_kernels.ptx", "-c"}, {"calls.ptx", "-c"}};
  for (const auto& [ptx, mode] : cases) {
    {
      SCOPED_TRACE(std::string(ptx) + " " + mode);
      std::string a = cubin(ptx, {mode}), b = cubin(ptx, {mode, "-lineinfo"});
      Result<detail::CudaElf> ea = detail::read_elf(a), eb = detail::read_elf(b);
      ASSERT_TRUE(ea && eb) << ea.why() << eb.why();
      ASSERT_NE(ea->symbols.size(), eb->symbols.size()) << "-lineinfo no longer renumbers";
      Report r = compare(a, b);
      size_t functions = 0;
      for (const auto& e : r.entries) {
        if (e.name.front() == '(') continue; // module sections, debug and notes
        ++functions;
        EXPECT_EQ(e.change, Change::identical) << e.name << "\n" << to_text(r, false, "a", "b");
      }
      EXPECT_GE(functions, 2u);
    }
  }
}

// Where a record holding a symbol index does differ, it names the symbol, not the number
// (nor the section that happens to have the symbol's index).
TEST_F(DiffCubin, SymbolIndicesInAttributesAreShownByName) {
  std::string a = cubin("calls.ptx", {"-c"});
  Result<detail::CudaElf> read = detail::read_elf(a);
  ASSERT_TRUE(read) << read.why();
  const detail::CudaElf& elf = *read;
  uint32_t twice = 0;
  for (uint32_t i = 0; i < elf.symbols.size(); ++i)
    if (elf.symbols[i].name == "_Z5twicef") twice = i;
  ASSERT_NE(twice, 0u);
  // Walk .nv.info.first's records: PARAM_CBANK {symbol, u16 offset, u16 size} gets another
  // size, EXTERNS {symbol of ext_scale} names twice instead.
  size_t at = section_offset(a, ".nv.info.first");
  std::string b = a;
  bool cbank = false, externs = false;
  for (size_t pos = at; pos + 4 <= at + 0x100;) {
    auto byte = [&](size_t i) { return static_cast<unsigned char>(a[i]); };
    if (byte(pos) != 4) {
      pos += 4;
      continue;
    }
    size_t len = byte(pos + 2) | (byte(pos + 3) << 8);
    if (byte(pos + 1) == 0x0a && len == 8) {
      b[pos + 10] = static_cast<char>(byte(pos + 10) + 4);
      cbank = true;
    }
    if (byte(pos + 1) == 0x0f && len == 4) {
      b[pos + 4] = static_cast<char>(twice);
      externs = true;
    }
    pos += 4 + len;
    if (cbank && externs) break;
  }
  ASSERT_TRUE(cbank && externs);
  Report r = compare(a, b);
  const Entry* e = find(r, "first");
  ASSERT_TRUE(e);
  std::string text = to_text(r, false, "a", "b");
  EXPECT_EQ(e->change, Change::attributes) << text;
  const ValueChange* v = value(*e, "PARAM_CBANK");
  ASSERT_TRUE(v) << text;
  EXPECT_EQ(v->a, ".nv.constant0.first, offset 0x210, size 8");
  EXPECT_EQ(v->b, ".nv.constant0.first, offset 0x210, size 12");
  v = value(*e, "EXTERNS");
  ASSERT_TRUE(v) << text;
  EXPECT_EQ(v->a, "_Z9ext_scalef");
  EXPECT_EQ(v->b, "_Z5twicef");
}

TEST_F(DiffCubin, MaxRegCountAboveNeedChangesOnlyAttributes) {
  // The kernel needs few registers: code stays, MAXREG_COUNT and the options note change.
  Report r =
      compare(cubin("saxpy.ptx", {"-O3"}), cubin("saxpy.ptx", {"-O3", "--maxrregcount", "200"}));
  const Entry* e = find(r, "saxpy");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::attributes) << to_text(r, false, "a", "b");
  ASSERT_TRUE(value(*e, "MAXREG_COUNT"));
  EXPECT_EQ(value(*e, "MAXREG_COUNT")->b, "200");
  EXPECT_FALSE(value(*e, "register count"));
}

// ptxas -c (what nvcc -rdc runs) and -g (nvcc -G) give device functions a .text of their
// own: two_kernels.ptx's poly and the division's slow path. Their symbols lack
// STO_CUDA_ENTRY: they are compared as functions, and counted apart from the two kernels.
TEST_F(DiffCubin, DeviceFunctionsAreNotCountedAsKernels) {
  std::string c3 = cubin("two_kernels.ptx", {"-c"});
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"-c", "-O0"}, std::vector<std::string>{"-g"}}) {
    SCOPED_TRACE(options.back());
    std::string other = cubin("two_kernels.ptx", options);
    Report r = compare(c3, other);
    std::string text = to_text(r, false, "a", "b");
    std::map<std::string, std::string> kinds;
    for (const auto& e : r.entries)
      kinds[e.name] = e.kind;
    EXPECT_EQ(kinds["mix"], "kernel");
    EXPECT_EQ(kinds["scale_add"], "kernel");
    EXPECT_EQ(kinds["poly"], "function") << text;
    EXPECT_EQ(kinds["__cuda_sm3x_div_rn_noftz_f32_slowpath"], "function") << text;
    const std::string line = summary_line(r);
    EXPECT_NE(line.find(".text changed in 2 of 2 kernels and "), std::string::npos) << line;
    EXPECT_NE(line.find(" of 2 device functions"), std::string::npos) << line;
    EXPECT_EQ(line.find("4 kernels"), std::string::npos) << line;
    // The reach line of kdet diff, run, scan and builds.
    EXPECT_EQ(reach_summary(impact_cubins(c3, c3, ImpactOptions{})),
              "identical outputs: sm_90, 2 kernels (and 2 device functions)");
    VariantReach v = variant_reach(c3, other, ReachOptions{});
    ASSERT_TRUE(v.known()) << v.summary;
    EXPECT_NE(v.summary.find(" in 2 of 2 kernels and "), std::string::npos) << v.summary;
    EXPECT_NE(reach_line(*v.report).find("in 2 of 2 kernels and "), std::string::npos);
  }
}

// kdet impact lists device functions apart, with no block size and no occupancy: nothing
// launches them.
TEST_F(DiffCubin, DeviceFunctionsHaveNoOccupancy) {
  std::string a = cubin("calls.ptx", {"-c"}), b = cubin("calls.ptx", {"-c", "-O0"});
  ImpactReport r = impact_cubins(a, b, ImpactOptions{});
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.functions.size(), 1u);
  for (const auto& k : r.kernels) {
    EXPECT_TRUE(k.occupancy_a && k.occupancy_b) << k.name;
    EXPECT_EQ(k.block_from, "default");
  }
  const KernelImpact& f = r.functions.front();
  EXPECT_EQ(f.name, "_Z5twicef");
  EXPECT_FALSE(f.occupancy_a || f.occupancy_b);
  EXPECT_EQ(f.block_size, 0u);
  EXPECT_TRUE(f.a.registers.has_value());
  nlohmann::json j = to_json(r);
  ASSERT_EQ(j["kernels"].size(), 2u);
  ASSERT_EQ(j["functions"].size(), 1u);
  EXPECT_EQ(j["functions"][0]["name"], "_Z5twicef");
  EXPECT_FALSE(j["functions"][0].contains("occupancy_a"));
  std::string table = to_text(r, false);
  EXPECT_NE(table.find("function  twice(float) (_Z5twicef)"), std::string::npos) << table;
  EXPECT_EQ(table.find("kernel    twice"), std::string::npos) << table;
  nlohmann::json compact = to_json(VariantReach{r, "", reach_summary(r)});
  EXPECT_EQ(compact["kernels"].size(), 2u);
  ASSERT_EQ(compact["functions"].size(), 1u);
  EXPECT_TRUE(compact["functions"][0]["blocks_per_sm_a"].is_null());
  Result<CubinResources> res = read_resources(a);
  ASSERT_TRUE(res) << res.why();
  EXPECT_EQ(res->kernels.size(), 2u);
  EXPECT_EQ(kernel_params(a, "_Z5twicef"), std::nullopt); // not a kernel to launch
}

TEST_F(DiffCubin, NoteEditAloneIsMetadataOnly) {
  std::string a = cubin("saxpy.ptx", {"-O3"});
  size_t at = section_offset(a, ".note.nv.tkinfo");
  std::string b = a;
  b[at + 40] = static_cast<char>(b[at + 40] ^ 1);
  Report r = compare(a, b);
  EXPECT_EQ(r.overall, Change::metadata) << to_text(r, false, "a", "b");
  EXPECT_EQ(summary_line(r), "metadata only (debug or note sections differ)");
}

TEST_F(DiffCubin, SwappedSassWordsAreReordered) {
  std::string a = cubin("tiled_matmul.ptx", {"-O3"});
  size_t text = section_offset(a, ".text.tiled_matmul");
  std::string b = a;
  // Swap instruction words 3 and 4 (distinct in any real kernel).
  ASSERT_NE(a.substr(text + 48, 16), a.substr(text + 64, 16));
  std::swap_ranges(b.begin() + static_cast<long>(text + 48),
                   b.begin() + static_cast<long>(text + 64),
                   b.begin() + static_cast<long>(text + 64));
  CompareOptions words;
  words.sass = find_sass_options("none", "--nvdisasm");
  Report r = compare(a, b, words);
  const Entry* e = find(r, "tiled_matmul");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::reordered);
  EXPECT_EQ(e->moved, 1u);
  EXPECT_TRUE(r.ordering_only);
  EXPECT_EQ(summary_line(r), "ordering differences only: SASS instruction order changed in 1 of 1 "
                             "kernel");
}

TEST_F(DiffCubin, ConstantBankEditIsAttributes) {
  std::string a = cubin("two_kernels.ptx", {"-O3"});
  size_t at = section_offset(a, ".nv.constant0.mix");
  std::string b = a;
  b[at + 3] = static_cast<char>(b[at + 3] ^ 0x5a);
  Report r = compare(a, b);
  const Entry* e = find(r, "mix");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->change, Change::attributes);
  EXPECT_TRUE(has(e->aspects, "constants"));
  EXPECT_EQ(find(r, "scale_add")->change, Change::identical);
  EXPECT_EQ(summary_line(r), "constant bank changed in 1 of 2 kernels");
}

TEST_F(DiffCubin, TruncatedCubinFallsBackOrFails) {
  std::string a = cubin("saxpy.ptx", {"-O3"});
  std::string b = a.substr(0, 200);
  Report r = compare(a, b); // detected as cubin, unreadable: compared as bytes, with a note
  EXPECT_EQ(r.format, Format::binary);
  EXPECT_FALSE(identical(r));
  ASSERT_FALSE(r.notes.empty());
  EXPECT_THROW(compare(a, b, Format::cubin), Error);
}

TEST(DiffCubinReader, NvInfoRecords) {
  // REGCOUNT (SVAL: symbol 5, value 40), MAXREG_COUNT (HVAL 255), then a truncated record.
  std::string d(
      "\x04\x2f\x08\x00\x05\x00\x00\x00\x28\x00\x00\x00\x03\x1b\xff\x00\x04\x17\x10\x00\x01", 21);
  auto attrs = detail::parse_nv_info(d);
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(detail::eiattr_name(attrs[0].code), "REGCOUNT");
  EXPECT_EQ(detail::read_u32(attrs[0].value, 4), 40u);
  EXPECT_EQ(attrs[1].format, 3);
  EXPECT_EQ(static_cast<unsigned char>(attrs[1].value[0]), 0xffu);
  EXPECT_EQ(detail::eiattr_name(0x99), "EIATTR_0x99");
}

} // namespace
} // namespace kdet::diff
