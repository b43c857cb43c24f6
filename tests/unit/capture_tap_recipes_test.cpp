// Unit tests for capture/tap_recipes: which kept files a shipped recipe replays, and the
// options it reads for them (Triton's .json, the kept PTX), for the rows that cannot run here
// (Triton, CuTe DSL) as for llvmlite's.
#include "kdet/capture/tap_recipes.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/tempdir.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace kdet::capture {
namespace {

// A kept file of one kernel, written under dir/taps as keep_taps does.
TapFile kept(const std::string& dir, const std::string& framework, const std::string& rel,
             const std::string& group, const std::string& data) {
  TapFile t;
  t.framework = framework;
  t.rel = framework + "/" + rel;
  t.group = group;
  int rank = 0;
  t.cls = stage_class(t.rel, rank);
  t.rank = rank;
  t.hash = hash_bytes(data);
  t.label = rel.substr(rel.find('.') + 1);
  make_dirs(dir + "/taps/" + t.rel.substr(0, t.rel.find_last_of('/')));
  write_file_atomic(dir + "/taps/" + t.rel, data);
  return t;
}

const std::string k_ptx90 = "//\n.version 8.4\n.target sm_90a\n.address_size 64\n";

TEST(TapRecipes, TableRowsNameShippedRecipes) {
  for (const auto& r : tap_recipes()) {
    ASSERT_NE(recipe_source(r.recipe), nullptr) << r.recipe;
    // The function the row names is defined in the recipe kdet writes into the bundle.
    EXPECT_NE(std::string(recipe_source(r.recipe)).find(std::string("def ") + r.function + "("),
              std::string::npos)
        << r.recipe << ":" << r.function;
  }
  EXPECT_EQ(recipe_source("nope.py"), nullptr);
}

TEST(TapRecipes, WhichPairsReplay) {
  auto file = [](const char* fw, const char* rel, const char* group = "h/k") {
    TapFile t;
    t.framework = fw;
    t.rel = rel;
    t.group = group;
    return t;
  };
  struct Case {
    TapFile from, to;
    const char* recipe;   // nullptr: none
    const char* function; // of the row
  } cases[] = {
      {file("triton", "triton/h/k.llir"), file("triton", "triton/h/k.ptx"), "triton_stage.py",
       "llir_to_ptx"},
      {file("triton", "triton/h/k.ttgir"), file("triton", "triton/h/k.llir"), "triton_stage.py",
       "ttgir_to_llir"},
      {file("triton", "triton/h/k.ttir"), file("triton", "triton/h/k.ttgir"), nullptr, nullptr},
      {file("triton", "triton/h/k.ptx"), file("triton", "triton/h/k.cubin"), nullptr, nullptr},
      {file("cute-dsl", "cute-dsl/k.mlir"), file("cute-dsl", "cute-dsl/k.ptx"), "cute_dsl.py",
       "compile"},
      {file("artifacts", "artifacts/o/k.ll"), file("artifacts", "artifacts/o/k.ptx"),
       "llvmlite_ptx.py", "compile"},
      {file("artifacts", "artifacts/o/k.bc"), file("artifacts", "artifacts/o/k.ptx"),
       "llvmlite_ptx.py", "compile"},
      // XLA's LLVM is its own: llvmlite's would replay another compiler.
      {file("xla", "xla/m.ir-with-opt.ll"), file("xla", "xla/m.ptx"), nullptr, nullptr},
      // Another kernel's file, or another framework's, is no stage of this one.
      {file("triton", "triton/h/k.llir"), file("triton", "triton/h/j.ptx", "h/j"), nullptr,
       nullptr},
  };
  for (const auto& c : cases) {
    const TapRecipe* r = find_tap_recipe(c.from, c.to);
    if (!c.recipe) {
      EXPECT_EQ(r, nullptr) << c.from.rel << " -> " << c.to.rel;
      continue;
    }
    ASSERT_NE(r, nullptr) << c.from.rel << " -> " << c.to.rel;
    EXPECT_STREQ(r->recipe, c.recipe);
    EXPECT_STREQ(r->function, c.function);
  }
}

TEST(TapRecipes, TritonOptionsFromItsMetadata) {
  TempDir t("tap-recipes");
  std::vector<TapFile> taps = {
      kept(t.path(), "triton", "h/k.ttgir", "h/k", "module {}"),
      kept(t.path(), "triton", "h/k.llir", "h/k", "define void @k() { ret void }"),
      kept(t.path(), "triton", "h/k.ptx", "h/k", k_ptx90),
      kept(t.path(), "triton", "h/k.json", "h/k",
           R"({"target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "num_warps": 8,
               "num_ctas": 1, "num_stages": 3, "ptx_version": 83, "enable_fp_fusion": false})"),
  };
  std::vector<std::string> problems;
  auto rs = tap_replays(taps, t.path(), {}, problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  ASSERT_EQ(rs.size(), 2u);
  // In stage order: ttgir -> llir, then llir -> ptx.
  EXPECT_STREQ(rs[0].recipe->function, "ttgir_to_llir");
  EXPECT_EQ(rs[0].options,
            (std::vector<std::string>{"--arch=90", "--ptx-version=83", "--no-fp-fusion",
                                      "--num-warps=8", "--num-ctas=1", "--num-stages=3"}));
  EXPECT_STREQ(rs[1].recipe->function, "llir_to_ptx");
  EXPECT_EQ(rs[1].options,
            (std::vector<std::string>{"--arch=90", "--ptx-version=83", "--no-fp-fusion"}));
  EXPECT_EQ(rs[1].input, "define void @k() { ret void }");
  EXPECT_EQ(rs[1].output, k_ptx90);
}

TEST(TapRecipes, TritonWithoutMetadataReadsThePtx) {
  TempDir t("tap-recipes");
  std::vector<TapFile> taps = {
      kept(t.path(), "triton", "h/k.llir", "h/k", "; llir"),
      kept(t.path(), "triton", "h/k.ptx", "h/k", k_ptx90),
      // An older Triton's metadata: the capability as a string, no ptx_version.
      kept(t.path(), "triton", "h/k.json", "h/k", R"({"arch": "sm80"})"),
      kept(t.path(), "triton", "g/j.llir", "g/j", "; llir"),
      kept(t.path(), "triton", "g/j.ptx", "g/j", k_ptx90),
  };
  std::vector<std::string> problems;
  auto rs = tap_replays(taps, t.path(), {}, problems);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].from->group, "g/j");
  EXPECT_EQ(rs[0].options, (std::vector<std::string>{"--arch=90", "--ptx-version=84"}));
  EXPECT_EQ(rs[1].options, (std::vector<std::string>{"--arch=80", "--ptx-version=84"}));
}

