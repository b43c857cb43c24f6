// Unit tests for diff/ impact: the occupancy calculator against hand-computed cases, the
// SASS word alignment, ptxas -v parsing, and (where ptxas is found) the resources read from
// real cubins against what ptxas -v says of them, for every architecture in the table.
#include "kdet/diff/diff.hpp"
#include "kdet/diff/impact.hpp"
#include "kdet/diff/occupancy.hpp"
#include "kdet/diff/ptxas.hpp"
#include "kdet/diff/resources.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>

namespace kdet::diff {
namespace {

Occupancy occ(unsigned sm, uint32_t regs, uint32_t block, uint64_t shared = 0,
              uint32_t barriers = 0, int carveout = -1) {
  const ArchLimits* a = arch_limits(sm);
  EXPECT_NE(a, nullptr) << sm;
  OccupancyInput in;
  in.registers = regs;
  in.block_size = block;
  in.static_shared = shared;
  in.barriers = barriers;
  in.carveout = carveout;
  return occupancy(*a, in);
}

// Each case worked by hand from cuda_occupancy.h's rules (comments show the arithmetic).
TEST(DiffOccupancy, HandComputedCases) {
  // sm_80, 51 registers, 512 threads: 51*32 = 1632 -> 1792 a warp; 16384/1792 = 9 warps a
  // sub-partition, 36 an SM; 16 warps a block -> 2 blocks (warps would allow 4).
  Occupancy o = occ(80, 51, 512);
  EXPECT_EQ(o.blocks_per_sm, 2u);
  EXPECT_EQ(o.warps_per_sm, 32u);
  EXPECT_EQ(o.max_warps_per_sm, 64u);
  EXPECT_EQ(o.by_registers, 2u);
  EXPECT_EQ(o.by_warps, 4u);
  EXPECT_EQ(o.limited_by, std::vector<std::string>{"registers"});
  // sm_80, 48 registers, 256 threads: 1536 a warp; 10 warps a sub-partition -> 40 / 8 = 5.
  EXPECT_EQ(occ(80, 48, 256).blocks_per_sm, 5u);
  // sm_86, 32 registers, 256 threads: registers allow 64/8 = 8, warps 48/8 = 6.
  o = occ(86, 32, 256);
  EXPECT_EQ(o.blocks_per_sm, 6u);
  EXPECT_EQ(o.warps_per_sm, 48u);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limited_by, std::vector<std::string>{"warps"});
  // sm_80, 128 registers, 128 threads: 4096 a warp, 4 warps a sub-partition, 16 / 4 = 4.
  EXPECT_EQ(occ(80, 128, 128).blocks_per_sm, 4u);
  // sm_80, 40000 bytes of shared memory: + 1024 reserved = 41024 -> 41088 (128-byte unit);
  // 164 KiB / 41088 = 4.
  o = occ(80, 16, 64, 40000);
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limited_by, std::vector<std::string>{"shared memory"});
  // A carveout of 0 % is raised to the smallest configuration holding one block (8 KiB):
  // 8192 / 1024 (the reserve alone) = 8.
  o = occ(80, 16, 32, 0, 0, 0);
  EXPECT_EQ(o.blocks_per_sm, 8u);
  EXPECT_EQ(o.shared_per_sm, 8192u);
  // sm_90, 16 barriers a block: 32 block slots x 2 barriers / 16 = 4 blocks.
  o = occ(90, 16, 32, 0, 16);
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limited_by, std::vector<std::string>{"barriers"});
  // Before sm_90 barriers set no limit: sm_80 with 16 barriers is held by the 32 blocks.
  EXPECT_EQ(occ(80, 16, 32, 0, 16).blocks_per_sm, 32u);
  // sm_120: 24 blocks (cuda_occupancy.h), one barrier each takes every slot's one barrier.
  o = occ(120, 16, 32, 0, 1);
  EXPECT_EQ(o.blocks_per_sm, 24u);
  EXPECT_EQ(o.limited_by, (std::vector<std::string>{"blocks", "barriers"}));
  // sm_75: no reserve, 1024 threads a block of 32 registers: warps allow 32/32 = 1.
  EXPECT_EQ(occ(75, 32, 1024).blocks_per_sm, 1u);
  // Past the limits: 1025 threads, 257 registers, 200 KiB of shared memory on sm_86.
  EXPECT_EQ(occ(80, 32, 1025).blocks_per_sm, 0u);
  EXPECT_EQ(occ(80, 257, 32).blocks_per_sm, 0u);
  EXPECT_EQ(occ(86, 32, 32, 200 * 1024).blocks_per_sm, 0u);
  // A 64 KiB register file holds one 1024-thread block of 64 registers, not of 72.
  EXPECT_EQ(occ(80, 64, 1024).blocks_per_sm, 1u);
  EXPECT_EQ(occ(80, 72, 1024).blocks_per_sm, 0u);
}

