// scan/scheduler: the rounds of a job, the stop at a second variant and the budget, the order of
// rounds, split rounds and the slots they are given, against a scripted executor with a virtual
// clock (fake_executor.hpp): each run's outcome and compile time are functions of its input and
// run index, and what happens first is decided by virtual time, with no thread, latch or sleep.
#include "fake_executor.hpp"
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

using namespace kdet;
using kdet::testing::FakeExecutor;
using std::chrono::milliseconds;

namespace {

// One compile the scripted compiler made: the job's input name, its round's first run and its
// run index in the job, when it was sent and when it ended (virtual ms), and the compiles its
// worker made before it.
struct Compile {
  std::string input;
  uint64_t round = 0, run = 0;
  long long at = 0, end = 0;
  int before = 0;
};

// What each run gives and how long it takes, by input name and run index in the job (a
// compiler driven by the seed alone gives the same answer in any slot, at any time).
struct Script {
  std::function<std::string(const std::string&, uint64_t)> outcome = [](const std::string&,
                                                                        uint64_t) { return "A"; };
  std::function<long long(const std::string&, uint64_t)> takes = [](const std::string&, uint64_t) {
    return 10;
  };
  std::chrono::milliseconds start{50}; // a worker's start
  // Called as each compile is sent, with the executor (to interrupt at a virtual time).
  std::function<void(FakeExecutor&, const Compile&)> on_compile;
};

struct ScanResult {
  std::map<std::string, store::JobRow> rows; // by input name
  scan::ScheduleStats stats;
  std::vector<Compile> compiles; // in the order they were sent
  std::vector<scan::ScanProgress> progress;
  int most_busy = 0;

  // Each job's rounds (their first runs), in the order their first compile was sent.
  std::vector<std::pair<std::string, uint64_t>> rounds() const {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const auto& c : compiles)
      if (std::find(out.begin(), out.end(), std::pair{c.input, c.round}) == out.end())
        out.emplace_back(c.input, c.round);
    return out;
  }
  std::vector<uint64_t> rounds_of(const std::string& input) const {
    std::vector<uint64_t> out;
    for (const auto& [name, first] : rounds())
      if (name == input) out.push_back(first);
    return out;
  }
};

// A manifest over the .ll files `inputs` (name, text) written in a new `dir` beside a fake
// library (the scripted executor never loads it): one compiler, the `[setting]` lines `setting`
// and the `[budget]` lines `budget`.
scan::Manifest manifest_in(const std::string& dir,
                           const std::vector<std::pair<std::string, std::string>>& inputs,
                           const std::string& setting, const std::string& budget) {
  remove_tree(dir);
  make_dirs(dir);
  for (const auto& [name, text] : inputs)
    write_file_atomic(dir + "/" + name, text);
  write_file_atomic(dir + "/libfake.so", "not a library: the scripted runs never load it");
  const std::string text = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                           "\"nvvm\"\nlib = \"libfake.so\"\n[setting]\n" +
                           setting + "[budget]\n" + budget;
  write_file_atomic(dir + "/m.toml", text);
  return scan::parse_manifest(text, dir + "/m.toml");
}

