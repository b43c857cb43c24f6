// Unit tests for capture/builds and capture/kernel_names: kernel names read from PTX and
// NVVM IR (both dialects, quoted names), short names, temporary paths normalized, targets
// from options; and builds compared from capture folders written here in the preload's
// format: chaining by content (PTX without its NUL fed to ptxas), matching across builds
// under temporary names, a kernel name shared by two kernels, and each status.
#include "kdet/capture/builds.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/scan/labels.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/tempdir.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <unistd.h>

namespace kdet::capture {
namespace {

TEST(KernelNames, ReadsPtxEntries) {
  std::string ptx = "//\n.version 8.0\n.target sm_90a\n.address_size 64\n"
                    ".visible .entry saxpy(\n.param .u64 p)\n{\nret;\n}\n"
                    ".func helper()\n{\nret;\n}\n.entry _Z3fooPf(.param .u64 q)\n{\nret;\n}\n";
  EXPECT_EQ(entry_names(ptx), (std::vector<std::string>{"saxpy", "_Z3fooPf"}));
  // A comment that mentions .entry names nothing; text without .version is no PTX.
  EXPECT_TRUE(entry_names("// .entry fake\n").empty());
}

TEST(KernelNames, ReadsNvvmIrKernelsInBothDialectsAndQuotedNames) {
  std::string typed = "define void @k1(float* %x) {\n ret void\n}\n"
                      "!nvvm.annotations = !{!0, !1}\n"
                      "!0 = !{void (float*)* @k1, !\"kernel\", i32 1}\n"
                      "!1 = !{void (float*)* @k1, !\"maxntidx\", i32 128}\n";
  EXPECT_EQ(entry_names(typed), (std::vector<std::string>{"k1"}));
  std::string modern = "define void @\"_ZN6cudapy8__main__5saxpy$241E\"(ptr %x) {\n ret void\n}\n"
                       "!0 = !{ptr @\"_ZN6cudapy8__main__5saxpy$241E\", !\"kernel\", i32 1}\n";
  EXPECT_EQ(entry_names(modern), (std::vector<std::string>{"_ZN6cudapy8__main__5saxpy$241E"}));
  std::string cc = "define ptx_kernel void @k2(ptr %x) {\n ret void\n}\n"
                   "define void @not_a_kernel() {\n ret void\n}\n";
  EXPECT_EQ(entry_names(cc), (std::vector<std::string>{"k2"}));
}

TEST(KernelNames, ShortNamesAreDemangledWhereShorterAndCutConsistently) {
  EXPECT_EQ(demangle_if_shorter("_ZN2ns6kernelEv"), "ns::kernel()");
  EXPECT_EQ(demangle_if_shorter("_Z3fooi"), "_Z3fooi"); // "foo(int)" is not shorter
  EXPECT_EQ(demangle_if_shorter("plain"), "plain");
  std::string a(200, 'a'), b = a;
  b.back() = 'b';
  EXPECT_LE(display_name(a, 40).size(), 40u);
  EXPECT_NE(display_name(a, 40), display_name(b, 40)); // differing late, still apart
  EXPECT_EQ(display_name(a, 40), display_name(a, 40));
  EXPECT_EQ(display_name(a, 0), a); // --full-names
  // Several kernels of one bundle: the first, then how many more.
  EXPECT_EQ(display_names({}), "");
  EXPECT_EQ(display_names({"_ZN2ns6kernelEv"}), "ns::kernel()");
  EXPECT_EQ(display_names({"k1", "k2", "k3"}), "k1 +2 more");
  EXPECT_EQ(display_names({a, "k2"}, 40), display_name(a, 40) + " +1 more");
}

TEST(KernelNames, ABundleJobIsNamedByItsKernelsThenItsFolder) {
  store::JobRow j;
  j.input = "bundles/0123456789abcdef";
  j.compiler = "captured-libnvvm.so";
  j.option_set = "captured";
  EXPECT_EQ(j.label(), "bundles/0123456789abcdef captured-libnvvm.so captured");
  std::string long_name = "_ZN8__main__" + std::string(300, 'x') + "E";
  j.kernels = {long_name};
  EXPECT_EQ(j.input_label(), display_name(long_name) + " (bundles/0123456789abcdef)");
  EXPECT_EQ(j.label(0), long_name + " (bundles/0123456789abcdef) captured-libnvvm.so captured");
  scan::Pairing p;
  p.key = "bundles/0123456789abcdef - captured";
  EXPECT_EQ(p.name(), p.key);
  p.b = &j;
  EXPECT_EQ(p.name(), display_name(long_name) + " (bundles/0123456789abcdef - captured)");
}

TEST(KernelNames, TemporaryPartsOfPathsAreNormalized) {
  EXPECT_EQ(normalize_volatile("-I/tmp/tmpab12cd/include"), "-I/tmp/*/include");
  EXPECT_EQ(normalize_volatile("/var/tmp/x9/k.cu"), "/var/tmp/*/k.cu");
  EXPECT_EQ(normalize_volatile("tmpxft_0000abcd_00000000-6_k.cpp1.ii"), "{tmpxft}k.cpp1.ii");
  EXPECT_EQ(normalize_volatile("/cache/0123456789abcdef0123/k.ptx"), "/cache/{hex}/k.ptx");
  EXPECT_EQ(normalize_volatile("-arch=sm_90a -O3"), "-arch=sm_90a -O3");
  EXPECT_EQ(normalize_volatile("/home/user/tmp/k.cu"), "/home/user/tmp/k.cu");
}

TEST(KernelNames, ATmpdirUnderTmpIsNormalizedAsOne) {
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/tmp/alice", 1);
  EXPECT_EQ(normalize_volatile("-I/tmp/alice/tmpq1/include"), "-I{tmpdir}/*/include");
  EXPECT_EQ(normalize_volatile("/tmp/other/k.cu"), "/tmp/*/k.cu");
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

TEST(KernelNames, TargetsFromOptions) {
  EXPECT_EQ(target_of({"-opt=3", "-arch=compute_90a"}), "compute_90a");
  EXPECT_EQ(target_of({"-lineinfo", "--gpu-name=sm_90a", "{input}"}), "sm_90a");
  EXPECT_EQ(target_of({"-arch", "sm_80", "{input}"}), "sm_80");
  EXPECT_EQ(target_of({"-O3"}), "");
}

// Writes capture folders in the preload's format (docs/CAPTURE.md).
class Builds : public ::testing::Test {
protected:
  TempDir m_tmp{"builds-test"};
  std::map<std::string, std::string> m_logs, m_packs; // dir -> text

  static std::string hex(const std::string& s) {
    std::string out = "x";
    for (unsigned char c : s)
      out += fmt::format("{:02x}", c);
    return out;
  }
  // A blob's hash line and its bytes, added to the pack of `dir`.
  std::string blob(const std::string& dir, const std::string& bytes) {
    std::string h = hash_bytes(bytes);
    m_packs[dir] += fmt::format("kdet-blob {} {}\n", h, bytes.size()) + bytes;
    return h;
  }
  // One libNVVM compile of `ir` giving `ptx` (with the NUL libNVVM adds).
  void nvvm(const std::string& dir, int id, uint64_t t, const std::string& ir,
            const std::string& ptx, const std::string& name = "m") {
    std::string hi = blob(dir, ir), ho = blob(dir, ptx + std::string(1, '\0'));
    m_logs[dir] +=
        fmt::format("kdet-capture-record 1 {}\nkind nvvm\npid 1\nppid 1\nthread 1\n"
                    "time_ns {}\nlib {}\nlib_hash {}\nlib_size 3\n"
                    "module {} {} 0 {}\noption {}\nbegin\n{} result 0\n"
                    "{} output nvvm {} {}\n",
                    id, t, hex("/cuda/libnvvm.so.4"), std::string(32, 'a'), hi, ir.size(),
                    hex(name), hex("-arch=compute_90a"), id, id, ho, ptx.size() + 1);
  }
  // One ptxas run on `ptx` (as a file, without a NUL) giving `cubin`.
  void ptxas(const std::string& dir, int id, uint64_t t, const std::string& ptx,
             const std::string& cubin, const std::string& path) {
    std::string hi = blob(dir, ptx), ho = blob(dir, cubin);
    m_logs[dir] += fmt::format(
        "kdet-capture-record 1 {}\nkind exec\npid 2\nppid 1\nthread 2\ntime_ns {}\nlib {}\n"
        "lib_hash {}\nlib_size 3\nargv0 {}\narg {}\narg {}\ncwd {}\nfile {} {} {}\n"
        "option {}\noption {}\noption {}\noption {}\nbegin\n{} status exited 0\n{} result 0\n"
        "{} output cubin {} {}\n",
        id, t, hex("/cuda/bin/ptxas"), std::string(32, 'b'), hex("ptxas"), hex("-arch=sm_90a"),
        hex(path), hex("/w"), hi, ptx.size(), hex(path), hex("-arch=sm_90a"), hex("{input}"),
        hex("-o"), hex("{output}"), id, id, id, ho, cubin.size());
  }
  std::string write(const std::string& name) {
    std::string dir = m_tmp.path() + "/" + name;
    make_dirs(dir + "/raw/records");
    make_dirs(dir + "/raw/blobs");
    write_file_atomic(dir + "/raw/records/1-a.log", m_logs[name]);
    write_file_atomic(dir + "/raw/blobs/1-a.pack", m_packs[name]);
    return dir;
  }
  static std::string ptx(const std::string& entry, const std::string& body) {
    return ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry " + entry + "()\n{\n" +
           body + "\nret;\n}\n";
  }
  static const Kernel& find(const BuildsResult& r, const std::string& name) {
    for (const auto& k : r.kernels)
      if (k.name == name) return k;
    throw Error("no kernel " + name);
  }
};

TEST_F(Builds, ChainsLibNvvmToPtxasAndJudgesEachStatus) {
  for (int b = 1; b <= 2; ++b) {
    std::string d = fmt::format("b{}", b);
    std::string n = std::to_string(b);
    // same: nvvm -> ptxas, the PTX written without its NUL.
    nvvm(d, 1, 10, "define void @same_k() {}", ptx("same_k", "// a"));
    ptxas(d, 2, 11, ptx("same_k", "// a"), "CUBIN-same", "/tmp/tmp" + n + "x/same_k.ptx");
    // varies at nvvm; ptxas gives one cubin for both PTX.
    nvvm(d, 3, 12, "define void @ptx_k() {}", ptx("ptx_k", "// build " + n));
    ptxas(d, 4, 13, ptx("ptx_k", "// build " + n), "CUBIN-one", "/w/ptx_k.ptx");
    // varies at ptxas: same PTX, another cubin.
    ptxas(d, 5, 14, ptx("cubin_k", ""), "CUBIN-" + n, "/w/cubin_k.ptx");
    // input-differs: the pipeline's own IR differs.
    nvvm(d, 6, 15, "define void @in_k() { ; " + n + " }", ptx("in_k", ""));
    // one name, two kernels (other inputs), in either order.
    std::string x = ptx("twin", "// x"), y = ptx("twin", "// y");
    ptxas(d, 7, b == 1 ? 16 : 17, x, "CUBIN-x", "/w/x.ptx");
    ptxas(d, 8, b == 1 ? 17 : 16, y, "CUBIN-y", "/w/y.ptx");
    if (b == 2) nvvm(d, 9, 18, "define void @late_k() {}", ptx("late_k", ""));
  }
  BuildsResult r = compare_builds({write("b1"), write("b2")});
  const Kernel& same = find(r, "same_k");
  EXPECT_EQ(same.status, KernelStatus::same);
  ASSERT_EQ(same.stages.size(), 2u); // chained, although the file lacks the NUL
  EXPECT_EQ(same.stages[0].kind, "nvvm");
  EXPECT_EQ(same.stages[1].program, "ptxas");
  const Kernel& p = find(r, "ptx_k");
  EXPECT_EQ(p.status, KernelStatus::nondeterministic);
  ASSERT_TRUE(p.first_varying && p.difference);
  EXPECT_EQ(*p.first_varying, 0u);
  EXPECT_EQ(p.difference->change, "trivia");
  EXPECT_FALSE(p.final_output_varies);
  const Kernel& c = find(r, "cubin_k");
  EXPECT_EQ(c.status, KernelStatus::nondeterministic);
  EXPECT_EQ(c.stages[*c.first_varying].program, "ptxas");
  EXPECT_TRUE(c.final_output_varies);
  EXPECT_EQ(find(r, "in_k").status, KernelStatus::input_differs);
  EXPECT_NE(find(r, "in_k").input_detail.find("input 1 (module)"), std::string::npos);
  EXPECT_EQ(find(r, "late_k").status, KernelStatus::not_in_every_build);
  size_t twins = 0;
  for (const auto& k : r.kernels)
    if (k.name == "twin") {
      ++twins;
      EXPECT_EQ(k.status, KernelStatus::same);
    }
  EXPECT_EQ(twins, 2u);
  EXPECT_EQ(r.kernels.size(), 7u);
  EXPECT_EQ(r.count(KernelStatus::nondeterministic), 2u);
  EXPECT_EQ(r.kernels.front().status, KernelStatus::nondeterministic); // differing kernels first
}

TEST_F(Builds, WithinOneBuildAVaryingCompileVaries) {
  for (const char* d : {"w1", "w2"}) {
    nvvm(d, 1, 10, "define void @k() {}", ptx("k", "// one"));
    nvvm(d, 2, 11, "define void @k() {}", ptx("k", "// two"));
  }
  BuildsResult r = compare_builds({write("w1"), write("w2")});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].status, KernelStatus::nondeterministic);
  ASSERT_TRUE(r.kernels[0].difference);
  EXPECT_FALSE(r.kernels[0].difference->within_build); // both values exist in both builds
}

TEST_F(Builds, AFolderWithoutACaptureIsRefusedByName) {
  make_dirs(m_tmp.path() + "/empty");
  EXPECT_THROW(capture_folders(m_tmp.path() + "/empty"), Error);
  nvvm("c1", 1, 1, "x", ptx("k", ""));
  std::string one = write("c1");
  auto found = capture_folders(one);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].dir, one);
  // Records alone: a capture killed before it ended, never compared as a finished one.
  EXPECT_EQ(found[0].not_compared.rfind("unfinished: it has no capture.json", 0), 0u)
      << found[0].not_compared;
  // Finished by `kdet capture --finish` (bundles and manifest.toml, no capture.json).
  write_file_atomic(one + "/manifest.toml", "# kdet capture --finish\n");
  found = capture_folders(one);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].not_compared, "");
}

