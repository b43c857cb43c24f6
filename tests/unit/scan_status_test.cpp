//===- scan_status_test.cpp - job statuses, exit code, summary order -----------===//
#include "kdet/report/scan_report.hpp"
#include "kdet/scan/status.hpp"

#include <gtest/gtest.h>

namespace kdet {
namespace {

store::JobRow make_job(const std::string& input, std::vector<uint64_t> counts, bool ok = true,
                       bool expected = false) {
  store::JobRow j;
  j.id = "id-" + input;
  j.input = input;
  j.compiler = "cc";
  j.option_set = "default";
  for (size_t i = 0; i < counts.size(); ++i) {
    j.variants.push_back({"v" + std::to_string(i),
                          counts[i],
                          0,
                          ok ? "ok" : "crashed",
                          ok ? "" : "signal 11",
                          {},
                          ""});
    j.runs += counts[i];
  }
  j.ok_runs = ok ? j.runs : 0;
  j.done = true;
  j.expected_vary = expected;
  j.expect_reason = expected ? "known" : "";
  return j;
}

TEST(ScanStatus, ExpectedButQuietNeedsABoundBelowTheExpectedRate) {
  // 12 quiet runs bound the rate only below ~22%: not evidence that a 5% variance stopped.
  auto few = make_job("few.ll", {12}, true, true);
  EXPECT_GT(few.upper_bound(), 0.2);
  EXPECT_EQ(scan::job_status(few, 0.05), scan::JobStatus::not_seen);
  // 59 quiet runs bound it below 5%: the expectation is stale.
  auto many = make_job("many.ll", {59}, true, true);
  EXPECT_LT(many.upper_bound(), 0.05);
  EXPECT_EQ(scan::job_status(many, 0.05), scan::JobStatus::no_longer_nondeterministic);
  // The same 59 runs say nothing against an expected rate of 1%.
  EXPECT_EQ(scan::job_status(many, 0.01), scan::JobStatus::not_seen);
}

TEST(ScanStatus, ExpectedRateComesFromTheManifestBudget) {
  store::ScanResult r;
  EXPECT_DOUBLE_EQ(scan::expected_rate(r), scan::k_default_expected_rate);
  r.meta["target_rate"] = "0.01";
  EXPECT_DOUBLE_EQ(scan::expected_rate(r), 0.01);
  r.meta["target_rate"] = "nan";
  EXPECT_DOUBLE_EQ(scan::expected_rate(r), scan::k_default_expected_rate);
}

TEST(ScanStatus, ExitCodePrecedence) {
  store::ScanResult r;
  r.jobs.push_back(make_job("det.ll", {30}));
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 0);
  r.jobs.push_back(make_job("quiet.ll", {12}, true, true)); // not seen: no failure
  EXPECT_EQ(scan::count(r).not_seen, 1u);
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 0);
  r.jobs.push_back(make_job("broken.ll", {8}, false)); // failed on every run
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 3);
  r.jobs.push_back(make_job("var.ll", {5, 3})); // unexpected variance wins over failures
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 1);
}

TEST(ScanStatus, NotSeenIsSkippedInJUnitNotFailed) {
  store::ScanResult r;
  r.jobs.push_back(make_job("quiet.ll", {12}, true, true));
  std::string x = report::scan_to_junit(r);
  EXPECT_NE(x.find("failures=\"0\""), std::string::npos) << x;
  EXPECT_NE(x.find("not seen in 12 runs"), std::string::npos) << x;
  EXPECT_EQ(x.find("<failure"), std::string::npos) << x;
  auto j = report::scan_to_json(r);
  EXPECT_EQ(j["jobs"][0]["status"], "not-seen");
  EXPECT_EQ(j["summary"]["exit_code"], 0);
}

TEST(ScanStatus, SummaryListsEveryUnexpectedJobBeforeTheRest) {
  store::ScanResult r;
  // 40 expected varying jobs sort before the unexpected ones by name; 20 unexpected follow.
  for (int i = 0; i < 40; ++i)
    r.jobs.push_back(make_job("a" + std::to_string(100 + i) + ".ll", {5, 5}, true, true));
  for (int i = 0; i < 20; ++i)
    r.jobs.push_back(make_job("z" + std::to_string(100 + i) + ".ll", {5, 5}));
  r.jobs.push_back(make_job("m-broken.ll", {4}, false));
  std::string t = report::scan_to_text(r, {false, 10, false, k_name_width});
  for (int i = 0; i < 20; ++i)
    EXPECT_NE(t.find("z" + std::to_string(100 + i) + ".ll"), std::string::npos) << t;
  size_t first_unexpected = t.find("NONDETERMINISTIC  ");
  size_t first_expected = t.find("expected          a");
  ASSERT_NE(first_unexpected, std::string::npos);
  ASSERT_NE(first_expected, std::string::npos);
  EXPECT_LT(first_unexpected, first_expected);
  EXPECT_LT(t.find("FAILED            m-broken.ll"), first_expected);
  EXPECT_NE(t.find("... and 30 more expected jobs"), std::string::npos) << t;
  EXPECT_LT(t.find("unexpected:    20"), first_unexpected);
}