TEST(DiffOccupancy, TableHasTheRequiredArchitectures) {
  for (unsigned sm : {80u, 86u, 89u, 90u, 100u, 120u})
    EXPECT_NE(arch_limits(sm), nullptr) << sm;
  EXPECT_EQ(arch_limits(88), nullptr); // not every value is documented: no row
  EXPECT_EQ(parse_sm("sm_90a"), 90u);
  EXPECT_EQ(parse_sm("compute_100f"), 100u);
  EXPECT_EQ(parse_sm("80"), 80u);
  EXPECT_FALSE(parse_sm("sm_x0"));
  EXPECT_FALSE(parse_sm("sm_8"));
}

std::string words(std::initializer_list<char> ids) {
  std::string out;
  for (char c : ids)
    out += std::string(16, c);
  return out;
}

TEST(DiffImpact, SassWordCounts) {
  SassCounts c = count_sass(words({'a', 'b', 'c', 'd'}), words({'a', 'c', 'b', 'd'}));
  EXPECT_EQ(c.same, 3u);
  EXPECT_EQ(c.moved, 1u);
  EXPECT_EQ(c.changed, 0u);
  c = count_sass(words({'a', 'b', 'c', 'd'}), words({'a', 'x', 'c', 'd', 'e', 'f'}));
  EXPECT_EQ(c.same, 3u);
  EXPECT_EQ(c.changed, 1u);
  EXPECT_EQ(c.added, 2u);
  EXPECT_EQ(c.removed, 0u);
  c = count_sass(words({'a', 'b', 'c'}), words({'c'}));
  EXPECT_EQ(c.removed, 2u);
  EXPECT_EQ(c.words_a, 3u);
  EXPECT_EQ(c.words_b, 1u);
}

TEST(DiffImpact, ParsesPtxasVerbose) {
  auto f = parse_ptxas_verbose(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Function properties for k\n"
      "    232 bytes stack frame, 224 bytes spill stores, 264 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 2 barriers, 4096 bytes smem, 364 bytes cmem[0], "
      "8 bytes cmem[2]\n");
  ASSERT_EQ(f.count("k"), 1u);
  EXPECT_EQ(f["k"].registers, 24u);
  EXPECT_EQ(f["k"].barriers, 2u);
  EXPECT_EQ(f["k"].stack_frame, 232u);
  EXPECT_EQ(f["k"].spill_stores, 224u);
  EXPECT_EQ(f["k"].spill_loads, 264u);
  EXPECT_EQ(f["k"].shared, 4096u);
  EXPECT_EQ(f["k"].constant[0], 364u);
  EXPECT_EQ(f["k"].constant[2], 8u);
  EXPECT_EQ(ptx_target(".version 9.0\n.target sm_80, debug\n"), "sm_80");
}

class DiffImpactReal : public ::testing::Test {
protected:
  void SetUp() override {
    m_ptxas = find_ptxas("", "--ptxas");
    if (m_ptxas.ptxas.empty()) GTEST_SKIP() << m_ptxas.why_not;
  }
  static std::string data(const std::string& name) {
    return read_file(std::string(KDET_SOURCE_DIR) + "/tests/data/" + name);
  }
  // The `.param`s of `.entry kernel(...)` in PTX text.
  static uint32_t ptx_params(const std::string& ptx, const std::string& kernel) {
    size_t at = ptx.find(".entry " + kernel + "(");
    if (at == std::string::npos) return 0;
    size_t end = ptx.find(')', at);
    uint32_t n = 0;
    for (size_t p = ptx.find(".param", at); p < end; p = ptx.find(".param", p + 1))
      ++n;
    return n;
  }
  PtxasOptions m_ptxas;
};

