// Outcome ids and verdicts, without starting any compiler.
#include "kdet/engine/compiler_log.hpp"
#include "kdet/engine/differences.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"
#include "kdet/perturb/setting.hpp"
#include "kdet/util/error.hpp"

#include <gtest/gtest.h>

using namespace kdet;
using namespace kdet::engine;

namespace {
RunOutput output_with(std::vector<std::pair<uint64_t, backend::Status>> variants) {
  RunOutput out;
  uint64_t total = 0;
  for (auto& [count, status] : variants) {
    Variant v;
    v.id = std::to_string(out.variants.size());
    v.count = count;
    v.status = status;
    out.variants.push_back(v);
    for (uint64_t i = 0; i < count; ++i) {
      RunRecord r;
      r.done = true;
      r.status = status;
      out.records.push_back(r);
    }
    total += count;
  }
  out.completed = total;
  out.plan.runs = total;
  return out;
}
} // namespace

TEST(OutcomeId, DependsOnArtifactsAndStatusOnly) {
  backend::CompileResult a, b;
  a.status = b.status = backend::Status::ok;
  a.artifacts = {{"ptx", "x"}};
  b.artifacts = {{"ptx", "x"}};
  a.log = "different logs do not make a different outcome";
  EXPECT_EQ(outcome_id(a), outcome_id(b));
  b.artifacts = {{"ptx", "y"}};
  EXPECT_NE(outcome_id(a), outcome_id(b));
  backend::CompileResult crash;
  crash.status = backend::Status::crashed;
  crash.signal = 11;
  backend::CompileResult abrt = crash;
  abrt.signal = 6;
  EXPECT_NE(outcome_id(crash), outcome_id(abrt));
}

TEST(Verdict, DeterministicNondeterministicFailed) {
  auto a = assess(output_with({{32, backend::Status::ok}}));
  EXPECT_EQ(a.verdict, Verdict::deterministic);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_NEAR(a.upper_bound, 0.0894, 1e-3);

  a = assess(output_with({{338, backend::Status::ok}, {22, backend::Status::ok}}));
  EXPECT_EQ(a.verdict, Verdict::nondeterministic);
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_EQ(a.differing, 22u);

  // Success in some runs and a crash in others is nondeterminism too.
  a = assess(output_with({{9, backend::Status::ok}, {1, backend::Status::crashed}}));
  EXPECT_EQ(a.verdict, Verdict::nondeterministic);

  a = assess(output_with({{5, backend::Status::crashed}, {3, backend::Status::timed_out}}));
  EXPECT_EQ(a.verdict, Verdict::failed);
  EXPECT_EQ(a.exit_code, 3);
}

// kdet's own errors (infra-error) are kept as a variant but are no outcome of the compiler: the
// verdict, rate and bound are over the other runs, and the most common outcome is the
// compiler's even when kdet's errors outnumber it.
TEST(Verdict, KdetsOwnErrorsAreNoOutcome) {
  auto a = assess(output_with({{30, backend::Status::ok}, {2, backend::Status::infra_error}}));
  EXPECT_EQ(a.verdict, Verdict::deterministic);
  EXPECT_EQ(a.runs, 30u);
  EXPECT_EQ(a.kdet_errors, 2u);
  EXPECT_EQ(a.outcomes, 1u);
  EXPECT_EQ(a.differing, 0u);
  EXPECT_DOUBLE_EQ(a.upper_bound, stats::upper_bound(0, 30, a.confidence));

  a = assess(output_with({{6, backend::Status::infra_error},
                          {3, backend::Status::ok},
                          {1, backend::Status::crashed}}));
  EXPECT_EQ(a.verdict, Verdict::nondeterministic);
  EXPECT_EQ(a.runs, 4u);
  EXPECT_EQ(a.outcomes, 2u);
  EXPECT_EQ(a.differing, 1u);
  EXPECT_DOUBLE_EQ(a.rate, 0.25);

  a = assess(output_with({{4, backend::Status::infra_error}}));
  EXPECT_EQ(a.verdict, Verdict::failed);
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_EQ(a.runs, 0u);
  EXPECT_EQ(a.differing, 0u);
}

// One enum for run, explain and scan: one spelling each, the JSON documents' own.
TEST(Verdict, OneSpellingForRunExplainAndScan) {
  EXPECT_STREQ(to_string(Verdict::deterministic), "deterministic");
  EXPECT_STREQ(to_string(Verdict::nondeterministic), "nondeterministic");
  EXPECT_STREQ(to_string(Verdict::failed), "failed");
  EXPECT_STREQ(to_string(Verdict::no_runs), "no-runs");
  EXPECT_STREQ(to_string(Verdict::none), "none");
  EXPECT_STREQ(to_string(Verdict::explained), "explained");
  EXPECT_STREQ(to_string(Verdict::inconclusive), "inconclusive");
}