// A module's NVVM IR with its kernels defined and annotated in the order given, and its PTX.
std::pair<std::string, std::string> module_of(const std::vector<std::string>& names) {
  std::string ir, notes, out = ".version 8.0\n.target sm_90a\n.address_size 64\n";
  for (size_t i = 0; i < names.size(); ++i) {
    ir += "define void @" + names[i] + "(float* %x) {\n ret void\n}\n";
    notes += fmt::format("!{} = !{{void (float*)* @{}, !\"kernel\", i32 1}}\n", i, names[i]);
    out += ".visible .entry " + names[i] + "()\n{\nret;\n}\n";
  }
  return {ir + notes, out};
}

TEST_F(Builds, AModuleWhoseKernelsComeInAnotherOrderIsOneKernel) {
  // llvmlite in-process, its kernels in the order of a Python set: another order each build.
  std::vector<std::vector<std::string>> orders = {{"k_c", "k_a", "k_e", "k_b", "k_d"},
                                                  {"k_a", "k_d", "k_b", "k_e", "k_c"},
                                                  {"k_e", "k_b", "k_a", "k_c", "k_d"}};
  std::vector<std::string> dirs;
  for (size_t b = 0; b < orders.size(); ++b) {
    std::string d = fmt::format("o{}", b + 1);
    auto [ir, out] = module_of(orders[b]);
    nvvm(d, 1, 10, ir, out);
    dirs.push_back(write(d));
  }
  BuildsResult r = compare_builds(dirs);
  ASSERT_EQ(r.kernels.size(), 1u); // never three kernels "compiled in build K only"
  const Kernel& k = r.kernels[0];
  EXPECT_EQ(k.name, "k_a, k_b, k_c, k_d, k_e");
  EXPECT_EQ(k.present.size(), 3u);
  EXPECT_EQ(k.status, KernelStatus::input_differs); // the pipeline's own module differs
  ASSERT_FALSE(k.notes.empty());
  EXPECT_NE(k.notes[0].find("its entries come in another order in build 2 (k_a, k_d"),
            std::string::npos)
      << k.notes[0];
  EXPECT_EQ(r.count(KernelStatus::not_in_every_build), 0u);
}