// Runs `jobs` on `threads` compile slots from `state` (each job's initial row when empty) into
// the database `db_path`, every compile answered by `script`.
ScanResult scan_with(const scan::Manifest& m, const std::vector<scan::Job>& jobs,
                     const std::string& db_path, int threads, const Script& script,
                     std::map<std::string, store::JobRow> state = {}, double seconds_per_run = 0) {
  if (state.empty())
    for (const auto& j : jobs)
      state[j.id] = scan::initial_row(m, j);
  // A run's seed -> (input, its round's first run, its index in the job): the seed of run i of
  // the round from run o is mix_seed(mix_seed(job seed, o), i).
  std::map<uint64_t, std::tuple<std::string, uint64_t, uint64_t>> by_seed;
  std::map<std::string, std::string> name_of_text;
  for (const auto& j : jobs) {
    name_of_text[read_file(j.input->path)] = j.input->name;
    const uint64_t budget = state.at(j.id).budget;
    for (uint64_t o = 0; o < budget; ++o)
      for (uint64_t i = 0; o + i < budget; ++i)
        by_seed[mix_seed(mix_seed(j.seed, o), i)] = {j.input->name, o, o + i};
  }
  ScanResult res;
  FakeExecutor* self = nullptr;
  FakeExecutor ex(
      [&](const engine::CompileMessage& msg, const engine::WorkerLaunch&, int before) {
        Compile c;
        c.input = name_of_text.at(msg.request.input);
        auto it = by_seed.find(msg.seed);
        EXPECT_NE(it, by_seed.end()) << "a run's seed that no round gives";
        if (it != by_seed.end()) std::tie(std::ignore, c.round, c.run) = it->second;
        EXPECT_EQ(c.run - c.round, msg.run_index);
        const long long takes = script.takes(c.input, c.run);
        c.at = self->ms_now(), c.end = c.at + takes, c.before = before;
        res.compiles.push_back(c);
        if (script.on_compile) script.on_compile(*self, c);
        return FakeExecutor::Answer{backend::Status::ok, script.outcome(c.input, c.run),
                                    milliseconds(takes), false};
      },
      script.start, m.compilers.at(0).config.lib);
  self = &ex;
  scan::ScheduleOptions opt;
  opt.threads = threads;
  opt.executor = &ex;
  opt.seconds_per_run = seconds_per_run;
  opt.progress = [&](const scan::ScanProgress& p) { res.progress.push_back(p); };
  {
    store::ScanDb db(db_path);
    store::ScanWriter writer(db);
    res.stats = scan::run_jobs(m, jobs, state, writer, opt);
  }
  for (const auto& [id, row] : state)
    res.rows[row.input] = row;
  res.most_busy = ex.most_busy();
  EXPECT_LE(res.most_busy, threads) << "more compiles at once than slots";
  return res;
}

void expect_same_row(const store::JobRow& a, const store::JobRow& b) {
  EXPECT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.ok_runs, b.ok_runs);
  EXPECT_EQ(a.rounds, b.rounds);
  EXPECT_EQ(a.done, b.done);
  ASSERT_EQ(a.variants.size(), b.variants.size());
  for (size_t i = 0; i < a.variants.size(); ++i) {
    EXPECT_EQ(a.variants[i].id, b.variants[i].id);
    EXPECT_EQ(a.variants[i].count, b.variants[i].count);
    EXPECT_EQ(a.variants[i].first_run, b.variants[i].first_run);
  }
}

class ScanSchedulerTest : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-scheduler-test"); }
  void TearDown() override { remove_tree(m_dir); }

  // A one-job scan (k.ll) in `sub`: process = `process`, then the `[setting]` lines `extra`,
  // rounds of 8, 16 and 16 runs unless `budget` says otherwise.
  ScanResult one_job(const std::string& sub, int threads, const std::string& process,
                     const Script& script, const std::string& extra = "",
                     const std::string& budget = "max_runs = 40\nfirst_round = 8\n"
                                                 "max_round = 16\n") {
    const std::string dir = m_dir + "/" + sub;
    scan::Manifest m =
        manifest_in(dir, {{"k.ll", "; k\n"}}, "process = \"" + process + "\"\n" + extra, budget);
    auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
    EXPECT_EQ(jobs.size(), 1u);
    ScanResult r = scan_with(m, jobs, dir + "/s.db", threads, script);
    EXPECT_TRUE(r.stats.errors.empty());
    return r;
  }

  std::string m_dir;
};

// Outcome "B" at runs 13 and 14, "C" at 20, else "A": the serial round from run 8 stops at 13;
// a slot that sees 20 first must not count it.
std::string b_at_13(const std::string&, uint64_t i) {
  return i == 13 || i == 14 ? "B" : i == 20 ? "C" : "A";
}

} // namespace

