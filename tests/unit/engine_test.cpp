// Outcome ids and verdicts, without starting any compiler.
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
