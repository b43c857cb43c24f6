// scan/scheduler: the rounds of a job, the stop at a second variant and the budget, with
// scripted outcomes in place of a compiler (ScheduleOptions::execute).
#include "kdet/scan/manifest.hpp"
#include "kdet/scan/planner.hpp"
#include "kdet/scan/scheduler.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <chrono>
#include <condition_variable>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

using namespace kdet;

namespace {

// A round as a scripted compiler gives it: run i of `plan` has the variant `variant_at(i)`, and
// the round stops at plan.stop_at_outcomes distinct variants, as engine::execute does.
// `before_take` (when given) is called before each take from the plan's runs, `on_unit` with
// each unit taken ([first, end), in the plan's indices) before its runs are made.
engine::RunOutput scripted_round(const engine::RunPlan& plan,
                                 const std::function<std::string(uint64_t)>& variant_at,
                                 const std::function<void(uint64_t, uint64_t)>& on_unit = nullptr,
                                 const std::function<void()>& before_take = nullptr) {
  engine::RunOutput out;
  out.plan = plan;
  out.identity.version = "scripted";
  std::map<std::string, engine::Variant> seen;
  // The runs [first_index, runs), or the units taken from the plan's queue (a split round).
  bool first = true;
  bool holds_shared = false;
  auto take = [&]() -> std::optional<engine::RunQueue::Unit> {
    if (plan.queue) return plan.queue->take(holds_shared);
    if (!std::exchange(first, false)) return std::nullopt;
    return engine::RunQueue::Unit{plan.first_index, plan.runs};
  };
  bool stop = false;
  while (!stop) {
    if (before_take) before_take();
    auto unit = take();
    if (!unit) break;
    if (on_unit) on_unit(unit->first, unit->end);
    for (uint64_t i = unit->first; i < unit->end && !stop; ++i) {
      if (plan.queue && !plan.queue->wanted(i)) break; // past another piece's stop
      engine::RunRecord r;
      r.index = i;
      r.seed = mix_seed(plan.setting.seed, i);
      r.status = backend::Status::ok;
      r.variant = variant_at(i);
      r.done = true;
      auto& v = seen[r.variant];
      if (v.count++ == 0) v.id = r.variant, v.first_run = i;
      out.records.push_back(r);
      ++out.completed;
      if (seen.size() >= plan.stop_at_outcomes && !out.stopped_early) {
        out.stopped_early = true; // a piece goes on with the runs before i
        if (plan.queue)
          plan.queue->stop(i);
        else
          stop = true;
      }
    }
  }
  for (auto& [id, v] : seen)
    out.variants.push_back(v);
  std::sort(out.variants.begin(), out.variants.end(),
            [](const auto& a, const auto& b) { return a.count > b.count; });
  return out;
}

// Every .ll file beside the manifest on a scripted compiler, each run in a fresh process (so
// rounds split at any run), rounds of 8, 16 and 16 runs.
const std::string k_fresh_rounds = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                                   "\"nvvm\"\nlib = \"libfake.so\"\n[setting]\nprocess = "
                                   "\"fresh\"\n[budget]\nmax_runs = 40\nfirst_round = 8\n"
                                   "max_round = 16\n";

// Runs `jobs` from scratch into a new database at `db_path` with `opt`: each job's final row,
// by input name.
std::map<std::string, store::JobRow>
rows_after(const scan::Manifest& m, const std::vector<scan::Job>& jobs, const std::string& db_path,
           const scan::ScheduleOptions& opt, scan::ScheduleStats& stats) {
  std::map<std::string, store::JobRow> state;
  for (const auto& j : jobs)
    state[j.id] = scan::initial_row(m, j);
  remove_tree(db_path);
  store::ScanDb db(db_path);
  {
    store::ScanWriter writer(db);
    stats = scan::run_jobs(m, jobs, state, writer, opt);
  }
  EXPECT_TRUE(stats.errors.empty());
  std::map<std::string, store::JobRow> by_name;
  for (const auto& [id, row] : state)
    by_name[row.input] = row;
  return by_name;
}

// Counted events that the threads of a scripted scan wait for: the scripted order that takes a
// scan through one branch by construction, where sleeping in runs would only make it likely.
// A wait fails the test after 30 s (a guard against a hang: the event never came) and goes on.
class Latches {
public:
  // Counts one more `event` and wakes its waiters.
  void add(const std::string& event) {
    {
      std::lock_guard<std::mutex> lock(m_mu);
      ++m_count[event];
    }
    m_cv.notify_all();
  }
  // Waits until `event` has happened `n` times.
  void await(const std::string& event, size_t n = 1) {
    std::unique_lock<std::mutex> lock(m_mu);
    if (!m_cv.wait_for(lock, std::chrono::seconds(30), [&] { return m_count[event] >= n; }))
      ADD_FAILURE() << "waited 30 s for '" << event << "' x" << n << ", seen x" << m_count[event];
  }
  size_t count(const std::string& event) {
    std::lock_guard<std::mutex> lock(m_mu);
    return m_count[event];
  }

private:
  std::mutex m_mu;
  std::condition_variable m_cv;
  std::map<std::string, size_t> m_count;
};

// Where a scripted scan's pieces may be held, by the first run (absolute) of the round they run:
// before each take from its queue, after a unit [first, end) (absolute) was taken, at each run
// (absolute index, before its outcome), and as the piece's execute() returns.
struct Script {
  std::function<void(uint64_t round)> before_take;
  std::function<void(uint64_t round, uint64_t first, uint64_t end)> on_unit;
  std::function<void(uint64_t run)> at_run;
  std::function<void(uint64_t round)> returned;
};

// The order of the pieces of one round of a one-job scan on 1 + `helpers` slots: the calling
// thread is its only slot (one job), so its own piece of a round that did not start early runs
// there, and `helpers` borrowed slots run the others (every idle slot: the round before gave them
// back). The owner's piece takes the round's first unit, then each helper its first; then either
// the owner's piece ends first (`owner_first`), every helper holding its unit until a run of the
// next round is under way, which only the owner's early piece of that round can make (it starts
// because pieces still run); or the owner holds its unit until every helper's piece returned, so
// that its own piece ends last.
class RoundOrder {
public:
  RoundOrder(uint64_t round, uint64_t next_round, int helpers, bool owner_first)
      : m_round(round), m_next(next_round), m_helpers(static_cast<size_t>(helpers)),
        m_owner_first(owner_first), m_owner(std::this_thread::get_id()) {}