TEST_F(ScanSchedulerTest, RoundsDoubleUpToTheCapAndStopAtTheBudgetOrASecondVariant) {
  scan::Manifest m =
      manifest_in(m_dir + "/double", {{"det.ll", "; det\n"}, {"vary.ll", "; vary\n"}}, "",
                  "max_runs = 60\nfirst_round = 4\nmax_round = 16\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  Script s;
  // Deterministic job: every run "A". Varying job: run 13 (in the third round) differs.
  s.outcome = [](const std::string& name, uint64_t i) {
    return name == "vary.ll" && i == 13 ? "B" : "A";
  };
  ScanResult r = scan_with(m, jobs, m_dir + "/double/s.db", 2, s);
  EXPECT_TRUE(r.stats.errors.empty());
  EXPECT_EQ(r.stats.jobs_finished, 2u);
  // Rounds of 4, 8 and 16, 16, 16 runs: from runs 0, 4, 12, 28 and 44, to 60.
  EXPECT_EQ(r.rounds_of("det.ll"), (std::vector<uint64_t>{0, 4, 12, 28, 44}));
  EXPECT_EQ(r.rows["det.ll"].runs, 60u);
  EXPECT_EQ(r.rows["det.ll"].rounds, 5u);
  EXPECT_TRUE(r.rows["det.ll"].done);
  EXPECT_FALSE(r.rows["det.ll"].varies());
  // The third round covers runs 12..27: run 13 is the second variant, and the job stops there.
  EXPECT_EQ(r.rounds_of("vary.ll"), (std::vector<uint64_t>{0, 4, 12}));
  EXPECT_EQ(r.rows["vary.ll"].rounds, 3u);
  EXPECT_TRUE(r.rows["vary.ll"].done);
  EXPECT_TRUE(r.rows["vary.ll"].varies());
  EXPECT_EQ(r.rows["vary.ll"].runs, 14u) << "the round stops at the second outcome";
  EXPECT_EQ(r.rows["vary.ll"].variants.size(), 2u);
  EXPECT_EQ(r.stats.early_rounds + r.stats.early_runs + r.stats.early_dropped, 0u);
}

TEST_F(ScanSchedulerTest, ACompilerThatCannotLoadIsNamedOnceAndItsJobsStayOpen) {
  scan::Manifest m =
      manifest_in(m_dir + "/broken", {{"a.ll", "; a\n"}, {"b.ll", "; b\n"}}, "", "max_runs = 8\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 2u);
  std::map<std::string, store::JobRow> state;
  for (const auto& j : jobs)
    state[j.id] = scan::initial_row(m, j);
  FakeExecutor ex([](const engine::CompileMessage&, const engine::WorkerLaunch&,
                     int) { return FakeExecutor::Answer{}; },
                  milliseconds(50), m.compilers.at(0).config.lib);
  ex.fail_starts_after(0);
  scan::ScheduleOptions opt;
  opt.threads = 2;
  opt.executor = &ex;
  store::ScanDb db(m_dir + "/broken/s.db");
  store::ScanWriter writer(db);
  scan::ScheduleStats st = scan::run_jobs(m, jobs, state, writer, opt);
  ASSERT_EQ(st.errors.size(), 1u);
  EXPECT_NE(st.errors[0].find("compiler 'c': cannot load"), std::string::npos) << st.errors[0];
  // Both first rounds start at once on two slots; neither is retried, no other round starts.
  EXPECT_EQ(ex.count(FakeExecutor::Step::Kind::launch), 2u);
  EXPECT_EQ(ex.count(FakeExecutor::Step::Kind::compile), 0u);
  EXPECT_EQ(st.jobs_finished, 0u);
  for (const auto& [id, row] : state)
    EXPECT_FALSE(row.done);

  // On one slot the second job of the broken compiler is not even tried.
  for (const auto& j : jobs)
    state[j.id] = scan::initial_row(m, j);
  FakeExecutor one([](const engine::CompileMessage&, const engine::WorkerLaunch&,
                      int) { return FakeExecutor::Answer{}; },
                   milliseconds(50), m.compilers.at(0).config.lib);
  one.fail_starts_after(0);
  opt.threads = 1;
  opt.executor = &one;
  st = scan::run_jobs(m, jobs, state, writer, opt);
  ASSERT_EQ(st.errors.size(), 1u);
  EXPECT_EQ(one.count(FakeExecutor::Step::Kind::launch), 1u);
}

TEST_F(ScanSchedulerTest, ASplitRoundGivesTheSerialRunsAndVerdict) {
  Script vary;
  vary.outcome = b_at_13;
  ScanResult serial = one_job("s1", 1, "fresh", vary);
  ScanResult split = one_job("s3", 3, "fresh", vary);
  EXPECT_EQ(serial.stats.split_rounds, 0u);
  EXPECT_EQ(serial.most_busy, 1);
  EXPECT_GE(split.stats.split_rounds, 2u) << "one job, three slots: its rounds run in pieces";
  EXPECT_EQ(split.stats.split_pieces, 3 * split.stats.split_rounds);
  EXPECT_EQ(split.most_busy, 3);
  EXPECT_EQ(serial.rows["k.ll"].runs, 14u);
  EXPECT_TRUE(serial.rows["k.ll"].varies());
  expect_same_row(serial.rows["k.ll"], split.rows["k.ll"]);
  EXPECT_EQ(serial.stats.runs, split.stats.runs);
  EXPECT_LT(split.compiles.back().end, serial.compiles.back().end) << "three slots end sooner";

  Script det;
  serial = one_job("d1", 1, "fresh", det);
  split = one_job("d2", 2, "fresh", det);
  EXPECT_EQ(serial.rows["k.ll"].runs, 40u);
  EXPECT_EQ(split.stats.split_rounds, 3u) << "every round runs on both slots";
  EXPECT_EQ(split.stats.split_pieces, 6u);
  expect_same_row(serial.rows["k.ll"], split.rows["k.ll"]);

  // Same-process runs without history share a heap across the round. With `both`, one slot
  // makes them all (the runs 1, 3, 5, ... of a round, in order, in its one worker) and only the
  // fresh runs spread; with `same`, the round is not split.
  for (const Script& s : {vary, det}) {
    ScanResult b = one_job("b2", 3, "both", s);
    EXPECT_GE(b.stats.split_rounds, 1u);
    ScanResult a = one_job("b1", 1, "both", s);
    expect_same_row(a.rows["k.ll"], b.rows["k.ll"]);
    for (const auto& c : b.compiles)
      if ((c.run - c.round) % 2 == 1) {
        EXPECT_EQ(c.before, static_cast<int>((c.run - c.round) / 2))
            << "run " << c.run << ": the same-process runs of a round in order in one worker";
      }
    b = one_job("s2", 2, "same", s);
    EXPECT_EQ(b.stats.split_rounds, 0u);
    EXPECT_EQ(b.most_busy, 1);
    a = one_job("s1", 1, "same", s);
    expect_same_row(a.rows["k.ll"], b.rows["k.ll"]);
  }
}

// Split and serial scans agree on random outcomes and random compile times (so that the slots'
// runs end in any order), for every way a round splits: each run alone (fresh), chains
// (history), and a `both` round's shared worker kept in one slot while its fresh runs spread, on
// 2 to 4 slots.
TEST_F(ScanSchedulerTest, SplitAndSerialScansAgreeOnRandomOutcomes) {
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"fresh", ""}, {"both", ""}, {"both", "history = 2\n"}, {"same", "history = 3\n"}};
  for (uint64_t c = 0; c < 24; ++c) {
    const auto& [process, extra] = settings[c % settings.size()];
    const int threads = 2 + static_cast<int>(mix_seed(c, 1) % 3);
    // Runs differ from "A" at a few random indices (none in some cases), with 2 or 3 outcomes.
    std::map<uint64_t, std::string> other;
    for (uint64_t k = 0; k < mix_seed(c, 2) % 4; ++k)
      other[mix_seed(c, 3 + k) % 40] = k % 2 ? "B" : "C";
    Script s;
    s.outcome = [&](const std::string&, uint64_t i) {
      auto it = other.find(i);
      return it == other.end() ? std::string("A") : it->second;
    };
    s.takes = [c](const std::string&, uint64_t i) {
      return 1 + static_cast<long long>(mix_seed(c + 100, i) % 40);
    };
    SCOPED_TRACE(fmt::format("case {}: {} {}on {} slots, {} runs differ", c, process, extra,
                             threads, other.size()));
    ScanResult serial = one_job("r1", 1, process, s, extra);
    ScanResult split = one_job("r2", threads, process, s, extra);
    expect_same_row(serial.rows["k.ll"], split.rows["k.ll"]);
    EXPECT_EQ(serial.rows["k.ll"].varies(), !other.empty());
    EXPECT_EQ(serial.stats.runs, split.stats.runs);
  }
}