// One word for "more than one outcome" in every status, key and label kdet.scan/2 and
// kdet.compare/2 write (kdet.scan/1 said varies, varies-expected, no-longer-varies, varying,
// varies-both, b_varies and a_varied).
TEST(ScanStatus, EveryDocumentSaysNondeterministic) {
  store::ScanResult r;
  r.jobs.push_back(make_job("var.ll", {5, 3}));
  r.jobs.push_back(make_job("exp.ll", {5, 3}, true, true));
  r.jobs.push_back(make_job("gone.ll", {100}, true, true));
  auto j = report::scan_to_json(r);
  EXPECT_EQ(j["schema"], "kdet.scan/2");
  std::vector<std::string> st;
  for (const auto& job : j["jobs"])
    st.push_back(job["status"]);
  EXPECT_EQ(st, (std::vector<std::string>{"nondeterministic", "nondeterministic-expected",
                                          "no-longer-nondeterministic"}));
  EXPECT_EQ(j["summary"]["nondeterministic"], 2);
  EXPECT_EQ(j["summary"]["no_longer_nondeterministic"], 1);
  EXPECT_EQ(j["summary"]["by_compiler"]["cc"]["nondeterministic"], 2);
  std::string junit = report::scan_to_junit(r);
  EXPECT_NE(junit.find("type=\"no-longer-nondeterministic\""), std::string::npos) << junit;
  // A second compiler that still varies where the first did: nondeterministic-both.
  store::ScanResult two = r;
  two.compilers = {{"cc", "nvvm", "", "", ""}, {"cc2", "nvvm", "", "", ""}};
  for (auto job : r.jobs) {
    job.compiler = "cc2";
    job.id += "-2";
    two.jobs.push_back(job);
  }
  two.jobs.pop_back();
  two.jobs.pop_back();
  auto cmps = report::compare_compilers(two);
  ASSERT_FALSE(cmps.empty());
  auto c = report::comparison_to_json(cmps.front());
  EXPECT_EQ(c["schema"], "kdet.compare/2");
  EXPECT_EQ(c["counts"]["nondeterministic-both"], 1);
  EXPECT_EQ(c["answers"]["b_nondeterministic"], 1);
  EXPECT_EQ(c["answers"]["a_nondeterministic"], 1);
  for (const std::string& doc : {j.dump(), c.dump(), junit, report::scan_to_text(r, {})})
    for (const char* old : {"\"varies", "varies\"", "-varies", "varies-", "\"varying\"", "VARIES",
                            "_varies", "a_varied"})
      EXPECT_EQ(doc.find(old), std::string::npos) << old << " in " << doc;
}

} // namespace
// A failed job whose compiler said `log` (a ptxas too old for its PTX, or another way).
store::JobRow failed_job(const std::string& input, const std::string& compiler,
                         const std::string& log) {
  store::JobRow j = make_job(input, {3}, false);
  j.compiler = compiler;
  j.variants.front().status = "compile-error";
  j.variants.front().detail = "/opt/cuda/bin/ptxas exited 255";
  j.variants.front().log = log;
  return j;
}

TEST(ScanFailures, IdenticalFailuresAreOneGroupWhateverThePathOrLine) {
  store::ScanResult r;
  for (int i = 0; i < 5; ++i)
    r.jobs.push_back(
        failed_job("k" + std::to_string(i) + ".ptx", "ptxas",
                   "ptxas /tmp/kdet-run-" + std::to_string(i) + "/work/k" + std::to_string(i) +
                       ".ptx, line " + std::to_string(3 + i) +
                       "; fatal   : Unsupported .version 9.0; current version is '8.5'\n"
                       "ptxas fatal   : Ptx assembly aborted due to errors\n"));
  r.jobs.push_back(failed_job("other.ptx", "ptxas", "ptxas fatal : Out of memory\n"));
  r.jobs.push_back(failed_job("k9.ptx", "ptxas-12",
                              "ptxas /a/k9.ptx, line 1; fatal   : "
                              "Unsupported .version 9.0; current version "
                              "is '8.5'\n"));
  r.jobs.push_back(make_job("fine.ptx", {3}));
  auto groups = scan::group_failures(r);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].jobs.size(), 5u); // the largest first
  EXPECT_EQ(groups[0].compiler, "ptxas");
  EXPECT_EQ(groups[0].message,
            "ptxas <file>, line N; fatal : Unsupported .version 9.0; current version is '8.5'");
  EXPECT_EQ(scan::describe(groups[0]),
            "compile-error: /opt/cuda/bin/ptxas exited 255: " + groups[0].message);
  // Ties keep the order of their first job; another compiler is another group.
  EXPECT_EQ(groups[1].jobs.front()->input, "other.ptx");
  EXPECT_EQ(groups[1].message, "ptxas fatal : Out of memory");
  EXPECT_EQ(groups[2].compiler, "ptxas-12");

  std::string t = report::failures_to_text(groups, {});
  EXPECT_NE(t.find("FAILED            5 jobs on ptxas: compile-error: /opt/cuda/bin/ptxas "
                   "exited 255: ptxas <file>, line N; fatal : Unsupported .version 9.0"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("k3.ptx"), std::string::npos) << t; // listed only on demand
  EXPECT_NE(t.find("FAILED            other.ptx ptxas default  (every one of 3 runs"),
            std::string::npos)
      << t;
  std::string listed = report::failures_to_text(groups, {false, 30, true, k_name_width});
  for (int i = 0; i < 5; ++i)
    EXPECT_NE(listed.find("k" + std::to_string(i) + ".ptx ptxas default\n"), std::string::npos)
        << listed;
}

TEST(ScanFailures, NoLogFallsBackToKdetsDescription) {
  store::ScanResult r;
  r.jobs.push_back(make_job("a.ll", {2}, false));
  r.jobs.push_back(make_job("b.ll", {2}, false));
  auto groups = scan::group_failures(r);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].message, "");
  EXPECT_EQ(scan::describe(groups[0]), "crashed: signal 11");
}

} // namespace kdet