  Script script() {
    Script s;
    s.before_take = [this](uint64_t round) {
      if (round == m_round && !owner() && first_time(m_took)) m_latches.await("owner unit");
    };
    s.on_unit = [this](uint64_t round, uint64_t, uint64_t) {
      if (round != m_round || !first_time(m_units)) return;
      if (owner()) {
        m_latches.add("owner unit");
        if (m_owner_first)
          m_latches.await("helper unit", m_helpers);
        else
          m_latches.await("helper returned", m_helpers);
      } else {
        m_latches.add("helper unit");
        if (m_owner_first) m_latches.await("next round run");
      }
    };
    s.at_run = [this](uint64_t run) {
      if (run >= m_next) m_latches.add("next round run");
    };
    s.returned = [this](uint64_t round) {
      if (round == m_round && !owner()) m_latches.add("helper returned");
    };
    return s;
  }
  // The round ran, in the order asked for.
  bool engaged() { return m_latches.count("owner unit") > 0; }

private:
  bool owner() const { return std::this_thread::get_id() == m_owner; }
  // True the first time this thread comes here with `seen`.
  bool first_time(std::set<std::thread::id>& seen) {
    std::lock_guard<std::mutex> lock(m_mu);
    return seen.insert(std::this_thread::get_id()).second;
  }
  const uint64_t m_round, m_next;
  const size_t m_helpers;
  const bool m_owner_first;
  const std::thread::id m_owner;
  Latches m_latches;
  std::mutex m_mu;
  std::set<std::thread::id> m_took, m_units;
};

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
    std::map<uint64_t, uint64_t> offset_of; // a round's master seed -> its first run
    for (const auto& j : jobs)
      for (uint64_t o = 0; o < 1000; ++o)
        offset_of[mix_seed(j.seed, o)] = o;
    std::set<uint64_t> started; // the rounds (by master seed) a piece of which ran
    scan::ScheduleOptions opt;
    opt.threads = 2;
    opt.execute = [&](const engine::RunPlan& plan) {
      const std::string name = name_of.at(plan.input_path);
      const uint64_t offset = offset_of.at(plan.setting.seed);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (started.insert(plan.setting.seed).second) rounds.emplace_back(name, plan.runs);
      }
      return scripted_round(plan, [&](uint64_t i) { return outcome(name, offset + i); });
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
  // (A fourth round may have begun while the third waited for a piece, and been dropped.)
  if (vary.size() == 4 && vary.back() == 16) vary.pop_back();
  EXPECT_EQ(vary, (std::vector<uint64_t>{4, 8, 16}));
  EXPECT_EQ(rows["vary.ll"].rounds, 3u);
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

namespace {

// Runs a one-job manifest (process = `process`, then the `[setting]` lines `extra`) on `threads`
// slots; each run's outcome is `outcome(absolute run index)`, found from the run's seed alone, as
// a compiler driven by the seed would give it. Returns the job's row; `stats` gets the
// scheduler's counts, and `calls` (when given) the runs [first, end) each execute() took at a
// time (all its runs, or a unit of a split round's queue), in their round's indices.
// A one-job manifest in a new `dir` (its k.ll and a fake library the scripted runs never load):
// process = `process`, then the `[setting]` lines `extra`, then the `[budget]` lines `budget`.
scan::Manifest one_job_manifest(const std::string& dir, const std::string& process,
                                const std::string& extra, const std::string& budget) {
  remove_tree(dir);
  make_dirs(dir);
  write_file_atomic(dir + "/k.ll", "; k\n");
  write_file_atomic(dir + "/libfake.so", "not a library: the scripted runs never load it");
  const std::string text = "inputs = [\"k.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = \"nvvm\"\n"
                           "lib = \"libfake.so\"\n[setting]\nprocess = \"" +
                           process + "\"\n" + extra + "[budget]\n" + budget;
  return scan::parse_manifest(text, dir + "/m.toml");
}

store::JobRow run_one_job(const std::string& dir, int threads, const std::string& process,
                          const std::function<std::string(uint64_t)>& outcome,
                          scan::ScheduleStats& stats, const std::string& extra = "",
                          std::vector<std::pair<uint64_t, uint64_t>>* calls = nullptr,
                          const std::string& budget = "max_runs = 40\nfirst_round = 8\n"
                                                      "max_round = 16\n",
                          const Script& script = {}) {
  scan::Manifest m = one_job_manifest(dir, process, extra, budget);
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  std::map<std::string, store::JobRow> state;
  state[jobs.at(0).id] = scan::initial_row(m, jobs[0]);
  std::map<uint64_t, uint64_t> offset_of; // a round's master seed -> its first run
  for (uint64_t o = 0; o < 1000; ++o)
    offset_of[mix_seed(jobs[0].seed, o)] = o;
  store::ScanDb db(dir + "/s.db");
  scan::ScheduleOptions opt;
  opt.threads = threads;
  std::mutex mu;
  opt.execute = [&](const engine::RunPlan& plan) {
    const uint64_t offset = offset_of.at(plan.setting.seed);
    engine::RunOutput out = scripted_round(
        plan,
        [&](uint64_t i) {
          if (script.at_run) script.at_run(offset + i);
          return outcome(offset + i);
        },
        [&](uint64_t first, uint64_t end) {
          {
            std::lock_guard<std::mutex> lock(mu);
            if (calls) calls->emplace_back(first, end);
          }
          if (script.on_unit) script.on_unit(offset, offset + first, offset + end);
        },
        [&] {
          if (script.before_take) script.before_take(offset);
        });
    if (script.returned) script.returned(offset);
    return out;
  };
  {
    store::ScanWriter writer(db);
    stats = scan::run_jobs(m, jobs, state, writer, opt);
  }
  EXPECT_TRUE(stats.errors.empty());
  return state.begin()->second;
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

} // namespace

TEST_F(ScanSchedulerTest, ASplitRoundGivesTheSerialRunsAndVerdict) {
  scan::ScheduleStats serial, split;
  // Rounds: 0..7, 8..23, 24..39. Run 13 differs (and 14, and 20 otherwise): the serial round
  // stops at 13; a piece that sees 20 first must not count it.
  auto vary = [](uint64_t i) { return i == 13 || i == 14 ? "B" : i == 20 ? "C" : "A"; };
  store::JobRow a = run_one_job(m_dir + "/s1", 1, "fresh", vary, serial);
  store::JobRow b = run_one_job(m_dir + "/s3", 3, "fresh", vary, split);
  EXPECT_EQ(serial.split_rounds, 0u);
  EXPECT_GE(split.split_rounds, 2u) << "one job, three slots: its rounds run in pieces";
  EXPECT_EQ(split.split_pieces, 3 * split.split_rounds);
  EXPECT_EQ(a.runs, 14u);
  EXPECT_TRUE(a.varies());
  expect_same_row(a, b);
  EXPECT_EQ(serial.runs, split.runs);

  auto det = [](uint64_t) { return "A"; };
  a = run_one_job(m_dir + "/d1", 1, "fresh", det, serial);
  b = run_one_job(m_dir + "/d2", 2, "fresh", det, split);
  EXPECT_EQ(a.runs, 40u);
  // Each round is split, or its owner's piece started while the round before waited for its
  // other piece (or both).
  EXPECT_GE(split.split_rounds + split.early_rounds, 3u);
  EXPECT_EQ(split.early_dropped, 0u) << "no round ends the job before its budget";
  expect_same_row(a, b);

  // Same-process runs without history share a heap across the round. With `both`, one piece
  // makes them all (the runs 1, 3, 5, ... of a round, in order, in its one worker) and only the
  // fresh runs spread; with `same`, the round is not split.
  for (const auto& outcome : {std::function<std::string(uint64_t)>(vary), {det}}) {
    std::mutex mu;
    std::map<uint64_t, std::set<std::thread::id>>
        makers; // round start -> same-process runs' threads
    auto traced = [&](uint64_t i) {
      if (i % 2 == 1) { // rounds start at 0, 8 and 24: the odd runs are the same-process ones
        std::lock_guard<std::mutex> lock(mu);
        makers[i < 8 ? 0 : i < 24 ? 8 : 24].insert(std::this_thread::get_id());
      }
      return outcome(i);
    };
    b = run_one_job(m_dir + "/b2", 3, "both", traced, split);
    EXPECT_GE(split.split_rounds + split.early_rounds, 1u);
    a = run_one_job(m_dir + "/b1", 1, "both", outcome, serial);
    expect_same_row(a, b);
    for (const auto& [round, threads] : makers)
      EXPECT_EQ(threads.size(), 1u) << "the same-process runs of the round at " << round;
    b = run_one_job(m_dir + "/s2", 2, "same", outcome, split);
    EXPECT_EQ(split.split_rounds + split.early_rounds, 0u);
    a = run_one_job(m_dir + "/s1", 1, "same", outcome, serial);
    expect_same_row(a, b);
  }
}

// Split and serial scans agree on random outcomes, for every way a round splits: each run
// alone (fresh), chains (history), and a `both` round's shared worker kept in one piece while
// its fresh runs spread, on 2 to 4 slots, with the pieces of the job's second round (runs
// 8..23) ending in a scripted order: its owner's piece first, so that the third round starts
// while the second waits, or last.
TEST_F(ScanSchedulerTest, SplitAndSerialScansAgreeOnRandomOutcomes) {
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"fresh", ""}, {"both", ""}, {"both", "history = 2\n"}, {"same", "history = 3\n"}};
  for (uint64_t c = 0; c < 24; ++c) {
    const auto& [process, extra] = settings[c % settings.size()];
    const int threads = 2 + static_cast<int>(mix_seed(c, 1) % 3);
    const bool owner_first = mix_seed(c, 4) % 2 == 0;
    // Runs differ from "A" at a few random indices (none in some cases), with 2 or 3 outcomes.
    std::map<uint64_t, std::string> other;
    for (uint64_t k = 0; k < mix_seed(c, 2) % 4; ++k)
      other[mix_seed(c, 3 + k) % 40] = k % 2 ? "B" : "C";
    auto outcome = [&](uint64_t i) {
      auto it = other.find(i);
      return it == other.end() ? std::string("A") : it->second;
    };
    SCOPED_TRACE(fmt::format("case {}: {} {}on {} slots, {} runs differ, owner's piece {}", c,
                             process, extra, threads, other.size(),
                             owner_first ? "first" : "last"));
    scan::ScheduleStats serial, split;
    store::JobRow a = run_one_job(m_dir + "/r1", 1, process, outcome, serial, extra);
    RoundOrder order(8, 24, threads - 1, owner_first);
    store::JobRow b =
        run_one_job(m_dir + "/r2", threads, process, outcome, split, extra, nullptr,
                    "max_runs = 40\nfirst_round = 8\nmax_round = 16\n", order.script());
    expect_same_row(a, b);
    EXPECT_EQ(a.varies(), !other.empty());
    EXPECT_EQ(order.engaged(), a.runs > 8) << "the second round ran, in the order asked for";
    if (!order.engaged()) {
      EXPECT_EQ(split.early_rounds + split.early_dropped, 0u) << "one round: nothing after it";
    } else if (owner_first) {
      EXPECT_TRUE(split.early_rounds > 0 || split.early_dropped > 0)
          << "the third round started while the second waited";
    }
  }
}

