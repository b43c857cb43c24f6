// Unit tests for command compiles in capture/ (exec_records): reading a kind-exec
// record, what makes two command compiles one bundle (paths and TMPDIR do not;
// the program, the input bytes, the options and the environment do), and the
// names --exec accepts.
#include "kdet/capture/exec_records.hpp"
#include "kdet/capture/output.hpp"
#include "kdet/capture/records.hpp"

#include <gtest/gtest.h>

namespace kdet::capture {
namespace {

const std::string k_h1 = "0123456789abcdef0123456789abcdef";
const std::string k_h2 = "fedcba9876543210fedcba9876543210";
const std::string k_prog = "00000000000000000000000000000003";

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out = "x";
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

// One ptxas compile as kdet-exec-shim writes it.
std::string exec_log(const std::string& input_path, const std::string& input_hash,
                     const std::string& out_path, const std::string& env) {
  return "kdet-capture-record 1 1\nkind exec\npid 40\nppid 30\nthread 40\ntime_ns 5\nlib " +
         hex("/opt/cuda/bin/ptxas") + "\nlib_hash " + k_prog + "\nlib_size 9\nargv0 " +
         hex("ptxas") + "\narg " + hex("-arch=sm_90") + "\narg " + hex(input_path) + "\narg " +
         hex("-o") + "\narg " + hex(out_path) + "\ncwd " + hex("/w") + "\nenv " + hex(env) +
         "\nfile " + input_hash + " 12 " + hex(input_path) + "\noption " + hex("-arch=sm_90") +
         "\noption " + hex("{input}") + "\noption " + hex("-o") + "\noption " + hex("{output}") +
         "\nbegin\n1 status signaled 11\n1 result 139\n1 output_file cubin " + hex(out_path) +
         "\n1 output cubin " + k_h2 + " 33\n";
}

Compile one(const std::string& text) {
  std::vector<std::string> problems;
  std::vector<Compile> cs = parse_log(text, "40-a.log", problems);
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems[0]);
  EXPECT_EQ(cs.size(), 1u);
  return cs.empty() ? Compile{} : cs[0];
}

TEST(CaptureExec, ReadsAShimRecord) {
  Compile c = one(exec_log("/w/k.ptx", k_h1, "/w/k.cubin", "PATH=/bin"));
  EXPECT_EQ(c.kind(), "exec");
  EXPECT_EQ(c.lib(), "/opt/cuda/bin/ptxas");
  EXPECT_EQ(c.exec->argv0, "ptxas");
  EXPECT_EQ(c.exec->args,
            (std::vector<std::string>{"-arch=sm_90", "/w/k.ptx", "-o", "/w/k.cubin"}));
  EXPECT_EQ(c.exec->cwd, "/w");
  EXPECT_EQ(c.exec->env, std::vector<std::string>{"PATH=/bin"});
  EXPECT_EQ(c.exec->status, "signaled 11");
  ASSERT_TRUE(c.result.has_value());
  EXPECT_EQ(*c.result, 139);
  ASSERT_EQ(c.inputs().size(), 1u);
  EXPECT_EQ(c.inputs()[0].tag, "file");
  EXPECT_EQ(c.inputs()[0].hash, k_h1);
  EXPECT_EQ(c.options(), (std::vector<std::string>{"-arch=sm_90", "{input}", "-o", "{output}"}));
  ASSERT_EQ(c.outputs().size(), 1u);
  EXPECT_EQ(c.outputs()[0].kind, "cubin");
  EXPECT_EQ(c.exec->outputs[0].second, "/w/k.cubin");
  EXPECT_EQ(exec_json(c)["ppid"], 30);
}

TEST(CaptureExec, ExecKeysAreRefusedInLibraryCompiles) {
  std::vector<std::string> problems;
  std::vector<Compile> cs = parse_log(
      "kdet-capture-record 1 1\nkind nvvm\ncwd " + hex("/w") + "\nbegin\n", "1-a.log", problems);
  EXPECT_TRUE(cs.empty());
  EXPECT_FALSE(problems.empty());
}

TEST(CaptureExec, BundleIgnoresPathsAndTmpdirButNotBytesOrEnvironment) {
  std::string a = bundle_id(one(exec_log("/w/k.ptx", k_h1, "/w/k.cubin", "PATH=/bin")));
  EXPECT_EQ(a, bundle_id(one(exec_log("/x/y.ptx", k_h1, "/x/z.cubin", "PATH=/bin"))));
  EXPECT_NE(a, bundle_id(one(exec_log("/w/k.ptx", k_h2, "/w/k.cubin", "PATH=/bin"))));
  EXPECT_NE(a, bundle_id(one(exec_log("/w/k.ptx", k_h1, "/w/k.cubin", "PATH=/usr/bin"))));
  std::string t1 = bundle_id(one(exec_log("/w/k.ptx", k_h1, "/w/k.cubin", "TMPDIR=/t1")));
  EXPECT_EQ(t1, bundle_id(one(exec_log("/w/k.ptx", k_h1, "/w/k.cubin", "TMPDIR=/t2"))));
}

TEST(CaptureExec, TwoOutputsOfOneBundleVary) {
  std::vector<Compile> cs = {one(exec_log("/w/a.ptx", k_h1, "/w/a.cubin", "PATH=/bin")),
                             one(exec_log("/w/b.ptx", k_h1, "/w/b.cubin", "PATH=/bin"))};
  cs[1].outputs_mut()[0].hash = k_h1;
  std::vector<Bundle> bs = group_bundles(cs);
  ASSERT_EQ(bs.size(), 1u);
  EXPECT_TRUE(bs[0].varies);
  EXPECT_EQ(bs[0].compiles, 2u);
  // Two input paths: the summary says the variation may be the path alone (an output that
  // embeds it), not only "the same compile gave two outputs".
  EXPECT_EQ(bs[0].places.size(), 2u);
  CaptureResult r;
  r.compiles = cs;
  r.bundles = bs;
  EXPECT_NE(capture_summary(r).find("2 different working folders or input paths"),
            std::string::npos);
  cs[1] = one(exec_log("/w/a.ptx", k_h1, "/w/b.cubin", "PATH=/bin"));
  cs[1].outputs_mut()[0].hash = k_h1;
  r.bundles = group_bundles(cs);
  EXPECT_EQ(capture_summary(r).find("different working folders"), std::string::npos);
}

TEST(CaptureExec, ExecNames) {
  for (const char* ok : {"ptxas", "my-cc", "clang++", "nvcc.real", "a_b"})
    EXPECT_TRUE(valid_exec_name(ok)) << ok;
  for (const char* bad : {"", ".", "..", "a/b", "/usr/bin/ptxas", "x y", "a\nb", "a:b", "*"})
    EXPECT_FALSE(valid_exec_name(bad)) << bad;
  EXPECT_EQ(exec_input_name(std::string("--image3=kind=elf,file=/t/k.cubin")), "k.cubin");
  EXPECT_EQ(exec_input_name(std::string("/w/..")), "input");
  EXPECT_EQ(exec_input_name(std::string("a b$.cu")), "a_b_.cu");
}

} // namespace
} // namespace kdet::capture