// A capture folder's capture.json, as kdet capture writes it (the pipeline's end last).
void write_capture_json(const std::string& dir, const std::string& status, int code) {
  write_file_atomic(dir + "/capture.json",
                    fmt::format("{{\"compiles\": [{{\"pipeline\": 1}}], \"pipeline\": "
                                "{{\"status\": \"{}\", \"exit_code\": {}}}, \"seconds\": 2}}\n",
                                status, code));
}

// kdet.capture/2 said "varies" of a bundle where kdet.capture/3 says "nondeterministic":
// capture compare reads a folder of either, and words what it finds today's way.
TEST_F(Builds, ACaptureFolderWithTheOldWordIsStillCompared) {
  nvvm("o1", 1, 10, "define void @k() {}", ptx("k", "// one"));
  nvvm("o2", 1, 10, "define void @k() {}", ptx("k", "// two"));
  std::string a = write("o1"), b = write("o2");
  write_file_atomic(
      a + "/capture.json",
      "{\"schema\": \"kdet.capture/2\", \"bundles\": [{\"varies\": true}], "
      "\"pipeline\": {\"status\": \"exited 0\", \"exit_code\": 0}, \"seconds\": 1}\n");
  write_file_atomic(b + "/capture.json",
                    "{\"schema\": \"kdet.capture/3\", \"bundles\": [{\"nondeterministic\": "
                    "true}], \"pipeline\": {\"status\": \"exited 0\", \"exit_code\": 0}, "
                    "\"seconds\": 1}\n");
  BuildsResult r = compare_builds({a, b});
  ASSERT_TRUE(r.failed_builds.empty()) << r.failed_builds[0];
  for (const auto& i : r.builds)
    EXPECT_EQ(i.pipeline_status, "exited 0");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_STREQ(to_string(r.kernels[0].status), "nondeterministic");
}

