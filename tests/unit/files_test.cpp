// The mtime factor's files: which files an input names (PTX .file, #include, #line,
// !DIFile), how each run's time reaches kdet's copies, and that the originals stay as they were.
#include "kdet/perturb/factors.hpp"
#include "kdet/perturb/files.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace kdet;
using namespace kdet::perturb;

namespace {

// A private folder under the build's temp, removed at the end.
struct TempDir {
  std::string path = make_temp_dir("kdet-files-test");
  ~TempDir() { remove_tree(path); }
  std::string file(const std::string& rel, const std::string& text) const {
    std::string p = path + "/" + rel;
    auto slash = p.find_last_of('/');
    make_dirs(p.substr(0, slash));
    write_file_atomic(p, text);
    return p;
  }
};

} // namespace

TEST(NamedFiles, PtxFileDirectivesAbsoluteAndRelative) {
  TempDir d;
  std::string a = d.file("src/a.py", "x = 1\n");
  std::string b = d.file("b.py", "y = 2\n");
  std::string ptx = ".version 8.0\n.target sm_90\n\t.file\t1 \"" + a +
                    "\"\n.file 2 \"b.py\", 1700000000, 6\n.file 3 \"/no/such/file.py\"\n"
                    ".file 4 \"" +
                    a + "\"\n";
  auto files = named_files(ptx, d.path + "/k.ptx", {}, d.path);
  EXPECT_EQ(files, (std::vector<std::string>{a, b}));
  std::vector<std::string> in_cwd;
  named_files(ptx, d.path + "/k.ptx", {}, d.path, 256, &in_cwd);
  EXPECT_EQ(in_cwd, (std::vector<std::string>{"", "b.py"}));
  // Relative names resolve against the compiler's working folder.
  EXPECT_EQ(named_files(ptx, d.path + "/k.ptx", {}, "/nonexistent"), std::vector<std::string>{a});
}

TEST(NamedFiles, IncludesThroughTheInputFolderAndDashI) {
  TempDir d;
  std::string local = d.file("in/local.h", "#include <deep.h>\n");
  std::string deep = d.file("inc/deep.h", "// nothing\n");
  std::string line = d.file("gen/orig.cu", "");
  std::string cu = "#include \"local.h\"\n#  include <cuda_runtime.h>\n#line 7 \"" + line +
                   "\"\n# 12 \"missing.cu\"\n";
  auto files = named_files(cu, d.path + "/in/k.cu", {"-I", "inc"}, d.path);
  EXPECT_EQ(files, (std::vector<std::string>{local, line, deep}));
  EXPECT_EQ(named_files(cu, d.path + "/in/k.cu", {"--include-path=" + d.path + "/inc"}, "/"),
            (std::vector<std::string>{local, line, deep}));
}

TEST(NamedFiles, NvvmDIFileAndBinaryInputs) {
  TempDir d;
  std::string src = d.file("py/kern.py", "");
  std::string ll = "!1 = !DIFile(filename: \"kern.py\", directory: \"" + d.path + "/py\")\n";
  EXPECT_EQ(named_files(ll, d.path + "/k.ll", {}, "/"), std::vector<std::string>{src});
  std::string bin("\x7f"
                  "ELF\0\0.file 1 \"",
                  13);
  EXPECT_TRUE(named_files(bin + src + "\"", d.path + "/k.cubin", {}, "/").empty());
}

TEST(NamedFiles, CopiesGetTheTimeAndTheOriginalStaysAsItWas) {
  TempDir d;
  std::string orig = d.file("a.py", "x = 1\n");
  ::chmod(orig.c_str(), 0640);
  struct stat before {};
  ASSERT_EQ(::stat(orig.c_str(), &before), 0);
  std::string copy = d.path + "/copy";
  ASSERT_EQ(place_file_times({{orig, copy, 1234567890, ""}}), "");
  struct stat c {
  }, after{};
  ASSERT_EQ(::stat(copy.c_str(), &c), 0);
  ASSERT_EQ(::stat(orig.c_str(), &after), 0);
  EXPECT_EQ(c.st_mtime, 1234567890);
  EXPECT_EQ(c.st_mode & 07777, 0640u);
  EXPECT_EQ(read_file(copy), "x = 1\n");
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_atim.tv_nsec, before.st_atim.tv_nsec);
  EXPECT_EQ(after.st_ctim.tv_nsec, before.st_ctim.tv_nsec);
  // Copy-less with a source: the file is made at its path (folders too), with the time.
  std::string at = d.path + "/run/sub/a.py";
  ASSERT_EQ(place_file_times({{at, "", 1300000000, orig}}), "");
  EXPECT_EQ(read_file(at), "x = 1\n");
  ASSERT_EQ(::stat(at.c_str(), &c), 0);
  EXPECT_EQ(c.st_mtime, 1300000000);
  // An existing copy is never written through (O_EXCL).
  EXPECT_NE(place_file_times({{orig, copy, 1, ""}}), "");
}