TEST_F(ScanSchedulerTest, SameProcessChainsSplitOnlyAtChainBoundaries) {
  // With history = 3 a same-process round's chains are runs [0, 3), [3, 6), ... of the round,
  // each in a worker of its own; with both, the same-process runs 1, 3, 5 make the first chain
  // (the fresh runs interleave).
  Script vary, det;
  vary.outcome = b_at_13;
  for (const std::string process : {"same", "both"}) {
    for (const Script& s : {vary, det}) {
      SCOPED_TRACE(process);
      ScanResult serial = one_job("h1", 1, process, s, "history = 3\n");
      ScanResult split = one_job("h3", 3, process, s, "history = 3\n");
      EXPECT_EQ(serial.stats.split_rounds, 0u);
      EXPECT_GE(split.stats.split_rounds, 1u) << "one job, three slots: its rounds run in pieces";
      EXPECT_GE(split.most_busy, 2);
      expect_same_row(serial.rows["k.ll"], split.rows["k.ll"]);
      for (const auto& c : split.compiles) {
        const uint64_t i = c.run - c.round;
        if (process == "same") {
          EXPECT_EQ(c.before, static_cast<int>(i % 3)) << "run " << c.run << " cuts a chain";
        } else if (i % 2 == 1) {
          EXPECT_EQ(c.before, static_cast<int>((i / 2) % 3)) << "run " << c.run << " cuts a chain";
        } else {
          EXPECT_EQ(c.before, 0) << "fresh run " << c.run;
        }
      }
    }
  }
}