TEST_F(ScanSchedulerTest, SameProcessChainsSplitOnlyAtChainBoundaries) {
  // Rounds: 0..7, 8..23, 24..39. With history = 3 a same-process round splits at multiples of 3
  // of its own run indices; with both, at multiples of 6 (its fresh runs interleave).
  auto vary = [](uint64_t i) { return i == 13 || i == 14 ? "B" : i == 20 ? "C" : "A"; };
  auto det = [](uint64_t) { return "A"; };
  for (const auto& [process, unit] : {std::pair<std::string, uint64_t>{"same", 3}, {"both", 6}}) {
    for (const auto& outcome : {std::function<std::string(uint64_t)>(vary), {det}}) {
      SCOPED_TRACE(process);
      scan::ScheduleStats serial, split;
      std::vector<std::pair<uint64_t, uint64_t>> pieces;
      store::JobRow a =
          run_one_job(m_dir + "/h1", 1, process, outcome, serial, "history = 3\n", nullptr);
      store::JobRow b =
          run_one_job(m_dir + "/h3", 3, process, outcome, split, "history = 3\n", &pieces);
      EXPECT_EQ(serial.split_rounds, 0u);
      EXPECT_GE(split.split_rounds, 1u) << "one job, three slots: its rounds run in pieces";
      expect_same_row(a, b);
      for (const auto& [first, end] : pieces) {
        EXPECT_EQ(first % unit, 0u) << "a piece [" << first << ", " << end << ") cuts a chain";
        EXPECT_LT(first, end);
      }
    }
  }
}