TEST_F(Builds, ACaptureJsonThatCannotBeReadFailsItsBuild) {
  for (const char* d : {"j1", "j2"})
    nvvm(d, 1, 10, "define void @k() {}", ptx("k", ""));
  std::string a = write("j1"), b = write("j2");
  write_capture_json(a, "exited 0", 0);
  // Read as a stream: the status after a compiles list, the exit code, the time.
  write_capture_json(b, "exited 7", 7);
  BuildsResult r = compare_builds({a, b});
  EXPECT_EQ(r.builds[1].pipeline_status, "exited 7");
  EXPECT_EQ(r.builds[1].pipeline_exit, 7);
  EXPECT_EQ(r.builds[1].seconds, 2.0);
  EXPECT_TRUE(r.failed_builds.empty()); // the caller names a pipeline that failed
  // Garbage, no status, a link to a capture.json that says 0, a folder, one too large: each a
  // named failed build, never "pipeline not seen" (which passes).
  std::vector<std::function<void()>> plants = {
      [&] { write_file_atomic(b + "/capture.json", std::string("\x1b]0;ok\x07{garbage", 10)); },
      [&] { write_file_atomic(b + "/capture.json", "{\"pipeline\": {\"exit_code\": 7}}"); },
      [&] {
        ASSERT_EQ(::symlink((a + "/capture.json").c_str(), (b + "/capture.json").c_str()), 0);
      },
      [&] { make_dirs(b + "/capture.json"); },
      [&] {
        write_file_atomic(b + "/capture.json", "");
        ASSERT_EQ(::truncate((b + "/capture.json").c_str(), off_t{3} << 30), 0); // sparse
      },
  };
  auto clear = [&] {
    ::unlink((b + "/capture.json").c_str()); // a link, not what it names
    remove_tree(b + "/capture.json");
  };
  for (size_t i = 0; i < plants.size(); ++i) {
    clear();
    plants[i]();
    r = compare_builds({a, b});
    EXPECT_NE(r.builds[1].pipeline_status, "unknown") << "plant " << i;
    EXPECT_EQ(r.builds[1].pipeline_exit, -1) << "plant " << i;
    ASSERT_EQ(r.failed_builds.size(), 1u) << "plant " << i;
    EXPECT_NE(r.failed_builds[0].find("capture.json"), std::string::npos) << r.failed_builds[0];
    EXPECT_EQ(r.kernels.size(), 1u); // its kernels are still compared
  }
  // Absent: not seen (a capture --finish writes none), as before.
  clear();
  r = compare_builds({a, b});
  EXPECT_EQ(r.builds[1].pipeline_status, "unknown");
  EXPECT_TRUE(r.failed_builds.empty());
}