// A round's slots are a count: one with nothing left to take goes back to the scheduler at once
// (early pieces of the next round are gone), and each round of a one-job scan on two slots
// runs on both; the rows are those of a serial scan, also when a round ends the job.
TEST_F(ScanSchedulerTest, ARoundsSlotsGoBackWhenItsQueueIsEmpty) {
  const std::string budget = "max_runs = 160\nfirst_round = 8\nmax_round = 8\n"; // 20 rounds
  for (const auto& [process, extra, unit] :
       {std::tuple<std::string, std::string, uint64_t>{"fresh", "", 1},
        {"same", "history = 2\n", 2}}) {
    SCOPED_TRACE(process);
    Script det;
    ScanResult serial = one_job("e1", 1, process, det, extra, budget);
    ScanResult split = one_job("e2", 2, process, det, extra, budget);
    EXPECT_EQ(serial.rows["k.ll"].runs, 160u);
    expect_same_row(serial.rows["k.ll"], split.rows["k.ll"]);
    EXPECT_EQ(split.stats.split_rounds, 20u);
    EXPECT_EQ(split.stats.early_rounds + split.stats.early_runs + split.stats.early_dropped, 0u);
    // No round's run starts before the round before it ended.
    std::map<uint64_t, long long> first_at, last_end;
    for (const auto& c : split.compiles) {
      if (!first_at.count(c.round)) first_at[c.round] = c.at;
      last_end[c.round] = std::max(last_end[c.round], c.end);
    }
    for (auto it = std::next(first_at.begin()); it != first_at.end(); ++it)
      EXPECT_GE(it->second, last_end.at(std::prev(it)->first)) << "round " << it->first;
    for (const auto& c : split.compiles)
      if (c.before == 0 && process == "same") {
        EXPECT_EQ((c.run - c.round) % unit, 0u) << "run " << c.run << " cuts a chain";
      }

    // One run of the second round differs, so that round ends the job: no run of a later round.
    for (const uint64_t at : {8 + 2 * unit - 1, uint64_t{15}}) {
      SCOPED_TRACE(at);
      Script vary;
      vary.outcome = [at](const std::string&, uint64_t i) { return i == at ? "B" : "A"; };
      ScanResult a = one_job("v1", 1, process, vary, extra, budget);
      EXPECT_EQ(a.rows["k.ll"].runs, at + 1);
      EXPECT_TRUE(a.rows["k.ll"].varies());
      ScanResult b = one_job("v2", 2, process, vary, extra, budget);
      expect_same_row(a.rows["k.ll"], b.rows["k.ll"]);
      for (const auto& c : b.compiles)
        EXPECT_LT(c.run, 16u) << "a run of a round after the one that ended the job";
    }
  }
}