// While a round waits for its other pieces, its owner starts its piece of the job's next round,
// from that round's queue. The rows are those of a serial scan; when the round that waited ends
// the job, the runs done for the next one are dropped. The second round (runs 8..15) runs in
// the scripted order that makes the owner wait (RoundOrder): the other slot's piece holds its
// unit until the third round's early piece has made a run.
TEST_F(ScanSchedulerTest, TheOwnersPieceOfTheNextRoundStartsWhileARoundWaits) {
  const std::string budget = "max_runs = 160\nfirst_round = 8\nmax_round = 8\n"; // 20 rounds
  for (const auto& [process, extra, unit] :
       {std::tuple<std::string, std::string, uint64_t>{"fresh", "", 1},
        {"same", "history = 2\n", 2}}) {
    SCOPED_TRACE(process);
    scan::ScheduleStats serial, split;
    auto det = [](uint64_t) { return std::string("A"); };
    store::JobRow a = run_one_job(m_dir + "/e1", 1, process, det, serial, extra, nullptr, budget);
    std::vector<std::pair<uint64_t, uint64_t>> pieces;
    RoundOrder order(8, 16, 1, true);
    store::JobRow b =
        run_one_job(m_dir + "/e2", 2, process, det, split, extra, &pieces, budget, order.script());
    EXPECT_EQ(serial.early_rounds, 0u) << "one slot: no other piece to wait for";
    EXPECT_EQ(a.runs, 160u);
    expect_same_row(a, b);
    EXPECT_TRUE(order.engaged());
    EXPECT_GE(split.early_rounds, 1u) << "the third round did not start while the second waited";
    EXPECT_GE(split.early_runs, split.early_rounds);
    EXPECT_EQ(split.early_dropped, 0u) << "no round ends the job before its budget";
    for (const auto& [first, end] : pieces)
      EXPECT_EQ(first % unit, 0u) << "a piece [" << first << ", " << end << ") cuts a chain";

    // One run of the second round differs, so that round ends the job, while the third round's
    // early piece has made a run: those runs are dropped. The differing run is in the other
    // slot's unit (its last run: 8 + 2 x unit - 1), or the round's last run, in the owner's.
    for (const uint64_t at : {8 + 2 * unit - 1, uint64_t{15}}) {
      SCOPED_TRACE(at);
      auto vary = [at](uint64_t i) { return std::string(i == at ? "B" : "A"); };
      a = run_one_job(m_dir + "/v1", 1, process, vary, serial, extra, nullptr, budget);
      EXPECT_EQ(a.runs, at + 1);
      EXPECT_TRUE(a.varies());
      RoundOrder waits(8, 16, 1, true);
      b = run_one_job(m_dir + "/v2", 2, process, vary, split, extra, nullptr, budget,
                      waits.script());
      expect_same_row(a, b);
      EXPECT_TRUE(waits.engaged());
      EXPECT_GT(split.early_dropped, 0u) << "the second round ended the job while the third had "
                                            "begun: the third's runs are dropped";
    }
  }
}