TEST(TapRecipes, OptionsThatCannotBeKnownMakeNoBundle) {
  TempDir t("tap-recipes");
  std::vector<TapFile> taps = {
      kept(t.path(), "triton", "h/k.ttgir", "h/k", "module {}"),
      kept(t.path(), "triton", "h/k.llir", "h/k", "; llir"),
      kept(t.path(), "cute-dsl", "k.mlir", "k", "module {}"),
      kept(t.path(), "cute-dsl", "k.ptx", "k", "// no target\n"),
  };
  std::vector<std::string> problems;
  EXPECT_TRUE(tap_replays(taps, t.path(), {}, problems).empty());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("not replayed: the chip CuTe DSL"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("capability Triton compiled for"), std::string::npos) << problems[1];
}

TEST(TapRecipes, CuteAndLlvmliteOptions) {
  TempDir t("tap-recipes");
  std::vector<TapFile> taps = {
      kept(t.path(), "cute-dsl", "k.mlir", "k", "module {}"),
      kept(t.path(), "cute-dsl", "k.ptx", "k", k_ptx90),
      kept(t.path(), "artifacts", "o/k.src", "o/k", "kernel k"),
      kept(t.path(), "artifacts", "o/k.ll", "o/k", "; ll"),
      kept(t.path(), "artifacts", "o/k.ptx", "o/k", ".version 6.0\n.target sm_70\n"),
  };
  std::vector<std::string> problems;
  auto rs = tap_replays(taps, t.path(), {"CUTE_DSL_ARCH=sm_100a"}, problems);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].from->framework, "artifacts"); // the source has no recipe: ll -> ptx only
  EXPECT_EQ(rs[0].options, (std::vector<std::string>{"-mcpu=sm_70", "-mattr=+ptx60", "-O3"}));
  // The chip the kept PTX names before CUTE_DSL_ARCH.
  EXPECT_EQ(rs[1].options, (std::vector<std::string>{
                               "--pipeline=builtin.module(cute-to-nvvm{cubin-chip=sm_90a})"}));
}

} // namespace
} // namespace kdet::capture
