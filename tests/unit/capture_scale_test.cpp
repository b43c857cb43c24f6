// Unit tests for capture at scale: record logs larger than a read block (lines cut across
// blocks, records of two kinds interleaved, a cut-short end), and capture.json handed out in
// pieces, the same text as made whole.
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <set>
#include <sys/stat.h>

namespace kdet::capture {
namespace {

// A hash made of `i`: 32 hex digits.
std::string hash_of(size_t i) {
  return fmt::format("{:032x}", i);
}

// `n` compiles, a load after every tenth, and their result lines after all headers (as two
// threads would interleave them): about 200 bytes a compile, several 64 KiB blocks.
std::string big_log(size_t n) {
  std::string text;
  for (size_t i = 1; i <= n; ++i) {
    text += fmt::format("kdet-capture-record 1 {}\nkind nvvm\npid 7\ntime_ns {}\nmodule {} {} 0 "
                        "-\noption x2d6f70743d33\nbegin\n",
                        i, i, hash_of(i % 50), 10 + i);
    if (i % 10 == 0)
      text += fmt::format("kdet-capture-record 1 {}\nkind load\npid 7\ntime_ns {}\nimage {} 40 "
                          "-\nbegin\n",
                          n + i, i, hash_of(1000 + i));
  }
  for (size_t i = 1; i <= n; ++i)
    text += fmt::format("{} result 0\n{} output nvvm {} 9\n", i, i, hash_of(5000 + i % 50));
  for (size_t i = 10; i <= n; i += 10)
    text += fmt::format("{} result 0\n", n + i);
  return text;
}

TEST(CaptureScale, ReadsALogOfManyBlocksWholeAndKeepsOnlyTheKindAskedFor) {
  TempDir t("capture-scale");
  ASSERT_EQ(::mkdir((t.path() + "/records").c_str(), 0755), 0);
  const size_t n = 3000;
  std::string text = big_log(n);
  ASSERT_GT(text.size(), size_t{4} << 16); // lines cut across several read blocks
  // A damaged line of a load (left out of the compiles, still checked), and a cut-short end.
  write_file_atomic(t.path() + "/records/7-a.log",
                    text + fmt::format("{} result zz\n", n + 10) + "1 resu");
  std::vector<std::string> problems;
  std::vector<Compile> cs = read_records(t.path(), problems);
  ASSERT_EQ(cs.size(), n);
  ASSERT_EQ(problems.size(), 2u); // no other line of a load is unreadable
  EXPECT_NE(problems[0].find(fmt::format("7-a.log: unreadable line '{} result zz'", n + 10)),
            std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("7-a.log: cut short"), std::string::npos) << problems[1];
  for (size_t i = 0; i < n; ++i) {
    const Compile& c = cs[i];
    ASSERT_EQ(c.kind(), "nvvm");
    ASSERT_EQ(c.record, fmt::format("7-a.log#{}", i + 1));
    ASSERT_EQ(c.inputs().size(), 1u);
    EXPECT_EQ(c.inputs()[0].hash, hash_of((i + 1) % 50));
    EXPECT_EQ(c.inputs()[0].size, 11 + i);
    EXPECT_EQ(c.options(), std::vector<std::string>{"-opt=3"});
    EXPECT_EQ(c.result, 0);
    ASSERT_EQ(c.outputs().size(), 1u);
    EXPECT_EQ(c.outputs()[0].hash, hash_of(5000 + (i + 1) % 50));
  }
  std::vector<Bundle> bundles = group_bundles(cs);
  EXPECT_EQ(bundles.size(), 50u); // one a module (its size is not its identity)
  std::vector<Compile> loads = read_load_records(t.path());
  ASSERT_EQ(loads.size(), n / 10);
  for (size_t i = 0; i < loads.size(); ++i) {
    EXPECT_EQ(loads[i].kind(), "load");
    EXPECT_EQ(loads[i].inputs().at(0).hash, hash_of(1000 + 10 * (i + 1)));
    EXPECT_EQ(loads[i].result, 0);
  }
}

TEST(CaptureScale, CompilesAlikeShareOneCallAndOneListOfOutputs) {
  // 300 compiles of 3 modules, each module's output the same every time: three calls and three
  // lists of outputs held, not 300 (what a compile holds of its own is a few scalars).
  TempDir t("capture-scale");
  ASSERT_EQ(::mkdir((t.path() + "/records").c_str(), 0755), 0);
  std::string text;
  for (size_t i = 1; i <= 300; ++i)
    text += fmt::format("kdet-capture-record 1 {}\nkind nvvm\npid 7\ntime_ns {}\nlib_hash {}\n"
                        "module {} 10 0 x612e6c6c\noption x2d6f70743d33\nbegin\n{} result 0\n"
                        "{} output nvvm {} 9\n",
                        i, i, hash_of(99), hash_of(i % 3), i, i, hash_of(5000 + i % 3));
  write_file_atomic(t.path() + "/records/7-a.log", text);
  std::vector<std::string> problems;
  std::vector<Compile> cs = read_records(t.path(), problems);
  ASSERT_EQ(cs.size(), 300u);
  EXPECT_TRUE(problems.empty());
  std::set<const void*> calls, outputs;
  for (const auto& c : cs) {
    calls.insert(c.call_.get());
    outputs.insert(c.outputs_.get());
  }
  EXPECT_EQ(calls.size(), 3u);
  EXPECT_EQ(outputs.size(), 3u);
  EXPECT_EQ(cs[0].call_, cs[3].call_);
  // Grouped alike and named once: every compile of a call names its bundle.
  std::vector<Bundle> bundles = group_bundles(cs);
  ASSERT_EQ(bundles.size(), 3u);
  for (size_t i = 0; i < cs.size(); ++i) {
    EXPECT_EQ(cs[i].bundle(), bundles[i % 3].id);
    EXPECT_EQ(cs[i].bundle(), bundle_id(cs[i]));
  }
  EXPECT_EQ(bundles[0].compiles, 100u);
  // Changing one compile's call or outputs copies it first: the others keep theirs.
  Compile& one = cs[3];
  one.call_mut().options.push_back("-g");
  one.outputs_mut()[0].hash = hash_of(1);
  EXPECT_EQ(cs[0].options(), std::vector<std::string>{"-opt=3"});
  EXPECT_EQ(cs[0].outputs()[0].hash, hash_of(5001));
  EXPECT_NE(bundle_id(one), cs[0].bundle());
}

// Heap bytes in use (mapped blocks included); 0 where malloc is not glibc's (a sanitizer's).
size_t heap_held() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

TEST(CaptureScale, ACompileThatRepeatsAnotherHoldsAFewHundredBytes) {
  // 10,000 compiles of 500 modules through one library, as a pipeline's records give them (a
  // long library path, its hash, an option): what they hold once read is their own few
  // scalars and a share of 500 calls, not a copy of each call (about 950 bytes a compile).
  TempDir t("capture-scale");
  ASSERT_EQ(::mkdir((t.path() + "/records").c_str(), 0755), 0);
  const size_t n = 10000;
  std::string text;
  for (size_t i = 1; i <= n; ++i)
    text += fmt::format("kdet-capture-record 1 {}\nkind nvvm\npid 7\nppid 6\nthread 7\n"
                        "time_ns {}\nlib x{}\nlib_hash {}\nlib_size 59344\nmodule {} 31 0 "
                        "x6d2e6c6c\noption x2d617263683d636f6d707574655f393061\nbegin\n{} "
                        "result 0\n{} output nvvm {} 47\n",
                        i, 1000 + i, std::string(116, '6'), hash_of(99), hash_of(i % 500), i, i,
                        hash_of(5000 + i % 500));
  write_file_atomic(t.path() + "/records/7-18ef0a48114a7082.log", text);
  text = std::string();
  std::vector<std::string> problems;
  size_t before = heap_held();
  std::vector<Compile> cs = read_records(t.path(), problems);
  size_t after = heap_held();
  ASSERT_EQ(cs.size(), n);
  EXPECT_TRUE(problems.empty());
  if (before == 0 && after == 0) GTEST_SKIP() << "mallinfo2 counts nothing under this allocator";
  double per = static_cast<double>(after - before) / static_cast<double>(n);
  EXPECT_LT(per, 400.0) << "heap bytes a compile";
}

TEST(CaptureScale, CaptureJsonInPiecesIsTheWholeText) {
  CaptureResult r;
  r.command = {"build"};
  r.pipeline_status = "exited 0";
  r.out_dir = "cap";
  for (size_t i = 0; i < 2000; ++i) {
    Compile c;
    c.record = fmt::format("1-a.log#{}", i);
    c.call_mut().kind = "nvvm";
    c.call_mut().lib = "/lib/libnvvm.so";
    Input in;
    in.tag = "module";
    in.hash = hash_of(i % 100);
    in.size = 10;
    c.call_mut().inputs.push_back(in);
    Output out;
    out.kind = "nvvm";
    out.hash = hash_of(9000 + i % 100);
    out.size = 9;
    c.outputs_mut().push_back(out);
    c.result = 0;
    c.begun = true;
    r.compiles.push_back(std::move(c));
  }
  r.bundles = group_bundles(r.compiles);
  ASSERT_EQ(r.bundles.size(), 100u);
  std::string pieces;
  size_t count = 0, largest = 0;
  ASSERT_TRUE(write_capture_json(r, [&](std::string_view s) {
    pieces += s;
    ++count;
    largest = std::max(largest, s.size());
    return true;
  }));
  EXPECT_GT(count, 2u); // never the document at once
  EXPECT_LT(largest, size_t{80} << 10);
  EXPECT_EQ(pieces, capture_json_text(r) + "\n");
  nlohmann::json j = nlohmann::json::parse(pieces);
  EXPECT_EQ(j["compiles"].size(), 2000u);
  EXPECT_EQ(j["bundles"].size(), 100u);
  EXPECT_EQ(j, capture_json(r));
  // A writer that fails stops the writing.
  size_t calls = 0;
  EXPECT_FALSE(write_capture_json(r, [&](std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1u);
}

} // namespace
} // namespace kdet::capture
