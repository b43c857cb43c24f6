// Unit tests of reduce/: ddmin, the passes and their cleanup, the oracle's run count.
#include "fake_executor.hpp"
#include "kdet/corpus/generator.hpp"
#include "kdet/reduce/cvise.hpp"
#include "kdet/reduce/ddmin.hpp"
#include "kdet/reduce/names.hpp"
#include "kdet/reduce/oracle.hpp"
#include "kdet/reduce/passes.hpp"
#include "kdet/reduce/repro.hpp"
#include "kdet/reduce/session.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace kdet::reduce {
namespace {

const Pass& pass_named(const std::string& name) {
  for (const auto& p : pass_table())
    if (name == p.name) return p;
  throw std::runtime_error("no pass " + name);
}

bool has(const std::vector<size_t>& v, size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A test of one candidate at a time, as ddmin's batch test.
ChunkTests each(std::function<bool(const std::vector<size_t>&)> one) {
  return [one = std::move(one)](const std::vector<std::vector<size_t>>& cands) {
    std::vector<char> ok;
    for (const auto& c : cands)
      ok.push_back(one(c) ? 1 : 0);
    return ok;
  };
}

TEST(Ddmin, FindsTheTwoChunksThatMatter) {
  for (int jobs : {1, 4}) {
    int tests = 0;
    auto keep = ddmin(40, each([&](const std::vector<size_t>& k) {
                        ++tests;
                        return has(k, 3) && has(k, 17);
                      }),
                      jobs, {});
    EXPECT_EQ(keep, (std::vector<size_t>{3, 17})) << "jobs " << jobs;
    EXPECT_LT(tests, 200) << "jobs " << jobs;
  }
}

TEST(Ddmin, HandsTheTestUpToJobsWindowsAndTakesTheLowestAccepted) {
  // Any two of chunks 0-7 will do, so a batch often has several accepted windows (drop 0-3 and
  // drop 4-7 first): ddmin must go on from the lowest, whichever order tests end in.
  std::vector<size_t> batch_sizes;
  std::vector<size_t> current{0, 1, 2, 3, 4, 5, 6, 7}; // what ddmin must keep now
  auto keep =
      ddmin(8,
            [&](const std::vector<std::vector<size_t>>& cands) {
              batch_sizes.push_back(cands.size());
              std::vector<char> ok;
              for (const auto& c : cands) {
                EXPECT_TRUE(std::includes(current.begin(), current.end(), c.begin(), c.end()));
                ok.push_back(c.size() >= 2 ? 1 : 0);
              }
              for (size_t i = 0; i < cands.size(); ++i)
                if (ok[i]) {
                  current = cands[i];
                  break;
                }
              return ok;
            },
            4, {});
  // Drop 0-3 (of 0-3, 4-7), drop all of 4-7 (no), drop 4-5 (of 4-5, 6-7), then nothing goes.
  EXPECT_EQ(keep, (std::vector<size_t>{6, 7}));
  EXPECT_EQ(keep, current);
  EXPECT_EQ(batch_sizes, (std::vector<size_t>{2, 1, 2, 1, 2}));
}

TEST(Ddmin, KeepsEverythingWhenNothingCanGo) {
  auto keep = ddmin(5, each([](const std::vector<size_t>& k) { return k.size() == 5; }), 2, {});
  EXPECT_EQ(keep.size(), 5u);
}

TEST(Ddmin, StopsWhenTold) {
  int tests = 0;
  auto keep = ddmin(10, each([&](const std::vector<size_t>&) {
                      ++tests;
                      return false;
                    }),
                    1, [] { return true; });
  EXPECT_EQ(tests, 0);
  EXPECT_EQ(keep.size(), 10u);
}

TEST(Oracle, RunsFollowTheRate) {
  EXPECT_EQ(runs_for_rate(0.5), 6u); // 1 + ceil(ln 0.05 / ln 0.5) = 1 + 5
  EXPECT_EQ(runs_for_rate(0.99), 2u);
  EXPECT_EQ(runs_for_rate(0.001), k_max_test_runs);
  EXPECT_EQ(runs_for_rate(0), k_max_test_runs);
}

// A folder with a stand-in compiler file, and a plan of it with every factor but the process
// fixed: what an oracle under a scripted executor needs.
struct OracleFixture {
  std::string dir = make_temp_dir("kdet-oracle-test");
  std::string lib = dir + "/libfakecc.so";
  OracleFixture() { write_file_atomic(lib, "a compiler\n"); }
  ~OracleFixture() { remove_tree(dir); }
  engine::RunPlan base() const {
    engine::RunPlan p;
    p.backend.kind = backend::Kind::nvvm;
    p.backend.lib = lib;
    p.setting.seed = 7;
    p.setting.process = perturb::ProcessMode::same;
    p.setting.heap = perturb::HeapMode::none;
    p.setting.aslr = false;
    perturb::level_of(p.setting, "pid") = perturb::Level::inherit;
    p.workers.prestart = false;
    return p;
  }
};

// The oracle is a planner: candidates tested at once share one executor. A scripted one (virtual
// clock) answers by the candidate's text: "vary" gives two outputs in turn, "same" one, "break"
// a compile error, "vary-crash" two outputs in turn and a crash at its sixth run.
// Quiet re-measuring runs keep the earlier, rarer rate rather than their floor 1 / runs.
TEST(Oracle, RateAfterAQuietMeasureStaysAtMostTheEarlierOne) {
  Measure m;
  m.runs = 16;
  EXPECT_DOUBLE_EQ(rate_after(m, 0.01), 0.01);
  EXPECT_DOUBLE_EQ(rate_after(m, 0.5), 1.0 / 16);
  m.differing = 4;
  EXPECT_DOUBLE_EQ(rate_after(m, 0.01), 0.25);
}

TEST(Oracle, TestsCandidatesAtOnceOnOneExecutor) {
  OracleFixture fx;
  using testing::FakeExecutor;
  FakeExecutor ex(
      [](const engine::CompileMessage& m, const engine::WorkerLaunch&, int) {
        FakeExecutor::Answer a;
        const std::string& in = m.request.input;
        if (in == "break") a.status = backend::Status::compile_error;
        if (in == "vary") a.output = m.run_index % 2 ? "B" : "A";
        if (in == "same") a.output = "A";
        if (in == "vary-crash") {
          a.output = m.run_index % 2 ? "B" : "A";
          if (m.run_index == 5) a.status = backend::Status::crashed;
        }
        return a;
      },
      std::chrono::milliseconds(50), fx.lib);
  Oracle oracle(fx.base(), fx.dir, ".ll", false, &ex);
  oracle.set_reference("ok", 0.5);
  auto t = oracle.interesting_all({"vary", "same", "break", "vary-crash"});
  ASSERT_EQ(t.size(), 4u);
  EXPECT_TRUE(t[0].interesting);
  ASSERT_TRUE(t[0].confirmed.has_value());
  EXPECT_EQ(t[0].confirmed->runs, k_confirm_runs);
  EXPECT_EQ(t[0].confirmed->ok_variants, 2u);
  EXPECT_FALSE(t[1].interesting);
  EXPECT_EQ(t[1].why, Rejection::stopped_varying);
  EXPECT_FALSE(t[1].confirmed.has_value());
  EXPECT_FALSE(t[2].interesting);
  EXPECT_EQ(t[2].why, Rejection::invalid);
  EXPECT_EQ(t[2].first.runs, 2u) << "a broken candidate costs two runs";
  EXPECT_EQ(describe(t[2]).rfind("invalid: a compile error in each of 2 runs", 0), 0u)
      << describe(t[2]);
  EXPECT_EQ(describe(t[1]).rfind("stopped varying: one output in ", 0), 0u) << describe(t[1]);
  EXPECT_EQ(describe(t[0]).rfind("accepted: 2 outputs in 2 runs, confirmed by 16 runs", 0), 0u)
      << describe(t[0]);
  // Two outcomes by its second run, and only the confirming runs see the crash.
  EXPECT_FALSE(t[3].interesting);
  EXPECT_EQ(t[3].why, Rejection::changed_kind);
  ASSERT_TRUE(t[3].confirmed.has_value());
  EXPECT_EQ(t[3].confirmed->kind, "crashed+ok");
  EXPECT_EQ(oracle.tests(), 4u);
  // The four first tests were in flight together, on one executor; then the two confirmations.
  EXPECT_GE(ex.most_busy(), 4);
  // Every candidate file is gone.
  size_t left = 0;
  for (const auto& e : std::filesystem::directory_iterator(fx.dir))
    left += e.path().filename().string().rfind("cand-", 0) == 0;
  EXPECT_EQ(left, 0u);
}

// A candidate the compiler refuses is invalid; one it crashes on failed: both say so, with runs.
TEST(Oracle, RefusedIsInvalidAndCrashedIsFailed) {
  OracleFixture fx;
  using testing::FakeExecutor;
  FakeExecutor ex(
      [](const engine::CompileMessage& m, const engine::WorkerLaunch&, int) {
        FakeExecutor::Answer a;
        a.output = "A";
        if (m.request.input == "refused") a.status = backend::Status::compile_error;
        if (m.request.input == "crash") a.status = backend::Status::crashed;
        return a;
      },
      std::chrono::milliseconds(50), fx.lib);
  Oracle oracle(fx.base(), fx.dir, ".ll", false, &ex);
  oracle.set_reference("ok", 0.5);
  auto t = oracle.interesting_all({"refused", "crash"});
  EXPECT_EQ(t[0].why, Rejection::invalid);
  EXPECT_EQ(t[1].why, Rejection::failed);
  EXPECT_EQ(describe(t[1]).rfind("failed: no successful compile in 2 runs (crashed)", 0), 0u)
      << describe(t[1]);
}

TEST(Oracle, AnyVarianceTakesAFailureBesideAnOutputAndConfirmsNothing) {
  OracleFixture fx;
  using testing::FakeExecutor;
  FakeExecutor ex(
      [](const engine::CompileMessage& m, const engine::WorkerLaunch&, int) {
        FakeExecutor::Answer a;
        a.output = "A";
        if (m.request.input == "flaky" && m.run_index == 1) a.status = backend::Status::crashed;
        return a;
      },
      std::chrono::milliseconds(50), fx.lib);
  Oracle oracle(fx.base(), fx.dir, ".ll", true, &ex);
  oracle.set_reference("ok", 0.5);
  auto t = oracle.interesting_all({"flaky", "steady"});
  EXPECT_TRUE(t[0].interesting);
  EXPECT_FALSE(t[0].confirmed.has_value());
  EXPECT_FALSE(t[1].interesting);
  EXPECT_EQ(t[1].why, Rejection::stopped_varying);
}

TEST(Passes, FormatFromExtension) {
  EXPECT_EQ(format_of("a/k.ll"), TextFormat::nvvm_ir);
  EXPECT_EQ(format_of("k.PTX"), TextFormat::ptx);
  EXPECT_EQ(format_of("k.cu"), TextFormat::cxx);
  EXPECT_EQ(format_of("d/k.cuh"), TextFormat::cxx);
  EXPECT_EQ(format_of("k.cpp"), TextFormat::cxx);
  EXPECT_EQ(format_of("k.txt"), TextFormat::text);
  EXPECT_EQ(format_of("k"), TextFormat::text);
}

TEST(CviseState, SharedBetweenOracleProcesses) {
  kdet::TempDir dir("reduce");
  EXPECT_THROW(read_oracle_state(dir.path()), kdet::Error);
  write_oracle_state(dir.path(), {"ok", 0.25});
  OracleState st = read_oracle_state(dir.path());
  EXPECT_EQ(st.kind, "ok");
  EXPECT_DOUBLE_EQ(st.rate, 0.25);
  // The best only ever shrinks, and each new best reaches SMALL.
  std::string small = dir.path() + "/small.cu";
  EXPECT_TRUE(offer_best(dir.path(), small, "abcdef"));
  EXPECT_FALSE(offer_best(dir.path(), small, "ghijkl"));
  EXPECT_TRUE(offer_best(dir.path(), small, "abc"));
  EXPECT_EQ(kdet::read_file(small), "abc");
  EXPECT_EQ(find_cvise("none"), "");
  EXPECT_EQ(find_cvise(dir.path() + "/no-such-cvise"), "");
}

// llvm-reduce asks again about the program it already holds before each pass, and ends at the
// first "no": a text once accepted is accepted again without a second random draw.
TEST(CviseState, AcceptedTextsAreRememberedAndTheFirstTestIsKnown) {
  kdet::TempDir dir("reduce");
  EXPECT_FALSE(any_test_recorded(dir.path()));
  EXPECT_FALSE(was_accepted(dir.path(), "define void @k() {}"));
  remember_accepted(dir.path(), "define void @k() {}");
  remember_accepted(dir.path(), "define void @j() {}");
  EXPECT_TRUE(was_accepted(dir.path(), "define void @k() {}"));
  EXPECT_TRUE(was_accepted(dir.path(), "define void @j() {}"));
  EXPECT_FALSE(was_accepted(dir.path(), "define void @k() { }")) << "by content, byte for byte";
  note_oracle_test(dir.path(), 3, Rejection::stopped_varying);
  EXPECT_TRUE(any_test_recorded(dir.path()));
}

const char* k_module = R"(target triple = "nvptx64-nvidia-cuda"
@g = internal addrspace(1) global i32 0, align 4
@unused = internal addrspace(1) global i32 0, align 4
define internal i32 @helper(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}
define void @k(i32 %n) {
entry:
  %c = icmp slt i32 %n, 4
  br i1 %c, label %a, label %b
a:
  %h = call i32 @helper(i32 %n)
  br label %b
b:
  %p = phi i32 [ %h, %a ], [ 0, %entry ]
  store volatile i32 %p, i32 addrspace(1)* @g, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}
!0 = !{void (i32)* @k, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
)";

TEST(Passes, CleanupDropsWhatNothingUses) {
  std::string out = cleanup(TextFormat::nvvm_ir, k_module);
  EXPECT_EQ(out.find("@unused"), std::string::npos);
  EXPECT_EQ(out.find("sreg.tid"), std::string::npos);
  EXPECT_NE(out.find("@g = "), std::string::npos);
  EXPECT_NE(out.find("!0 = "), std::string::npos);
}

// numba's kernel wrapper: it calls the kernel's body and only compares the status it returns,
// compares nothing reads. The compares go; the call is the kernel and stays, as an atomic
// whose old value nothing reads does.
TEST(Passes, CleanupKeepsCallsAndAtomicsWhoseValueNothingUses) {
  const char* wrapper = R"(target triple = "nvptx64-nvidia-cuda"
declare i32 @body(i8**, float, float*)
define void @k(float %a, float* %p, i32* %n) {
entry:
  %st = call i32 @body(i8** undef, float %a, float* %p)
  %ok = icmp eq i32 %st, 0
  %bad = icmp eq i32 %st, -2
  %either = or i1 %ok, %bad
  %old = atomicrmw add i32* %n, i32 1 seq_cst
  %v = load volatile float, float* %p
  %w = load float, float* %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (float, float*, i32*)* @k, !"kernel", i32 1}
)";
  std::string out = cleanup(TextFormat::nvvm_ir, wrapper);
  EXPECT_NE(out.find("%st = call i32 @body("), std::string::npos) << out;
  EXPECT_NE(out.find("declare i32 @body("), std::string::npos) << out;
  EXPECT_EQ(out.find("icmp"), std::string::npos) << out;
  EXPECT_EQ(out.find("%either"), std::string::npos) << out;
  EXPECT_NE(out.find("%old = atomicrmw"), std::string::npos) << out;
  EXPECT_NE(out.find("%v = load volatile"), std::string::npos) << out;
  EXPECT_EQ(out.find("%w = load float"), std::string::npos) << out;
}

TEST(Passes, DeletedFunctionBecomesADeclarationAndItsAnnotationGoes) {
  Split s = pass_named("ll-functions").split(k_module);
  ASSERT_EQ(s.chunks, 2u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {0})); // drop @k, keep @helper
  EXPECT_EQ(out.find("define void @k"), std::string::npos);
  EXPECT_EQ(out.find("nvvm.annotations"), std::string::npos) << out;
  EXPECT_EQ(out.find("!0 = "), std::string::npos);
  EXPECT_NE(out.find("!nvvmir.version"), std::string::npos);
  // @helper is called by nothing now, but a definition stays until a pass drops it.
  out = cleanup(TextFormat::nvvm_ir, render(s, {1})); // drop @helper: @k calls a declaration
  EXPECT_NE(out.find("declare i32 @helper(i32)"), std::string::npos) << out;
}