TEST_F(Builds, RecordsBehindALinkAreAProblemNeverZeroCompiles) {
  for (const char* d : {"l1", "l2"})
    nvvm(d, 1, 10, "define void @k() {}", ptx("k", ""));
  std::string a = write("l1"), b = write("l2");
  remove_tree(b + "/raw/records");
  ASSERT_EQ(::symlink("/", (b + "/raw/records").c_str()), 0);
  auto found = capture_folders(b);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].not_compared.find("raw/records is behind a link"), std::string::npos);
  BuildsResult r = compare_builds({a, b});
  ASSERT_EQ(r.failed_builds.size(), 1u);
  EXPECT_NE(r.failed_builds[0].find("behind a link"), std::string::npos) << r.failed_builds[0];
  EXPECT_TRUE(r.kernels.empty()); // one build left: nothing compared
  EXPECT_EQ(r.compared(), 1u);
  // Readers name a link there too (a plain capture, --finish), and read nothing through it.
  std::vector<std::string> problems;
  EXPECT_TRUE(read_records(b + "/raw", problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("raw/records: is a link"), std::string::npos) << problems[0];
}

TEST_F(Builds, BuildFoldersThatAreLinksNestedUnfinishedOrMissingAreNamed) {
  std::string top = m_tmp.path() + "/many";
  for (const char* d : {"many/build-1", "many/build-2", "many/build-5", "many/build-7"})
    nvvm(d, 1, 10, "define void @k() {}", ptx("k", ""));
  for (const char* d : {"many/build-1", "many/build-2", "many/build-7"})
    write_capture_json(write(d), "exited 0", 0);
  write("many/build-5"); // killed during it: no capture.json
  ASSERT_EQ(::symlink((top + "/build-1").c_str(), (top + "/build-3").c_str()), 0); // a link
  make_dirs(top + "/build-4/build-1/raw/records"); // a --builds folder inside
  make_dirs(top + "/build-02/raw/records");        // no name kdet gives
  make_dirs(top + "/build-logs");                  // no build's name: not a build
  auto found = capture_folders(top);
  std::vector<std::pair<std::string, bool>> got;
  for (const auto& f : found)
    got.emplace_back(f.dir.substr(top.size() + 1), f.not_compared.empty());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, bool>>{{"build-1", true},
                                                            {"build-2", true},
                                                            {"build-3", false},
                                                            {"build-4", false},
                                                            {"build-5", false},
                                                            {"build-6", false},
                                                            {"build-7", true},
                                                            {"build-02", false}}));
  EXPECT_NE(found[2].not_compared.find("is a link"), std::string::npos);
  EXPECT_NE(found[3].not_compared.find("holds no capture"), std::string::npos);
  EXPECT_NE(found[4].not_compared.find("unfinished"), std::string::npos);
  EXPECT_NE(found[5].not_compared.find("is missing"), std::string::npos);
  std::vector<std::string> dirs;
  for (const auto& f : found)
    dirs.push_back(f.dir);
  BuildsResult r = compare_builds(dirs, found);
  EXPECT_EQ(r.compared(), 3u);
  EXPECT_EQ(r.failed_builds.size(), 5u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].status, KernelStatus::same); // in every build compared
}

} // namespace
} // namespace kdet::capture