// What kdet reads from the cubin is what ptxas -v says, kernel by kernel, on every
// architecture in the occupancy table.
TEST_F(DiffImpactReal, ResourcesMatchPtxasVerbose) {
  for (const char* file : {"nvvm_real/gen_1277.a.ptx", "nvvm_real/gen_1473.a.ptx",
                           "impact/bounds.ptx", "gpu/gen_0001.a.ptx"}) {
    std::string ptx = data(file);
    for (unsigned sm : known_archs()) {
      SCOPED_TRACE(std::string(file) + " " + sm_name(sm));
      // PTX for sm_80 cannot go lower: the small kernels are assembled for sm_75 as such.
      if (sm < 80 && std::string(file) != "impact/bounds.ptx") continue;
      if (sm < 80) ptx.replace(ptx.find(".target sm_80"), 13, ".target " + sm_name(sm));
      Assembly a = assemble(m_ptxas, ptx, sm_name(sm));
      ASSERT_TRUE(a.ok) << a.error;
      Result<CubinResources> read = read_resources(a.cubin);
      ASSERT_TRUE(read) << read.why();
      const CubinResources& r = *read;
      EXPECT_EQ(r.sm, sm);
      ASSERT_EQ(r.kernels.size(), a.functions.size());
      for (const auto& k : r.kernels) {
        SCOPED_TRACE(k.name);
        ASSERT_EQ(a.functions.count(k.name), 1u);
        const PtxasFunction& v = a.functions.at(k.name);
        EXPECT_EQ(k.registers, v.registers);
        EXPECT_EQ(k.barriers, v.barriers.value_or(0));
        EXPECT_EQ(k.stack_frame.value_or(0), v.stack_frame.value_or(0));
        EXPECT_EQ(k.shared, v.shared.value_or(0));
        for (const auto& [bank, size] : v.constant)
          EXPECT_EQ(k.constant.count(bank) ? k.constant.at(bank) : 0, size) << "cmem " << bank;
        // The parameter count --run checks a recipe against (gpu::RunOptions::params_a).
        EXPECT_EQ(k.params, ptx_params(ptx, k.name));
        EXPECT_EQ(kernel_params(a.cubin, k.name), ptx_params(ptx, k.name));
      }
      EXPECT_EQ(kernel_params(a.cubin, "no_such_kernel"), std::nullopt);
      EXPECT_EQ(kernel_params("not a cubin", r.kernels.front().name), std::nullopt);
    }
  }
}

TEST_F(DiffImpactReal, BoundsBarriersAndSpills) {
  ImpactOptions o;
  o.ptxas = m_ptxas;
  o.arch = "sm_90";
  std::string ptx = data("impact/bounds.ptx");
  ImpactReport r = impact(ptx, ptx, o);
  ASSERT_FALSE(r.failed);
  EXPECT_EQ(r.reach, Reach::identical);
  std::map<std::string, const KernelImpact*> k;
  for (const auto& x : r.kernels)
    k[x.name] = &x;
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k["named_barriers"]->a.barriers, 6u);
  EXPECT_EQ(k["named_barriers"]->block_from, "default");
  EXPECT_EQ(k["named_barriers"]->block_size, k_default_block);
  EXPECT_EQ(k["bounded"]->block_from, "reqntid");
  EXPECT_EQ(k["bounded"]->block_size, 256u);
  EXPECT_EQ(k["bounded"]->a.shared, 4096u);
  EXPECT_EQ(k["bounded"]->a.shared_reserved, 1024u);
  EXPECT_GT(k["spills"]->a.spill_stores.value_or(0), 0u);
  EXPECT_GT(k["spills"]->a.stack_frame.value_or(0), 0u);
  // Given as cubins, spills are unknown rather than made up.
  Assembly a = assemble(m_ptxas, ptx, "sm_90");
  ASSERT_TRUE(a.ok);
  ImpactReport c = impact(a.cubin, a.cubin, ImpactOptions{});
  for (const auto& x : c.kernels)
    EXPECT_FALSE(x.a.spill_stores.has_value()) << x.name;
}