TEST(Passes, BranchMadeUnconditionalDropsTheBlockAndPhiEntry) {
  Split s = pass_named("ll-branches").split(k_module);
  ASSERT_EQ(s.chunks, 1u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {}));
  EXPECT_NE(out.find("br label %b"), std::string::npos);
  EXPECT_EQ(out.find("\na:"), std::string::npos) << out;
  EXPECT_NE(out.find("%p = phi i32 [ 0, %entry ]\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("%c = icmp"), std::string::npos) << "dead compare stays";
  EXPECT_EQ(out.find("declare i32 @helper"), std::string::npos);
}

TEST(Passes, GeneratedKernelReducesToAValidShape) {
  corpus::KernelSpec spec;
  spec.instructions = corpus::k_medium_instructions;
  std::string text = corpus::generate_kernel(spec).text;
  // Dropping every store and void call leaves no effect: cleanup removes the computation.
  Split s = pass_named("ll-instructions").split(text);
  ASSERT_GT(s.chunks, 0u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {}));
  EXPECT_LT(out.size(), text.size() * 3 / 4); // loops keep their phis
  EXPECT_EQ(out.find("store "), std::string::npos);
  EXPECT_NE(out.find("ret void"), std::string::npos);
}

TEST(Passes, PtxEntriesAndLines) {
  const char* ptx = ".version 8.0\n.target sm_90\n.visible .entry a()\n{\n  ret;\n}\n"
                    ".visible .entry b()\n{\n  mov.u32 %r1, 1;\n  ret;\n}\n";
  Split f = pass_named("ptx-functions").split(ptx);
  ASSERT_EQ(f.chunks, 2u);
  std::string out = render(f, {1});
  EXPECT_EQ(out.find("entry a"), std::string::npos);
  EXPECT_NE(out.find("entry b"), std::string::npos);
  Split l = pass_named("ptx-lines").split(ptx);
  EXPECT_EQ(l.chunks, 3u); // the three instruction lines
}