TEST(FileTimes, FixedIsOneTimeVaryDiffersAndRealTouchesNothing) {
  Context c;
  c.session_dir = "/tmp/s";
  c.input_path = "/data/k.ptx";
  c.base_cwd = "/work";
  c.named_files = {"/src/a.py", "/src/b.py"};
  Setting s;
  EXPECT_TRUE(plan_run(s, c, 0, 1).file_times.empty());
  EXPECT_FALSE(needs_private_mounts(s, c));
  level_of(s, "mtime") = Level::fixed;
  auto a = plan_run(s, c, 0, 1), b = plan_run(s, c, 5, 99);
  ASSERT_EQ(a.file_times.size(), 2u);
  EXPECT_EQ(a.file_times[0].path, "/src/a.py");
  EXPECT_EQ(a.file_times[0].seconds, b.file_times[1].seconds);
  EXPECT_TRUE(a.file_times[0].copy.starts_with("/tmp/s/m0-")) << a.file_times[0].copy;
  EXPECT_EQ(a.host.binds.size(), 2u);
  EXPECT_TRUE(needs_private_mounts(s, c));
  EXPECT_NE(std::find(a.host.env.begin(), a.host.env.end(), "SOURCE_DATE_EPOCH=1577836800"),
            a.host.env.end());
  level_of(s, "mtime") = Level::vary;
  EXPECT_NE(plan_run(s, c, 0, 1).file_times[0].seconds, plan_run(s, c, 1, 2).file_times[0].seconds);
  EXPECT_EQ(plan_run(s, c, 0, 1).file_times[0].seconds, plan_run(s, c, 0, 1).file_times[0].seconds);
  // An exec compiler's input: bound at its fixed path, set in place on kdet's copy under path=vary.
  c.exec_backend = true;
  auto e = plan_run(s, c, 0, 1);
  ASSERT_EQ(e.file_times.size(), 3u);
  EXPECT_EQ(e.file_times[0].path, "/data/k.ptx");
  level_of(s, "path") = Level::vary;
  e = plan_run(s, c, 0, 1);
  EXPECT_EQ(e.file_times[0].path, e.input_path);
  EXPECT_TRUE(e.file_times[0].copy.empty());
  // A name relative to the working folder goes, under cwd=vary, into the run's own folder.
  Context r = c;
  r.exec_backend = false;
  r.named_in_cwd = {"", "sub/b.py"};
  Setting v;
  level_of(v, "mtime") = Level::fixed;
  level_of(v, "cwd") = Level::vary;
  auto w = plan_run(v, r, 0, 1);
  ASSERT_EQ(w.file_times.size(), 2u);
  EXPECT_EQ(w.file_times[0].path, w.host.cwd + "/sub/b.py");
  EXPECT_EQ(w.file_times[0].source, "/src/b.py");
  EXPECT_TRUE(w.file_times[0].copy.empty());
  EXPECT_EQ(w.host.binds.size(), 1u);
  // With kdet holding the files' times, libfaketime must not shift them (time acts apart).
  level_of(s, "time") = Level::fixed;
  c.faketime_lib = "/x/libfaketime.so.1";
  e = plan_run(s, c, 0, 1);
  EXPECT_NE(std::find(e.host.env.begin(), e.host.env.end(), "NO_FAKE_STAT=1"), e.host.env.end());
  // time=fixed alone holds the files' times too (its fixed level must not move them).
  Setting t;
  level_of(t, "time") = Level::fixed;
  auto f = plan_run(t, c, 0, 1);
  EXPECT_NE(std::find(f.host.env.begin(), f.host.env.end(), "NO_FAKE_STAT=1"), f.host.env.end());
  level_of(t, "time") = Level::vary;
  f = plan_run(t, c, 0, 1);
  EXPECT_EQ(std::find(f.host.env.begin(), f.host.env.end(), "NO_FAKE_STAT=1"), f.host.env.end());
  c.exec_backend = false;
  auto l = plan_launch(s, c);
  EXPECT_TRUE(l.private_mounts);
  EXPECT_NE(std::find(l.env.begin(), l.env.end(), "NO_FAKE_STAT=1"), l.env.end());
}