// A slot left without a job joins a round already running: it takes the runs not yet taken from
// the round's queue, and the job's row is the one a serial scan gives. On two slots, short.ll's
// first round waits until long.ll's has begun (else a slot done with short.ll first could be
// idle when long.ll's round opens, and be borrowed then), and long.ll's first round holds its
// first unit until a second piece has taken one: the slot done with short.ll, joining late.
TEST_F(ScanSchedulerTest, ASlotWithNoJobLeftJoinsARunningRound) {
  const std::string dir = m_dir + "/join";
  make_dirs(dir);
  write_file_atomic(dir + "/long.ll", "; long\n");
  write_file_atomic(dir + "/short.ll", "; short\n");
  write_file_atomic(dir + "/libfake.so", "not a library: the scripted runs never load it");
  scan::Manifest m = scan::parse_manifest(k_fresh_rounds, dir + "/m.toml");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 2u);
  auto scan_with = [&](int threads, scan::ScheduleStats& stats) {
    std::map<uint64_t, uint64_t> offset_of; // a round's master seed -> its first run
    for (const auto& j : jobs)
      for (uint64_t o = 0; o < 40; ++o)
        offset_of[mix_seed(j.seed, o)] = o;
    scan::ScheduleOptions opt;
    opt.threads = threads;
    Latches latches;
    // short.ll varies in its first round; long.ll never varies.
    opt.execute = [&](const engine::RunPlan& plan) {
      const bool is_long = plan.input_path.find("long.ll") != std::string::npos;
      const uint64_t offset = offset_of.at(plan.setting.seed);
      auto hold_first = [&](uint64_t, uint64_t) {
        if (offset != 0 || threads == 1) return;
        if (!is_long) { // runs on once long.ll's round is open, so no slot is idle at its start
          latches.await("long unit");
          return;
        }
        latches.add("long unit");
        if (latches.count("long unit") == 1) latches.await("long unit", 2);
      };
      return scripted_round(
          plan, [&](uint64_t i) { return std::string(!is_long && offset + i == 3 ? "B" : "A"); },
          hold_first);
    };
    return rows_after(m, jobs, dir + "/s.db", opt, stats);
  };
  scan::ScheduleStats serial, joined;
  auto a = scan_with(1, serial);
  auto b = scan_with(2, joined);
  EXPECT_EQ(serial.split_rounds, 0u);
  EXPECT_GE(joined.split_rounds, 1u) << "the slot done with short.ll joins long.ll's rounds";
  EXPECT_GE(joined.joined_pieces, 1u) << "short.ll is done during long.ll's first round";
  ASSERT_EQ(a.size(), 2u);
  for (const auto& [name, row] : a) {
    SCOPED_TRACE(name);
    expect_same_row(row, b.at(name));
  }
  EXPECT_EQ(a.at("long.ll").runs, 40u);
  EXPECT_TRUE(a.at("short.ll").varies());
}