// PTX as LLVM's NVPTX back end writes it with debug info: `.file` directives, declarations with
// initializers, and `.section` blocks opened by an indented `{` (or all on one line).
const char* const k_debug_ptx =
    "//\n// Generated by LLVM NVPTX Back-End\n//\n.version 9.0\n.target sm_90a\n"
    ".address_size 64\n.global .align 1 .b8 _$_str[3] = {95, 67, 0};\n"
    ".visible .entry k()\n{\n  ret;\n}\n"
    "\t.file\t1 \"/src/triton_per_fused_softmax_add_exp_mul_sub_sum_2.py\"\n"
    "\t.section\t.debug_abbrev\n\t{\n.b8 1 // Abbreviation Code\n.b8 0\n\t}\n"
    "\t.section\t.debug_macinfo\t{\t}\n";

TEST(Passes, PtxSectionsAreBlocks) {
  Split s = pass_named("ptx-sections").split(k_debug_ptx);
  ASSERT_EQ(s.chunks, 2u);
  std::string out = render(s, {1}); // the chunks kept
  EXPECT_EQ(out.find(".debug_abbrev"), std::string::npos);
  EXPECT_EQ(out.find(".b8 1"), std::string::npos);
  EXPECT_NE(out.find(".debug_macinfo"), std::string::npos);
  EXPECT_NE(out.find("ret;"), std::string::npos);
}

