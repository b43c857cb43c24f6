// Unit tests for capture/inprocess and capture/taps: the files a process mapped, read back
// from RAW/maps and classified by their signatures (a compiler inside, the seam kdet sees
// it through); stage files ordered by class; numba's kernels named readably.
#include "kdet/capture/inprocess.hpp"
#include "kdet/capture/taps.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/names.hpp"
#include "kdet/util/tempdir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kdet::capture {
namespace {

TEST(Inprocess, NamesCompilersInsideMappedFiles) {
  TempDir t("inprocess");
  std::string raw = t.path();
  ASSERT_EQ(::mkdir((raw + "/maps").c_str(), 0755), 0);
  // A file with LLVM's NVPTX registration string and no exported compile API: blind. One
  // with none of the signatures: no compiler. The preload itself: never reported.
  write_file_atomic(raw + "/libdsl.so", std::string("junk\0NVIDIA PTX 64-bit\0more", 27));
  write_file_atomic(raw + "/libplain.so", "nothing to see");
  write_file_atomic(raw + "/libkdet_capture.so", std::string("NVIDIA PTX 64-bit"));
  write_file_atomic(raw + "/maps/42-0.maps",
                    "kdet-maps 1 42\n08:01 11 " + raw + "/libdsl.so\n08:01 12 " + raw +
                        "/libplain.so\n08:01 13 " + raw + "/libkdet_capture.so\n");
  write_file_atomic(raw + "/maps/43-0.maps", "kdet-maps 1 43\n08:01 11 " + raw + "/libdsl.so\n");
  std::vector<std::string> problems;
  MappedFiles maps = read_maps(raw, problems);
  ASSERT_EQ(maps.size(), 2u);
  auto inside = compilers_inside(maps, {});
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0].seam, Seam::blind);
  EXPECT_EQ(inside[0].words(), "libdsl.so has an NVPTX back end");
  EXPECT_EQ(inside[0].pids, (std::vector<long>{42, 43}));
  // A compile of process 43 (or a child of it) took what the DSL may have made.
  Compile c;
  c.pid = 50;
  c.ancestors = std::vector<long>{43};
  auto makers = unseen_makers(inside, c);
  ASSERT_EQ(makers.size(), 1u);
  EXPECT_EQ(makers_words(makers), "libdsl.so has an NVPTX back end");
  // A file a captured command ran is that command's, not blind.
  Compile run;
  run.call_mut().kind = "exec";
  run.call_mut().lib = raw + "/libdsl.so";
  EXPECT_EQ(compilers_inside(maps, {run})[0].seam, Seam::command);
}

TEST(Taps, StageClassesInOrder) {
  int a = 0, b = 0, c = 0, d = 0, e = 0;
  EXPECT_EQ(stage_class("k.source", a), StageClass::source);
  EXPECT_EQ(stage_class("k.ttir", b), StageClass::mlir);
  EXPECT_EQ(stage_class("module_0001.jit_f.ir-with-opt.ll", c), StageClass::llvm);
  EXPECT_EQ(stage_class("k.ptx", d), StageClass::ptx);
  EXPECT_EQ(stage_class("k.cubin", e), StageClass::cubin);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_LT(d, e);
  int r = 0;
  EXPECT_EQ(stage_class("k.json", r), StageClass::none);
}

TEST(Names, NumbaKernelsByTheirOwnName) {
  const std::string saxpy =
      "_ZN6cudapy8__main__5saxpyB2v1B96cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKiLTj0g"
      "IGIFp_2b2oLQFEYYkHSQB1OQAk0Bynm21OizQ1K0UoIGvDpQE8oxrNQE_3dAA_3d_3dE5Arr"
      "ayIfLi1E1C7mutable7alignedE";
  EXPECT_EQ(display_name(saxpy), "saxpy..." + hash_bytes(saxpy).substr(0, 8));
  EXPECT_EQ(display_name("_ZN6cudapy5mymod3sub6kernelB2v1E").rfind("kernel...", 0), 0u);
  // Two specializations of one function stay apart; --full-names (width 0) shows the name whole.
  EXPECT_NE(display_name(saxpy), display_name("_ZN6cudapy8__main__5saxpyB2v1E5ArrayIdLi1E"));
  EXPECT_EQ(display_name(saxpy, 0), saxpy);
  EXPECT_EQ(display_name("_Z3fooPf"), "_Z3fooPf"); // not numba's: as before
}

} // namespace
} // namespace kdet::capture