// A running job with more work left than any waiting job gets help as soon as its round opens:
// the slot done with a short job joins the long job's round before taking the next short job,
// rather than when none is left. The rows are still those of a serial scan. In the scripted
// order of two slots, the short jobs' later rounds wait until the long job's second round has
// begun, and that round holds its first unit until a second piece has taken one.
TEST_F(ScanSchedulerTest, ARunningJobWithTheMostWorkLeftIsJoinedBeforeWaitingJobs) {
  const std::string dir = m_dir + "/critical";
  make_dirs(dir);
  write_file_atomic(dir + "/a_long.ll", "; long\n");
  for (int i = 0; i < 6; ++i)
    write_file_atomic(fmt::format("{}/s{}.ll", dir, i), "; short\n");
  write_file_atomic(dir + "/libfake.so", "not a library: the scripted runs never load it");
  scan::Manifest m = scan::parse_manifest(k_fresh_rounds, dir + "/m.toml");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 7u);
  std::map<uint64_t, uint64_t> offset_of; // a round's master seed -> its first run
  for (const auto& j : jobs)
    for (uint64_t o = 0; o < 40; ++o)
      offset_of[mix_seed(j.seed, o)] = o;
  auto scan_with = [&](int threads, scan::ScheduleStats& stats, int& short_rounds_at_join) {
    std::mutex mu;
    int long_running = 0, short_rounds = 0;
    short_rounds_at_join = -1;
    Latches latches;
    const bool scripted = threads > 1;
    scan::ScheduleOptions opt;
    opt.threads = threads;
    // a_long.ll's runs take 4 ms, the short jobs' 1 ms (their measured times, as the scheduler
    // sees them); nothing varies.
    opt.execute = [&](const engine::RunPlan& plan) {
      const bool is_long = plan.input_path.find("a_long.ll") != std::string::npos;
      const uint64_t offset = offset_of.at(plan.setting.seed);
      if (scripted && is_long && offset == 8) latches.add("long round 2");
      if (scripted && !is_long && offset > 0) latches.await("long round 2");
      {
        std::lock_guard<std::mutex> lock(mu);
        if (is_long && long_running++ > 0 && short_rounds_at_join < 0)
          short_rounds_at_join = short_rounds; // a second piece of the long job's round
        if (!is_long) ++short_rounds;
      }
      const double seconds = is_long ? 0.004 : 0.001;
      auto hold_first = [&](uint64_t, uint64_t) {
        if (!scripted || !is_long || offset != 8) return;
        latches.add("long unit");
        if (latches.count("long unit") == 1) latches.await("long unit", 2);
      };
      engine::RunOutput out = scripted_round(
          plan, [](uint64_t) { return std::string("A"); }, hold_first);
      for (auto& r : out.records)
        r.seconds = seconds;
      std::lock_guard<std::mutex> lock(mu);
      if (is_long) --long_running;
      return out;
    };
    return rows_after(m, jobs, dir + "/s.db", opt, stats);
  };
  scan::ScheduleStats serial, joined;
  int at_serial = 0, at_join = 0;
  auto a = scan_with(1, serial, at_serial);
  auto b = scan_with(2, joined, at_join);
  EXPECT_EQ(serial.split_rounds, 0u);
  EXPECT_GE(joined.joined_pieces, 1u);
  // 6 short jobs of 3 rounds each: joining only once no job is left would come after all 18.
  EXPECT_GE(at_join, 0) << "no second piece of the long job's rounds ran";
  EXPECT_LT(at_join, 18) << "the long job was joined only after every short round had started";
  ASSERT_EQ(a.size(), 7u);
  for (const auto& [name, row] : a) {
    SCOPED_TRACE(name);
    expect_same_row(row, b.at(name));
  }
  EXPECT_EQ(a.at("a_long.ll").runs, 40u);
}