TEST(Passes, PtxDeclsAreTopLevelLinesButTheHeader) {
  Split d = pass_named("ptx-decls").split(k_debug_ptx);
  // the three comment lines, the .global with its initializer and the .file; not .version,
  // .target, .address_size, the entry's lines, nor a section's
  EXPECT_EQ(d.chunks, 5u);
  std::string out = render(d, {});
  for (const char* kept : {".version", ".target", ".address_size", "ret;", ".b8 1", "{\t}"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept;
  EXPECT_EQ(out.find(".file"), std::string::npos);
  EXPECT_EQ(out.find("_$_str"), std::string::npos);
}

TEST(Names, PtxFilePathsAreNotRenamed) {
  const std::string ptx = std::string(k_debug_ptx) +
                          ".visible .entry triton_per_fused_softmax_add_exp_mul_sub_sum_2()\n"
                          "{\n  ret;\n}\n";
  auto renames = long_names(TextFormat::ptx, ptx);
  ASSERT_EQ(renames.size(), 1u);
  std::string out = apply_renames(TextFormat::ptx, ptx, renames);
  EXPECT_NE(out.find("\"/src/triton_per_fused_softmax_add_exp_mul_sub_sum_2.py\""),
            std::string::npos);
  EXPECT_NE(out.find(".entry " + renames[0].to + "()"), std::string::npos);
  EXPECT_EQ(out.find(".entry triton_per_fused_softmax"), std::string::npos);
}

} // namespace
} // namespace kdet::reduce