// The two real pairs of libNVVM 13.0 variants (tests/data/nvvm_real/README.md).
TEST_F(DiffImpactReal, RealVariantPairs) {
  ImpactOptions o;
  o.ptxas = m_ptxas;
  ImpactReport r1 = impact(data("nvvm_real/gen_1277.a.ptx"), data("nvvm_real/gen_1277.b.ptx"), o);
  ASSERT_FALSE(r1.failed);
  EXPECT_EQ(r1.arch, "sm_80"); // from the PTX's .target
  EXPECT_EQ(r1.reach, Reach::ptx);
  EXPECT_FALSE(reaches_gpu(r1.reach));
  ASSERT_EQ(r1.kernels.size(), 1u);
  EXPECT_EQ(r1.kernels[0].a.registers, 51u);
  ASSERT_TRUE(r1.kernels[0].occupancy_a);
  EXPECT_EQ(r1.kernels[0].occupancy_a->blocks_per_sm, 2u); // .maxntid 512: see above

  ImpactReport r2 = impact(data("nvvm_real/gen_1473.a.ptx"), data("nvvm_real/gen_1473.b.ptx"), o);
  ASSERT_FALSE(r2.failed);
  EXPECT_EQ(r2.reach, Reach::sass);
  ASSERT_EQ(r2.kernels.size(), 1u);
  const KernelImpact& k = r2.kernels[0];
  EXPECT_EQ(k.a.registers, 48u);
  EXPECT_EQ(k.b.registers, 48u);
  EXPECT_EQ(k.sass.words_a, k.sass.words_b);
  EXPECT_GT(k.sass.changed + k.sass.moved, 0u);
  EXPECT_EQ(k.sass.same + k.sass.changed + k.sass.moved, k.sass.words_a);
  ASSERT_TRUE(k.occupancy_a && k.occupancy_b);
  EXPECT_EQ(k.occupancy_a->blocks_per_sm, 5u);
  EXPECT_EQ(k.occupancy_b->blocks_per_sm, 5u);
  EXPECT_NE(reach_line(r2).find("SASS changed in 1 of 1 kernel"), std::string::npos);
}

// Two cubins with no kernel in common: every kernel is in one cubin only, and the reach line
// says so instead of calling the resources the same.
TEST_F(DiffImpactReal, KernelsInOneCubinOnlyAreNotCalledTheSame) {
  ImpactOptions o;
  o.ptxas = m_ptxas;
  ImpactReport r = impact(data("nvvm_real/gen_1277.a.ptx"), data("nvvm_real/gen_1473.a.ptx"), o);
  ASSERT_FALSE(r.failed);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const auto& k : r.kernels)
    EXPECT_FALSE(k.only_in.empty()) << k.name;
  const std::string line = reach_line(r);
  EXPECT_NE(line.find("2 kernels in one cubin only"), std::string::npos) << line;
  EXPECT_EQ(line.find("same resources"), std::string::npos) << line;
}

TEST_F(DiffImpactReal, PtxasFailureIsData) {
  ImpactOptions o;
  o.ptxas = m_ptxas;
  o.arch = "sm_80";
  std::string bad =
      ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus; }\n";
  ImpactReport r = impact(bad, data("impact/bounds.ptx"), o);
  EXPECT_TRUE(r.failed);
  EXPECT_FALSE(r.error_a.empty());
  EXPECT_TRUE(r.error_b.empty());
  // A trailing NUL, as libNVVM hands PTX over, is not part of the PTX: the same text.
  std::string ptx = data("impact/bounds.ptx");
  ImpactReport n = impact(ptx + std::string(1, '\0'), ptx, o);
  ASSERT_FALSE(n.failed) << n.error_a;
  EXPECT_EQ(n.reach, Reach::identical);
}

} // namespace
} // namespace kdet::diff

// The documents kdet diff and kdet impact give per pair: the renderer adds the labels, B's runs
// and the nested sections, so no caller patches a rendered document.
TEST(DiffImpact, PairDocumentsCarryTheLabelsAndNestedSections) {
  kdet::diff::ImpactReport ir;
  ir.arch = "sm_80";
  nlohmann::json run = {{"differ", false}};
  nlohmann::json j = kdet::diff::to_json(ir, "a.cubin", "b.cubin", 3, &run);
  EXPECT_EQ(j["a"], "a.cubin");
  EXPECT_EQ(j["b"], "b.cubin");
  EXPECT_EQ(j["runs_b"], 3u);
  EXPECT_EQ(j["run"], run);
  EXPECT_EQ(j["arch"], kdet::diff::to_json(ir)["arch"]);
  nlohmann::json plain = kdet::diff::to_json(ir, "x", "y", 0, nullptr);
  EXPECT_FALSE(plain.contains("runs_b")) << "files compared: no runs";
  EXPECT_FALSE(plain.contains("run"));

  kdet::diff::Report r = kdet::diff::compare("same\n", "other\n");
  nlohmann::json d = kdet::diff::to_json(r, "p", "q", &ir);
  EXPECT_EQ(d["a"], "p");
  EXPECT_EQ(d["b"], "q");
  EXPECT_EQ(d["schema"], "kdet.diff/1");
  EXPECT_EQ(d["impact"], kdet::diff::to_json(ir));
  EXPECT_FALSE(kdet::diff::to_json(r, "p", "q", nullptr).contains("impact"));
}
