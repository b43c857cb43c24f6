// scan/scheduler: the rounds of a job, the stop at a second variant and the budget, with
// scripted outcomes in place of a compiler (ScheduleOptions::execute).
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <set>

using namespace kdet;

namespace {

class ScanSchedulerTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-scheduler-test");
    write_file_atomic(m_dir + "/det.ll", "; det\n");
    write_file_atomic(m_dir + "/vary.ll", "; vary\n");
    write_file_atomic(m_dir + "/libfake.so", "not a library: the scripted runs never load it");
  }
  void TearDown() override { remove_tree(m_dir); }

  // Runs the manifest's jobs with `outcome(input name, run index)` as each run's variant.
  // Returns the jobs' final rows by input name; `rounds` gets each round's (input, runs).
  std::map<std::string, store::JobRow>
  run(const std::string& budget,
      const std::function<std::string(const std::string&, uint64_t)>& outcome,
      std::vector<std::pair<std::string, uint64_t>>& rounds) {
    const std::string text = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                             "\"nvvm\"\nlib = \"libfake.so\"\n[budget]\n" +
                             budget;
    write_file_atomic(m_dir + "/m.toml", text);
    scan::Manifest m = scan::parse_manifest(text, m_dir + "/m.toml");
    auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
    std::map<std::string, store::JobRow> state;
    std::map<std::string, std::string> name_of;
    for (const auto& j : jobs) {
      state[j.id] = scan::initial_row(m, j);
      name_of[j.input->path] = j.input->name;
    }
    store::ScanDb db(m_dir + "/s.db");
    std::mutex mu;
    std::map<std::string, uint64_t> done_before; // a job's runs in its earlier rounds
    scan::ScheduleOptions opt;
    opt.threads = 2;
    opt.execute = [&](const engine::RunPlan& plan) {
      const std::string name = name_of.at(plan.input_path);
      uint64_t offset;
      {
        std::lock_guard<std::mutex> lock(mu);
        rounds.emplace_back(name, plan.runs);
        offset = done_before[name];
      }
      engine::RunOutput out;
      out.plan = plan;
      out.identity.version = "scripted";
      std::map<std::string, engine::Variant> seen;
      for (uint64_t i = plan.first_index; i < plan.runs; ++i) {
        engine::RunRecord r;
        r.index = i;
        r.status = backend::Status::ok;
        r.variant = outcome(name, offset + i);
        r.done = true;
        auto& v = seen[r.variant];
        if (v.count++ == 0) v.id = r.variant, v.first_run = i;
        out.records.push_back(r);
        ++out.completed;
        if (seen.size() >= plan.stop_at_outcomes) {
          out.stopped_early = true;
          break;
        }
      }
      for (auto& [id, v] : seen)
        out.variants.push_back(v);
      {
        std::lock_guard<std::mutex> lock(mu);
        done_before[name] += out.completed;
      }
      std::sort(out.variants.begin(), out.variants.end(),
                [](const auto& a, const auto& b) { return a.count > b.count; });
      return out;
    };
    {
      store::ScanWriter writer(db);
      scan::ScheduleStats st = scan::run_jobs(m, jobs, state, writer, opt);
      EXPECT_TRUE(st.errors.empty());
      EXPECT_EQ(st.jobs_finished, jobs.size());
    }
    std::map<std::string, store::JobRow> by_name;
    for (const auto& [id, row] : state)
      by_name[row.input] = row;
    return by_name;
  }

  std::string m_dir;
};

} // namespace

TEST_F(ScanSchedulerTest, RoundsDoubleUpToTheCapAndStopAtTheBudgetOrASecondVariant) {
  std::vector<std::pair<std::string, uint64_t>> rounds;
  // Deterministic job: every run "A". Varying job: run 13 (in the second round) differs.
  auto rows = run(
      "max_runs = 60\nfirst_round = 4\nmax_round = 16\n",
      [](const std::string& name, uint64_t i) { return name == "vary.ll" && i == 13 ? "B" : "A"; },
      rounds);
  std::vector<uint64_t> det, vary;
  for (const auto& [name, n] : rounds)
    (name == "det.ll" ? det : vary).push_back(n);
  EXPECT_EQ(det, (std::vector<uint64_t>{4, 8, 16, 16, 16})) << "4, doubling, capped at 16, to 60";
  EXPECT_EQ(rows["det.ll"].runs, 60u);
  EXPECT_TRUE(rows["det.ll"].done);
  EXPECT_FALSE(rows["det.ll"].varies());
  // The second round covers runs 4..11, the third 12..27: run 13 is the second variant.
  EXPECT_EQ(vary, (std::vector<uint64_t>{4, 8, 16}));
  EXPECT_TRUE(rows["vary.ll"].done);
  EXPECT_TRUE(rows["vary.ll"].varies());
  EXPECT_EQ(rows["vary.ll"].runs, 14u) << "the round stops at the second outcome";
  EXPECT_EQ(rows["vary.ll"].variants.size(), 2u);
}

TEST_F(ScanSchedulerTest, ACompilerThatCannotLoadIsNamedOnceAndItsJobsStayOpen) {
  const std::string text = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                           "\"nvvm\"\nlib = \"libfake.so\"\n";
  scan::Manifest m = scan::parse_manifest(text, m_dir + "/m.toml");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  std::map<std::string, store::JobRow> state;
  for (const auto& j : jobs)
    state[j.id] = scan::initial_row(m, j);
  store::ScanDb db(m_dir + "/s.db");
  scan::ScheduleOptions opt;
  int calls = 0;
  opt.execute = [&](const engine::RunPlan&) -> engine::RunOutput {
    ++calls;
    throw Error("cannot load the nvvm compiler: not a library");
  };
  store::ScanWriter writer(db);
  scan::ScheduleStats st = scan::run_jobs(m, jobs, state, writer, opt);
  ASSERT_EQ(st.errors.size(), 1u);
  EXPECT_NE(st.errors[0].find("compiler 'c': cannot load"), std::string::npos) << st.errors[0];
  EXPECT_EQ(calls, 1) << "the second job of a broken compiler is not tried";
  EXPECT_EQ(st.jobs_finished, 0u);
  for (const auto& [id, row] : state)
    EXPECT_FALSE(row.done);
}