namespace kdet::reduce {

TEST(ReduceSession, PercentSmaller) {
  EXPECT_DOUBLE_EQ(percent_smaller(200, 50), 75.0);
  EXPECT_DOUBLE_EQ(percent_smaller(100, 100), 0.0);
  EXPECT_DOUBLE_EQ(percent_smaller(0, 0), 100.0) << "an empty original counts as one byte";
}

TEST(ReduceRepro, TheReproFolderMustBeARealFolderOrAbsent) {
  TempDir dir("kdet-repro-test");
  std::string d = dir.path();
  EXPECT_NO_THROW(check_repro_dir(d + "/absent.repro"));
  make_dirs(d + "/real.repro");
  EXPECT_NO_THROW(check_repro_dir(d + "/real.repro"));
  write_file_atomic(d + "/file.repro", "x");
  EXPECT_THROW(check_repro_dir(d + "/file.repro"), Error);
  ASSERT_EQ(::symlink(d.c_str(), (d + "/link.repro").c_str()), 0);
  try {
    check_repro_dir(d + "/link.repro");
    FAIL() << "a link to a folder is refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("-o: " + d + "/link.repro exists and is not a folder"),
              std::string::npos)
        << e.what();
  }
}

// The reproducer of a reduction on the fake libNVVM's echo mode (one output: no diff).
TEST(ReduceRepro, WritesTheInputTheRunsAndTheReadme) {
  std::signal(SIGPIPE, SIG_IGN);
  TempDir dir("kdet-repro-test");
  std::string d = dir.path();
  write_file_atomic(d + "/k.ll", std::string(100, 'x'));
  const char* exe = std::getenv("KDET_EXE");
  const char* fakes = std::getenv("KDET_FAKES_DIR");
  engine::RunPlan plan;
  plan.workers.exe = exe ? exe : KDET_EXE_PATH;
  plan.backend.kind = backend::Kind::nvvm;
  plan.backend.lib = std::string(fakes ? fakes : KDET_FAKES_PATH) + "/libfakenvvm.so";
  plan.input_path = d + "/k.ll";
  plan.options = {"-fake-mode=echo"};
  plan.timeout = std::chrono::seconds(20);
  plan.setting.seed = 42;
  ReduceResult r;
  r.text = "tiny\n";
  r.original_bytes = 100;
  ReproOptions o;
  o.out = d + "/small.ll";
  o.final_runs = 3;
  o.run_command = "kdet run small.ll --runs 3";
  o.render.result = [](const engine::RunOutput& out, const engine::Assessment& a,
                       const std::string& hash) {
    return nlohmann::json{{"hash", hash}, {"runs", a.runs}, {"variants", out.variants.size()}};
  };
  o.render.record = [](const engine::RunRecord& rec) { return nlohmann::json{{"i", rec.index}}; };
  write_repro(o, plan, r);

  std::string repro = d + "/small.ll.repro";
  EXPECT_EQ(read_file(repro + "/small.ll"), "tiny\n");
  auto result = nlohmann::json::parse(read_file(repro + "/run/result.json"));
  EXPECT_EQ(result["hash"], hash_bytes("tiny\n")) << "the reduced text's hash, not the input's";
  EXPECT_EQ(result["runs"], 3u);
  EXPECT_EQ(result["variants"], 1u);
  std::string runs = read_file(repro + "/run/runs.jsonl");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 3) << runs;
  std::string readme = read_file(repro + "/README.md");
  EXPECT_NE(readme.find("```sh\nkdet run small.ll --runs 3\n```"), std::string::npos) << readme;
  EXPECT_NE(readme.find("(5 bytes, reduced by kdet reduce from 100 bytes)"), std::string::npos);
  EXPECT_NE(readme.find("3 runs, 0 differing"), std::string::npos) << readme;
  EXPECT_NE(readme.find("fewer than two successful variants"), std::string::npos);
  EXPECT_NE(access((repro + "/diff.txt").c_str(), F_OK), 0) << "one variant: no diff";
}

} // namespace kdet::reduce

// The final runs of a reduced input: enough for its rate to show a second outcome (99 %), within
// [floor, 8 x floor].
TEST(ReduceRepro, FinalRunsFollowTheRate) {
  EXPECT_EQ(kdet::reduce::final_runs_for(0.5, 64), 64u);    // 10 would do; the floor holds
  EXPECT_EQ(kdet::reduce::final_runs_for(0.03, 32), 154u);  // ceil(4.6 / 0.03)
  EXPECT_EQ(kdet::reduce::final_runs_for(0.001, 16), 128u); // 4,600 capped at 8 x 16
  EXPECT_EQ(kdet::reduce::final_runs_for(0, 16), 16u);      // no rate known
}
