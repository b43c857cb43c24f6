// Unit tests for diff/reach: the target a compile's options name, the one-line summary of each
// rung, the reasons a reach is unknown (no target, no ptxas, not a PTX or cubin pair), the
// census line and its JSON. The real ptxas runs are tests/e2e/reach_real.sh's.
#include "kdet/diff/reach.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>

namespace kdet::diff {
namespace {

std::string arch(const std::vector<std::string>& options, std::string* why = nullptr) {
  Result<std::string> r = arch_from_options(options);
  if (why) *why = r.why();
  return r ? *r : "";
}

TEST(DiffReach, ArchFromOptions) {
  EXPECT_EQ(arch({"-arch=compute_80", "-opt=3"}), "sm_80");
  EXPECT_EQ(arch({"-arch", "sm_90a"}), "sm_90a");
  EXPECT_EQ(arch({"--gpu-architecture=compute_100a"}), "sm_100a");
  EXPECT_EQ(arch({"--gpu-name", "sm_120"}), "sm_120");
  EXPECT_EQ(arch({"-arch=lto_89"}), "sm_89");
  // -gencode: the code runs, not the virtual arch.
  EXPECT_EQ(arch({"-gencode", "arch=compute_80,code=sm_86"}), "sm_86");
  EXPECT_EQ(arch({"-gencode=arch=compute_90a,code=[sm_90a]"}), "sm_90a");
  // The same target twice is one target.
  EXPECT_EQ(arch({"-arch=compute_80", "-arch=sm_80"}), "sm_80");
  std::string why;
  EXPECT_EQ(arch({"-opt=3"}, &why), "");
  EXPECT_EQ(why, "no -arch in the options");
  EXPECT_EQ(arch({"-arch=compute_80", "-arch=sm_90"}, &why), "");
  EXPECT_EQ(why, "the options name sm_80 and sm_90");
  // Names that are no single target are not guessed at.
  EXPECT_EQ(arch({"-arch=native"}), "");
  EXPECT_EQ(arch({"-arch=all"}), "");
  EXPECT_EQ(arch({"-arch"}), "");
  // An option value is not taken for an option: -arch's value is consumed.
  EXPECT_EQ(arch({"-arch", "-arch=sm_80"}), "");
}

TEST(DiffReach, SmArch) {
  EXPECT_EQ(sm_arch("80"), "sm_80");
  EXPECT_EQ(sm_arch("90a"), "sm_90a");
  EXPECT_EQ(sm_arch("compute_100f"), "sm_100f");
  EXPECT_EQ(sm_arch("sm_9"), "");
  EXPECT_EQ(sm_arch("compute_x"), "");
  EXPECT_EQ(sm_arch(""), "");
}

std::string real_ptx(const char* name) {
  return read_file(std::string(KDET_SOURCE_DIR) + "/tests/data/nvvm_real/" + name);
}

TEST(DiffReach, UnknownReachSaysWhy) {
  std::string a = real_ptx("gen_1473.a.ptx"), b = real_ptx("gen_1473.b.ptx");
  ReachOptions o;
  o.arch_why = "no -arch in the options";
  o.ptxas.ptxas = "/nonexistent/ptxas"; // never run: the target is missing first
  VariantReach r = variant_reach(a, b, o);
  EXPECT_FALSE(r.known());
  EXPECT_FALSE(r.report);
  EXPECT_EQ(r.unknown, "no target (no -arch in the options)");
  EXPECT_EQ(r.summary, "reach unknown: no target (no -arch in the options)");

  o.arch = "sm_80";
  o.ptxas.ptxas.clear();
  r = variant_reach(a, b, o);
  EXPECT_EQ(r.summary, "reach unknown: no ptxas");
  nlohmann::json j = to_json(r);
  EXPECT_TRUE(j["reach"].is_null());
  EXPECT_TRUE(j["stops_before_gpu"].is_null());
  EXPECT_EQ(j["unknown"], "no ptxas");

  r = variant_reach(a, "plain text\n", o);
  EXPECT_EQ(r.summary, "reach unknown: ptx against text, not two PTX files or two cubins");
  EXPECT_TRUE(reach_artifact(a));
  EXPECT_FALSE(reach_artifact("plain text\n"));
}

// A one-kernel report on sm_80: registers and blocks per SM on each side.
ImpactReport one_kernel(Reach reach, uint32_t regs_a, uint32_t regs_b, uint32_t blocks_a,
                        uint32_t blocks_b, size_t changed) {
  ImpactReport r;
  r.arch = "sm_80";
  r.input_format = "ptx";
  r.reach = reach;
  KernelImpact k;
  k.name = "gen_1473";
  k.reach = reach == Reach::ptx ? Reach::identical : reach;
  k.a.registers = regs_a;
  k.b.registers = regs_b;
  if (regs_a != regs_b) k.changed = {"registers"};
  k.sass.words_a = k.sass.words_b = 2120;
  k.sass.changed = changed;
  k.sass.same = 2120 - changed;
  Occupancy oa, ob;
  oa.blocks_per_sm = blocks_a;
  ob.blocks_per_sm = blocks_b;
  k.occupancy_a = oa;
  k.occupancy_b = ob;
  r.kernels.push_back(k);
  return r;
}

TEST(DiffReach, SummaryOfEachRung) {
  EXPECT_EQ(reach_summary(one_kernel(Reach::ptx, 51, 51, 2, 2, 0)),
            "stops before the GPU (cubins identical): sm_80, 51 registers, 2 blocks/SM");
  EXPECT_EQ(reach_summary(one_kernel(Reach::sass, 48, 48, 5, 5, 3)),
            "SASS: 3 of 2120 instructions changed, same 48 registers, same occupancy (5 "
            "blocks/SM) on sm_80");
  EXPECT_EQ(reach_summary(one_kernel(Reach::resources, 48, 50, 5, 5, 40)),
            "SASS: 40 of 2120 instructions changed, registers 48 -> 50, same occupancy (5 "
            "blocks/SM) on sm_80");
  EXPECT_EQ(reach_summary(one_kernel(Reach::occupancy, 48, 56, 5, 4, 40)),
            "SASS: 40 of 2120 instructions changed, registers 48 -> 56, blocks/SM 5 -> 4 on sm_80");
  ImpactReport failed = one_kernel(Reach::sass, 48, 48, 5, 5, 3);
  failed.failed = true;
  failed.error_b = "ptxas exited 255: ptxas fatal";
  EXPECT_EQ(reach_summary(failed), "reach unknown: ptxas failed for sm_80 (B: ptxas exited 255: "
                                   "ptxas fatal)");
  // Two kernels: counts summed, the kernel that changed named.
  ImpactReport two = one_kernel(Reach::occupancy, 48, 56, 5, 4, 40);
  KernelImpact same = two.kernels.front();
  same.name = "other";
  same.reach = Reach::identical;
  same.b = same.a;
  same.changed.clear();
  same.occupancy_b = same.occupancy_a;
  same.sass.changed = 0;
  two.kernels.push_back(same);
  EXPECT_EQ(reach_summary(two), "SASS: 40 of 4240 instructions changed in 1 of 2 kernels, "
                                "registers 48 -> 56 (gen_1473), blocks/SM 5 -> 4 (gen_1473) on "
                                "sm_80");
  nlohmann::json j = to_json(VariantReach{two, "", reach_summary(two)});
  EXPECT_EQ(j["reach"], "occupancy");
  EXPECT_EQ(j["stops_before_gpu"], false);
  EXPECT_EQ(j["kernels"][0]["registers_b"], 56);
  EXPECT_EQ(j["kernels"][0]["blocks_per_sm_b"], 4);
  EXPECT_EQ(j["kernels"][1]["changed"], 0);
}

TEST(DiffReach, CensusLineAndFarthest) {
  VariantReach ptx{one_kernel(Reach::ptx, 51, 51, 2, 2, 0), "", ""};
  VariantReach sass{one_kernel(Reach::sass, 48, 48, 5, 5, 3), "", ""};
  VariantReach regs{one_kernel(Reach::occupancy, 48, 56, 5, 4, 40), "", ""};
  VariantReach none{std::nullopt, "no target (no -arch in the options)", ""};
  ReachCensus one;
  one.add(sass);
  EXPECT_EQ(one.line("variant"), "of 1 varying variant: 0 stop before the GPU, 1 change SASS, 0 "
                                 "change registers, 0 change occupancy");
  ReachCensus c;
  for (const auto* r : {&ptx, &sass, &regs, &none})
    c.add(*r);
  EXPECT_EQ(c.line("job"), "of 4 varying jobs: 1 stop before the GPU, 2 change SASS, 1 change "
                           "registers, 1 change occupancy, 1 reach unknown (no target: 1)");
  nlohmann::json j = c.to_json();
  EXPECT_EQ(j["varying"], 4);
  EXPECT_EQ(j["change_resources"], 1);
  EXPECT_EQ(j["unknown"], 1);

  EXPECT_EQ(farthest({&ptx, &regs, &sass}), &regs);
  EXPECT_EQ(farthest({&none, &ptx}), &ptx);
  EXPECT_EQ(farthest({&none}), &none);
  EXPECT_EQ(farthest({}), nullptr);
}

} // namespace
} // namespace kdet::diff