// A slot left without a job joins a round already running: it takes the runs not yet taken from
// the round's queue, and the job's row is the one a serial scan gives. On two slots, short.ll
// varies at its run 3 and long.ll's first round has 8 runs of 100 ms: the slot done with short.ll
// joins long.ll's first round.
TEST_F(ScanSchedulerTest, ASlotWithNoJobLeftJoinsARunningRound) {
  const std::string dir = m_dir + "/join";
  scan::Manifest m =
      manifest_in(dir, {{"long.ll", "; long\n"}, {"short.ll", "; short\n"}},
                  "process = \"fresh\"\n", "max_runs = 40\nfirst_round = 8\nmax_round = 16\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 2u);
  Script s;
  s.outcome = [](const std::string& name, uint64_t i) {
    return name == "short.ll" && i == 3 ? "B" : "A";
  };
  s.takes = [](const std::string& name, uint64_t) { return name == "long.ll" ? 100 : 10; };
  ScanResult serial = scan_with(m, jobs, dir + "/s1.db", 1, s);
  ScanResult joined = scan_with(m, jobs, dir + "/s2.db", 2, s);
  EXPECT_EQ(serial.stats.split_rounds, 0u);
  EXPECT_GE(joined.stats.split_rounds, 1u) << "the slot done with short.ll joins long.ll's rounds";
  EXPECT_GE(joined.stats.joined_pieces, 1u) << "short.ll is done during long.ll's first round";
  // long.ll's first round had two compiles at once after short.ll's last one.
  long long short_end = 0;
  for (const auto& c : joined.compiles)
    if (c.input == "short.ll") short_end = std::max(short_end, c.end);
  int overlapping = 0;
  for (const auto& a : joined.compiles)
    for (const auto& b : joined.compiles)
      overlapping += a.input == "long.ll" && b.input == "long.ll" && a.round == 0 && b.round == 0 &&
                     a.run < b.run && b.at < a.end && a.at >= short_end;
  EXPECT_GE(overlapping, 1);
  ASSERT_EQ(serial.rows.size(), 2u);
  for (const auto& [name, row] : serial.rows) {
    SCOPED_TRACE(name);
    expect_same_row(row, joined.rows.at(name));
  }
  EXPECT_EQ(serial.rows.at("long.ll").runs, 40u);
  EXPECT_TRUE(serial.rows.at("short.ll").varies());
}

// A running job with more work left than any waiting job gets help as soon as a slot is free:
// the slot done with a short job's round joins the long job's round before the next short job's
// round starts, rather than when none is left. The rows are still those of a serial scan.
TEST_F(ScanSchedulerTest, ARunningJobWithTheMostWorkLeftIsJoinedBeforeWaitingJobs) {
  const std::string dir = m_dir + "/critical";
  std::vector<std::pair<std::string, std::string>> inputs = {{"a_long.ll", "; long\n"}};
  for (int i = 0; i < 6; ++i)
    inputs.emplace_back(fmt::format("s{}.ll", i), fmt::format("; short {}\n", i));
  scan::Manifest m = manifest_in(dir, inputs, "process = \"fresh\"\n",
                                 "max_runs = 40\nfirst_round = 8\nmax_round = 16\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 7u);
  Script s;
  s.takes = [](const std::string& name, uint64_t) { return name == "a_long.ll" ? 400 : 10; };
  ScanResult serial = scan_with(m, jobs, dir + "/s1.db", 1, s);
  ScanResult joined = scan_with(m, jobs, dir + "/s2.db", 2, s);
  EXPECT_EQ(serial.stats.split_rounds, 0u);
  EXPECT_GE(joined.stats.joined_pieces, 1u);
  // When a_long.ll's later round first has two compiles at once, the short jobs' later rounds
  // begun then: joining only once no job is left would come after all 12.
  long long joined_at = -1;
  for (const auto& a : joined.compiles)
    for (const auto& b : joined.compiles)
      if (a.input == "a_long.ll" && b.input == "a_long.ll" && a.round > 0 && a.round == b.round &&
          a.run < b.run && b.at < a.end && (joined_at < 0 || b.at < joined_at))
        joined_at = b.at;
  ASSERT_GE(joined_at, 0) << "no second slot of the long job's later rounds";
  std::set<std::pair<std::string, uint64_t>> short_later;
  for (const auto& c : joined.compiles)
    if (c.input != "a_long.ll" && c.round > 0 && c.at < joined_at)
      short_later.emplace(c.input, c.round);
  EXPECT_LT(short_later.size(), 12u) << "the long job was joined only after every short round";
  ASSERT_EQ(serial.rows.size(), 7u);
  for (const auto& [name, row] : serial.rows) {
    SCOPED_TRACE(name);
    expect_same_row(row, joined.rows.at(name));
  }
  EXPECT_EQ(serial.rows.at("a_long.ll").runs, 40u);
}

// A round interrupted during its sixth run keeps only what a resumed round can go on from with
// the history of an uninterrupted one: whole chains (history = 3: 3 runs), nothing when its
// same-process runs share one worker (history = 0), every run when each has its own process. The
// scan stops there; resumed, it starts at the first run not kept and ends with the rows of an
// uninterrupted scan.
TEST_F(ScanSchedulerTest, AnInterruptedRoundKeepsOnlyRunsAResumeCanContinue) {
  const std::string dir = m_dir + "/cut";
  for (const auto& [process, extra, kept] :
       {std::tuple<std::string, std::string, uint64_t>{"same", "history = 3\n", 3},
        {"both", "history = 2\n", 4},
        {"same", "", 0},
        {"both", "", 0},
        {"fresh", "", 5}}) {
    SCOPED_TRACE(process + " " + extra);
    scan::Manifest m =
        manifest_in(dir, {{"k.ll", "; k\n"}}, "process = \"" + process + "\"\n" + extra,
                    "max_runs = 8\nfirst_round = 8\n");
    auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
    Script s;
    s.outcome = [](const std::string&, uint64_t i) { return i == 7 ? "B" : "A"; };
    Script cut = s;
    cut.on_compile = [](FakeExecutor& ex, const Compile& c) {
      if (c.run == 5) ex.interrupt_at(milliseconds(ex.ms_now() + 1));
    };
    ScanResult first = scan_with(m, jobs, dir + "/s.db", 1, cut);
    EXPECT_TRUE(first.stats.interrupted);
    EXPECT_TRUE(first.stats.errors.empty());
    const store::JobRow& row = first.rows.at("k.ll");
    EXPECT_EQ(row.runs, kept);
    EXPECT_FALSE(row.done);
    std::map<std::string, store::JobRow> state{{jobs.at(0).id, row}};
    ScanResult resumed = scan_with(m, jobs, dir + "/s.db", 1, s, state);
    ASSERT_FALSE(resumed.compiles.empty());
    EXPECT_EQ(resumed.compiles.front().run, kept) << "the resumed round starts where kept runs end";
    EXPECT_EQ(resumed.rows.at("k.ll").runs, 8u);
    ScanResult whole = scan_with(m, jobs, dir + "/w.db", 1, s);
    const store::JobRow &a = whole.rows.at("k.ll"), &b = resumed.rows.at("k.ll");
    EXPECT_EQ(a.runs, b.runs);
    EXPECT_EQ(b.rounds, kept > 0 ? 2u : 1u) << "the kept runs' round, and the resumed one";
    ASSERT_EQ(a.variants.size(), b.variants.size());
    for (size_t i = 0; i < a.variants.size(); ++i) {
      EXPECT_EQ(a.variants[i].id, b.variants[i].id);
      EXPECT_EQ(a.variants[i].count, b.variants[i].count);
      EXPECT_EQ(a.variants[i].first_run, b.variants[i].first_run);
    }
  }
}

TEST_F(ScanSchedulerTest, FirstRoundsFirstThenTheJobExpectedToTakeLongest) {
  scan::Manifest m = manifest_in(m_dir + "/order", {{"det.ll", "; det\n"}, {"vary.ll", "; vary\n"}},
                                 "", "max_runs = 24\nfirst_round = 8\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  Script s; // vary.ll's runs take 100 times as long
  s.takes = [](const std::string& name, uint64_t) { return name == "vary.ll" ? 1000 : 10; };
  ScanResult r = scan_with(m, jobs, m_dir + "/order/s.db", 1, s);
  EXPECT_EQ(r.stats.jobs_finished, 2u);
  EXPECT_EQ(r.rounds(), (std::vector<std::pair<std::string, uint64_t>>{
                            {"det.ll", 0}, {"vary.ll", 0}, {"vary.ll", 8}, {"det.ll", 8}}))
      << "planned order for the first rounds, then the longer job's rest first";
}

// The progress line's estimate rests on the runs' measured times from the first round on (runs
// left x mean slot time / slots), not on a count of finished jobs, which is 0 while every job's
// first, short round runs first.
TEST_F(ScanSchedulerTest, EstimateUsesMeasuredRunTimesFromTheFirstRound) {
  scan::Manifest m = manifest_in(m_dir + "/est", {{"det.ll", "; det\n"}, {"vary.ll", "; vary\n"}},
                                 "process = \"fresh\"\n", "max_runs = 40\nfirst_round = 8\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 2u);
  Script s;
  s.start = milliseconds(0); // a run's slot time is its compile's: 100 ms
  s.takes = [](const std::string&, uint64_t) { return 100; };
  // The probes' figure, 9 s a run, is replaced once runs are timed.
  ScanResult r = scan_with(m, jobs, m_dir + "/est/s.db", 1, s, {}, 9);
  ASSERT_GE(r.progress.size(), 2u);
  // After the first job's first round (8 of 80 runs): 72 runs left at 0.1 s on one slot.
  EXPECT_EQ(r.progress.front().done, 0u);
  EXPECT_EQ(r.progress.front().runs, 8u);
  EXPECT_NEAR(r.progress.front().seconds_left, 7.2, 1e-6);
  EXPECT_EQ(r.progress.back().seconds_left, 0);
  EXPECT_TRUE(r.progress.back().last);
}

// The issue-46 census in small: as many jobs of three fresh-process runs as slots, and a slot
// on every usable core (the default --jobs). Each slot still starts its round's next worker
// while the current compile runs, so a run after the first waits only for the rest of its
// worker's 50 ms start (50 ms after the previous run was sent), not for a whole start after
// the previous compile's 10 ms (60 ms).
TEST_F(ScanSchedulerTest, ASlotOnEveryCoreStartsItsNextFreshWorkerAhead) {
  const int cores = static_cast<int>(usable_cores());
  std::vector<std::pair<std::string, std::string>> inputs;
  for (int i = 0; i < cores; ++i)
    inputs.emplace_back(fmt::format("k{}.ll", i), fmt::format("; k{}\n", i));
  scan::Manifest m = manifest_in(m_dir + "/census", inputs, "process = \"fresh\"\n",
                                 "max_runs = 3\nfirst_round = 3\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), static_cast<size_t>(cores));
  ScanResult r = scan_with(m, jobs, m_dir + "/census/s.db", cores, Script{});
  EXPECT_TRUE(r.stats.errors.empty());
  ASSERT_EQ(r.compiles.size(), 3u * static_cast<size_t>(cores));
  std::map<std::string, std::vector<long long>> sent; // by job: when each run was sent
  for (const auto& c : r.compiles)
    sent[c.input].push_back(c.at);
  for (const auto& [input, at] : sent) {
    ASSERT_EQ(at.size(), 3u) << input;
    EXPECT_EQ(at[1] - at[0], 50) << input << ": run 2's worker was not started ahead";
    EXPECT_EQ(at[2] - at[1], 50) << input << ": run 3's worker was not started ahead";
  }
}

// The issue-46 census, twice as many jobs as slots: while a slot makes its job's last compile,
// the job it takes next begins held (its first run's worker starting beside that compile), so
// that with compiles longer than a worker's start (100 ms against 50) every job of the second
// batch sends its first compile the moment a compile ends, never a whole start later; and never
// more compiles at once than slots (scan_with).
TEST_F(ScanSchedulerTest, ASlotsNextJobsFirstWorkerStartsWhileItsLastCompileRuns) {
  const int cores = static_cast<int>(usable_cores());
  std::vector<std::pair<std::string, std::string>> inputs;
  for (int i = 0; i < 2 * cores; ++i)
    inputs.emplace_back(fmt::format("k{}.ll", i), fmt::format("; k{}\n", i));
  scan::Manifest m = manifest_in(m_dir + "/ahead", inputs, "process = \"fresh\"\n",
                                 "max_runs = 3\nfirst_round = 3\n");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  Script s;
  s.takes = [](const std::string& name, uint64_t i) {
    return name == "k1.ll" && i == 2 ? 130 : 100;
  };
  s.outcome = [](const std::string& name, uint64_t i) {
    return name == "k3.ll" && i == 1 ? "B" : "A";
  };
  ScanResult r = scan_with(m, jobs, m_dir + "/ahead/s.db", cores, s);
  EXPECT_TRUE(r.stats.errors.empty());
  EXPECT_EQ(r.stats.jobs_finished, static_cast<uint64_t>(2 * cores));
  std::set<long long> ends;
  std::map<std::string, long long> first_sent;
  for (const auto& c : r.compiles) {
    ends.insert(c.end);
    if (c.run == 0) first_sent[c.input] = c.at;
  }
  std::vector<long long> firsts;
  for (const auto& [input, at] : first_sent)
    firsts.push_back(at);
  std::sort(firsts.begin(), firsts.end());
  ASSERT_EQ(firsts.size(), static_cast<size_t>(2 * cores));
  for (size_t j = static_cast<size_t>(cores); j < firsts.size(); ++j)
    EXPECT_EQ(ends.count(firsts[j]), 1u)
        << "a job's first compile, sent at " << firsts[j] << " ms, waited for its worker's start";
  // The verdicts are the runs' own: k3 varies at its second run, the rest never.
  for (const auto& [input, row] : r.rows) {
    EXPECT_EQ(row.runs, input == "k3.ll" ? 2u : 3u) << input;
    EXPECT_EQ(row.varies(), input == "k3.ll") << input;
  }
}