// A round interrupted after 5 of its runs keeps only what a resumed round can go on from with the
// history of an uninterrupted one: whole chains (history = 3: 3 runs), nothing when its
// same-process runs share one worker (history = 0), every run when each has its own process.
TEST_F(ScanSchedulerTest, AnInterruptedRoundKeepsOnlyRunsAResumeCanContinue) {
  const std::string dir = m_dir + "/cut";
  for (const auto& [process, extra, kept] :
       {std::tuple<std::string, std::string, uint64_t>{"same", "history = 3\n", 3},
        {"both", "history = 2\n", 4},
        {"same", "", 0},
        {"both", "", 0},
        {"fresh", "", 5}}) {
    SCOPED_TRACE(process + " " + extra);
    scan::Manifest m = one_job_manifest(dir, process, extra, "max_runs = 8\nfirst_round = 8\n");
    auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
    std::map<std::string, store::JobRow> state;
    state[jobs.at(0).id] = scan::initial_row(m, jobs[0]);
    store::ScanDb db(dir + "/s.db");
    scan::ScheduleOptions opt;
    std::vector<uint64_t> starts; // each call's first run (the first call's runs 0..4 only)
    opt.execute = [&](const engine::RunPlan& plan) {
      starts.push_back(plan.first_index);
      engine::RunOutput out = scripted_round(plan, [](uint64_t) { return "A"; });
      if (starts.size() == 1) { // SIGINT after run 5
        out.records.resize(plan.runs);
        for (uint64_t i = 5; i < plan.runs; ++i)
          out.records[i] = engine::RunRecord{};
        out.completed = 5;
        out.variants[0].count = 5;
        out.interrupted = true;
      } else {
        std::vector<engine::RunRecord> by_index(plan.runs);
        for (auto& r : out.records)
          by_index[r.index] = r;
        out.records = by_index;
      }
      return out;
    };
    {
      store::ScanWriter writer(db);
      scan::ScheduleStats st = scan::run_jobs(m, jobs, state, writer, opt);
      EXPECT_TRUE(st.errors.empty());
    }
    if (kept == 0) { // nothing stored: the round is in flight, as when killed
      EXPECT_EQ(starts.size(), 1u);
      EXPECT_EQ(state.begin()->second.runs, 0u);
      continue;
    }
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_EQ(starts[1], kept) << "the resumed round starts where the kept runs end";
    EXPECT_EQ(state.begin()->second.runs, 8u);
  }
}