namespace kdet::capture {
namespace {

// The next command of an input that differs names two builds whose inputs really differ
// (builds 1 and 2 are the same here; build 3 differs), not the first two.
TEST_F(Builds, NextNamesTwoBuildsThatDiffer) {
  for (int b = 1; b <= 3; ++b)
    nvvm(fmt::format("b{}", b), 1, 10, b == 3 ? "define void @k() { ; 3 }" : "define void @k() {}",
         ptx("k", ""));
  BuildsResult r = compare_builds({write("b1"), write("b2"), write("b3")});
  const Kernel& k = find(r, "k");
  ASSERT_EQ(k.status, KernelStatus::input_differs);
  EXPECT_NE(k.next.find("/b1/bundles/"), std::string::npos) << k.next;
  EXPECT_NE(k.next.find("/b3/bundles/"), std::string::npos) << k.next;
  EXPECT_EQ(k.next.find("/b2/bundles/"), std::string::npos) << k.next;
}

// A compile that failed in every build is said, not passed off as "same".
TEST_F(Builds, ACompileThatFailedInEveryBuildIsSaid) {
  for (int b = 1; b <= 2; ++b) {
    std::string d = fmt::format("b{}", b);
    nvvm(d, 1, 10, "define void @bad() {}", ptx("bad", ""));
    std::string& log = m_logs[d];
    log.replace(log.find("\n1 result 0\n"), 12, "\n1 result 3\n");
  }
  BuildsResult r = compare_builds({write("b1"), write("b2")});
  const Kernel& k = find(r, "bad");
  EXPECT_TRUE(k.compile_failed);
  ASSERT_FALSE(k.notes.empty());
  EXPECT_NE(k.notes.back().find("failed in every build (return code 3)"), std::string::npos);
}

} // namespace
} // namespace kdet::capture