TEST(Setting, ParsesAndRejectsWithTheOptionName) {
  EXPECT_EQ(perturb::parse_process("fresh", "--process"), perturb::ProcessMode::fresh);
  try {
    perturb::parse_heap("lots", "--heap");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--heap"), std::string::npos);
    EXPECT_EQ(e.exit_code(), 2);
  }
  perturb::Setting s;
  s.process = perturb::ProcessMode::fresh;
  s.heap = perturb::HeapMode::none;
  s.aslr = false;
  EXPECT_TRUE(perturb::all_fixed(s));
  s.threads = 1;
  EXPECT_FALSE(perturb::all_fixed(s));
}

// engine::describe: the one description of how two variants differ (kdet run and the cache).
TEST(EngineDescribe, IdenticalArtifactsSayIdentical) {
  std::vector<backend::Artifact> a = {{"ptx", "same bytes"}}, b = {{"ptx", "same bytes"}};
  EXPECT_EQ(engine::describe(a, b), "identical");
}

TEST(EngineDescribe, NamesArtifactsOfOneSideOnly) {
  std::vector<backend::Artifact> a = {{"ptx", "x"}, {"log", "l"}},
                                 b = {{"ptx", "x"}, {"cubin", "c"}};
  EXPECT_EQ(engine::describe(a, b), "cubin: only in this variant; log: missing in this variant");
}

TEST(EngineDescribe, ComparesBytesWhenNoHashIsKnown) {
  // Artifacts handed in through the C API carry bytes but no hash: equal sizes must not pass
  // for equal content.
  std::vector<backend::Artifact> a = {{"output", "aaaa"}}, b = {{"output", "abab"}};
  std::string d = engine::describe(a, b);
  EXPECT_EQ(d.rfind("output: ", 0), 0u) << d;
  EXPECT_NE(d, "identical");
}

TEST(EngineDescribe, SameHashIsSameContent) {
  backend::Artifact x{"ptx", "one"}, y{"ptx", "one"};
  x.hash = y.hash = "h";
  x.size = y.size = 3;
  EXPECT_EQ(engine::describe({x}, {y}), "identical");
}

TEST(EngineDescribe, ClassifiesPtxWithKdetDiff) {
  std::string p1 = ".version 8.0\n.target sm_80\n.address_size 64\n"
                   ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 1;\n\tret;\n}\n";
  std::string p2 = p1;
  p2.replace(p2.find("%r1, 1"), 6, "%r1, 2");
  std::string d = engine::describe({{"ptx", p1}}, {{"ptx", p2}});
  EXPECT_EQ(d.rfind("ptx: ", 0), 0u) << d;
  EXPECT_NE(d.find("code"), std::string::npos) << d;
}

TEST(CompilerLog, FirstErrorLineIsTheLineThatSaysError) {
  EXPECT_EQ(first_error_line("ptxas info    : 0 bytes gmem\nptxas x.ptx, line 5; fatal   : "
                             "Unsupported .version 9.0\nptxas fatal : aborted\n"),
            "ptxas x.ptx, line 5; fatal   : Unsupported .version 9.0");
  EXPECT_EQ(first_error_line("\n  \n<input>(3): ERROR: bad type\n"), "<input>(3): ERROR: bad type");
  // No line says error: the first visible one.
  EXPECT_EQ(first_error_line("\n   warning: slow\nsomething else\n"), "warning: slow");
  EXPECT_EQ(first_error_line(" \n\t\n"), "");
  EXPECT_EQ(first_error_line(std::string(1000, 'e') + "rror").size(), 300u);
}

TEST(CompilerLog, GenericFailureDropsPathsAndLineNumbers) {
  EXPECT_EQ(generic_failure("ptxas /tmp/kdet-run-1/s3/k.ptx, line 17; fatal   : Unsupported "
                            ".version 9.0; current version is '8.5'"),
            "ptxas <file>, line N; fatal : Unsupported .version 9.0; current version is '8.5'");
  EXPECT_EQ(generic_failure("cannot open '/a/b c': No such file"), "cannot open '<file> c': No "
                                                                   "such file");
  // A slash inside a word is no path; versions and other numbers stay.
  EXPECT_EQ(generic_failure("sm_90a/compute_90 at 12.4 online"),
            "sm_90a/compute_90 at 12.4 online");
}