TEST_F(ScanSchedulerTest, FirstRoundsFirstThenTheJobExpectedToTakeLongest) {
  const std::string text = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                           "\"nvvm\"\nlib = \"libfake.so\"\n[budget]\nmax_runs = 24\n"
                           "first_round = 8\n";
  scan::Manifest m = scan::parse_manifest(text, m_dir + "/m.toml");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  std::map<std::string, store::JobRow> state;
  for (const auto& j : jobs)
    state[j.id] = scan::initial_row(m, j);
  store::ScanDb db(m_dir + "/s.db");
  std::vector<std::string> order; // input file of each round, in the order they ran
  scan::ScheduleOptions opt;
  opt.execute = [&](const engine::RunPlan& plan) {
    engine::RunOutput out;
    out.plan = plan;
    out.identity.version = "scripted";
    const std::string name = plan.input_path.substr(plan.input_path.rfind('/') + 1);
    order.push_back(name);
    for (uint64_t i = plan.first_index; i < plan.runs; ++i) {
      engine::RunRecord r;
      r.index = i;
      r.status = backend::Status::ok;
      r.variant = "A";
      r.done = true;
      r.seconds = name == "vary.ll" ? 1.0 : 0.01; // vary.ll's runs take 100 times as long
      out.records.push_back(r);
    }
    out.completed = plan.runs - plan.first_index;
    out.variants.push_back({"A", out.completed, plan.first_index, backend::Status::ok, "", {}, ""});
    out.wall_seconds = static_cast<double>(out.completed) * (name == "vary.ll" ? 1.0 : 0.01);
    return out;
  };
  store::ScanWriter writer(db);
  scan::ScheduleStats st = scan::run_jobs(m, jobs, state, writer, opt);
  EXPECT_EQ(st.jobs_finished, 2u);
  EXPECT_EQ(order, (std::vector<std::string>{"det.ll", "vary.ll", "vary.ll", "det.ll"}))
      << "planned order for the first rounds, then the longer job's rest first";
}

// The progress line's estimate rests on the runs' measured times from the first round on (runs
// left x mean slot time / slots), not on a count of finished jobs, which is 0 while every job's
// first, short round runs first.
TEST_F(ScanSchedulerTest, EstimateUsesMeasuredRunTimesFromTheFirstRound) {
  const std::string text = "inputs = [\"*.ll\"]\n[[compiler]]\nname = \"c\"\nbackend = "
                           "\"nvvm\"\nlib = \"libfake.so\"\n[budget]\nmax_runs = 40\n"
                           "first_round = 8\n";
  write_file_atomic(m_dir + "/m.toml", text);
  scan::Manifest m = scan::parse_manifest(text, m_dir + "/m.toml");
  auto jobs = scan::plan_jobs(m, scan::resolve_compilers(m));
  ASSERT_EQ(jobs.size(), 2u);
  std::vector<scan::ScanProgress> seen;
  scan::ScheduleOptions opt;
  opt.threads = 1;
  opt.seconds_per_run = 9; // the probes' figure: replaced once runs are timed
  opt.progress = [&](const scan::ScanProgress& p) { seen.push_back(p); };
  opt.execute = [&](const engine::RunPlan& plan) {
    engine::RunOutput out = scripted_round(plan, [](uint64_t) { return std::string("A"); });
    for (auto& r : out.records)
      r.seconds = 0.1;
    return out;
  };
  scan::ScheduleStats stats;
  rows_after(m, jobs, m_dir + "/est.db", opt, stats);
  ASSERT_GE(seen.size(), 2u);
  // After the first job's first round (8 of 80 runs): 72 runs left at 0.1 s on one slot.
  EXPECT_EQ(seen.front().done, 0u);
  EXPECT_NEAR(seen.front().seconds_left, 7.2, 1e-6);
  EXPECT_EQ(seen.back().seconds_left, 0);
  EXPECT_TRUE(seen.back().last);
}
