// Unit tests for cache/launcher (reading a compiler's command line) and the stats counters.
#include "kdet/cache/key.hpp"
#include "kdet/cache/launcher.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/util/fs.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::cache;
namespace fs = std::filesystem;

namespace {

// A temp folder made the working directory, so relative file names in argv exist.
class LauncherTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_old = fs::current_path();
    m_dir = make_temp_dir("kdet-launcher-test");
    fs::current_path(m_dir);
    write_file_atomic("k.cu", "__global__ void k() {}\n");
    write_file_atomic("k.ptx", ".version 8.0\n");
    write_file_atomic("x.h", "#define X 1\n");
  }
  void TearDown() override {
    fs::current_path(m_old);
    remove_tree(m_dir);
  }
  fs::path m_old;
  std::string m_dir;
};

TEST_F(LauncherTest, NvccCompileWithCMakeDepfileOptions) {
  auto p = plan_launch({"/usr/local/cuda/bin/nvcc", "-Iinc", "-MD", "-MT", "obj/k.o", "-MF",
                        "obj/k.o.d", "-x", "cu", "-c", "k.cu", "-o", "obj/k.o"});
  ASSERT_TRUE(p.cacheable) << p.why;
  EXPECT_EQ(p.input, "k.cu");
  EXPECT_EQ(p.output, "obj/k.o");
  EXPECT_EQ(p.depfile, "obj/k.o.d");
  // The compile keeps -c and -o, loses the depfile options (kdet writes the depfile).
  std::vector<std::string> want = {
      "/usr/local/cuda/bin/nvcc", "-Iinc", "-x", "cu", "-c", "k.cu", "-o", "obj/k.o"};
  EXPECT_EQ(p.command, want);
  // The -M run keeps -MT, loses -c and -o.
  std::vector<std::string> deps = {
      "/usr/local/cuda/bin/nvcc", "-Iinc", "-MT", "obj/k.o", "-x", "cu", "k.cu", "-M"};
  EXPECT_EQ(p.deps_command, deps);
  EXPECT_FALSE(p.key_env.empty());
}

TEST_F(LauncherTest, DefaultOutputNames) {
  auto n = plan_launch({"nvcc", "-c", "k.cu"});
  ASSERT_TRUE(n.cacheable) << n.why;
  EXPECT_EQ(n.output, "k.o");
  EXPECT_EQ(n.command.back(), "k.o");
  EXPECT_EQ(plan_launch({"nvcc", "-ptx", "k.cu"}).output, "k.ptx");
  auto p = plan_launch({"ptxas", "-arch=sm_90a", "k.ptx"});
  ASSERT_TRUE(p.cacheable) << p.why;
  EXPECT_EQ(p.output, "elf.o");
  EXPECT_TRUE(p.deps_command.empty()); // ptxas reads only its input
  EXPECT_EQ(plan_launch({"ptxas", "k.ptx", "--output-file=k.cubin"}).output, "k.cubin");
}

TEST_F(LauncherTest, ExtraInputsAndUncacheable) {
  auto p = plan_launch({"nvcc", "-include", "x.h", "-c", "k.cu", "-o", "k.o"});
  ASSERT_TRUE(p.cacheable);
  EXPECT_EQ(p.extra_inputs, std::vector<std::string>{"x.h"});
  EXPECT_FALSE(plan_launch({"nvcc", "k.cu", "-o", "a.out"}).cacheable); // links
  EXPECT_FALSE(plan_launch({"nvcc", "-E", "k.cu"}).cacheable);          // stdout
  EXPECT_FALSE(plan_launch({"nvcc", "-c", "absent.cu"}).cacheable);     // no input
  EXPECT_FALSE(plan_launch({"mycc", "k.cu"}).cacheable);                // no -o, no default
  EXPECT_TRUE(plan_launch({"mycc", "k.cu", "-o", "k.bin"}).cacheable);
}

// nvcc -odir DIR writes its default output in DIR: the launcher must write it there too
// (it wrote ./k.o, leaving the build a stale DIR/k.o).
TEST_F(LauncherTest, OutputDirectoryMovesTheDefaultOutput) {
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "-odir", "obj"}).output, "obj/k.o");
  EXPECT_EQ(plan_launch({"nvcc", "-ptx", "--output-directory=obj", "k.cu"}).output, "obj/k.ptx");
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "-odir", "obj", "-o", "x.o"}).output, "x.o");
}

// An options file's bytes enter the key in every spelling (=, a comma list), not only as
// the word after -optf: an edited file must not hit the old entry.
TEST_F(LauncherTest, OptionsFilesAreInputs) {
  write_file_atomic("a.opt", "-DA=1\n");
  write_file_atomic("b.opt", "-DB=1\n");
  using V = std::vector<std::string>;
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "--options-file=a.opt"}).extra_inputs, V{"a.opt"});
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "-optf=a.opt,b.opt"}).extra_inputs,
            (V{"a.opt", "b.opt"}));
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "-optf", "a.opt,b.opt"}).extra_inputs,
            (V{"a.opt", "b.opt"}));
  EXPECT_EQ(plan_launch({"nvcc", "-c", "k.cu", "-optf", "a.opt"}).extra_inputs, V{"a.opt"});
  EXPECT_EQ(plan_launch({"ptxas", "k.ptx", "-o", "k.cubin", "--options-file=b.opt"}).extra_inputs,
            V{"b.opt"});
}

TEST(MakeRule, FilesAfterTheColon) {
  auto f = make_rule_files("obj/k.o : k.cu \\\n  inc/a\\ b.h /usr/include/c.h\n");
  std::vector<std::string> want = {"k.cu", "inc/a b.h", "/usr/include/c.h"};
  EXPECT_EQ(f, want);
  EXPECT_TRUE(make_rule_files("no rule here").empty());
}

TEST_F(LauncherTest, FilesHashFollowsContent) {
  std::string a = files_hash({"x.h", "k.cu"});
  EXPECT_EQ(a, files_hash({"x.h", "k.cu"}));
  write_file_atomic("x.h", "#define X 2\n");
  EXPECT_NE(a, files_hash({"x.h", "k.cu"}));
}

TEST_F(LauncherTest, DepsEnterTheKeyOnlyWhenPresent) {
  KeyMaterial m;
  m.backend = "exec";
  m.input_hash = "00";
  std::string without = compute_key(m);
  m.deps_hash = "11";
  std::string with = compute_key(m);
  EXPECT_NE(without, with);
  KeyMaterial back = key_material_from_json(to_json(m));
  EXPECT_EQ(compute_key(back), with);
}

// Eight processes count 200 hits each at once: no count is lost; -z zeroes.
TEST_F(LauncherTest, CountersUnderConcurrency) {
  Store store(m_dir + "/cache");
  store.count('m');
  std::vector<pid_t> kids;
  for (int i = 0; i < 8; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      Store s(m_dir + "/cache");
      for (int j = 0; j < 200; ++j)
        s.count('h');
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  auto j = cache_stats(store);
  EXPECT_EQ(j["counters"]["hit"].get<uint64_t>(), 1600u);
  EXPECT_EQ(j["counters"]["miss"].get<uint64_t>(), 1u);
  EXPECT_TRUE(j["limit"].is_null());
  zero_counters(store);
  EXPECT_EQ(cache_stats(store)["counters"]["hit"].get<uint64_t>(), 0u);
}

} // namespace
