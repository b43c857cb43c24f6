//===- scan/scheduler.cpp - adaptive rounds of each job on a thread pool -------===//
#include "kdet/scan/scheduler.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/variant_order.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/scan/split_round.hpp"
#include "kdet/scan/trace.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <fmt/format.h>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace kdet::scan {

using Clock = std::chrono::steady_clock;

store::JobRow initial_row(const Manifest& m, const Job& job) {
  store::JobRow r;
  r.id = job.id;
  r.input = job.input->name;
  r.input_hash = job.input_hash;
  r.compiler = m.compilers[job.compiler].name;
  r.target = job.target;
  r.option_set = option_set_name(m, job);
  r.options = job.options;
  r.seed = job.seed;
  r.budget = job_budget(m);
  r.expected_vary = job.expect != nullptr;
  r.expect_reason = job.expect ? job.expect->reason : "";
  if (job.bundle) r.kernels = job.bundle->kernels;
  return r;
}

namespace {

// Where round k of an uninterrupted scan starts and how many runs it has.
struct RoundSpan {
  uint64_t start = 0;
  uint64_t size = 0; // 0: the budget is spent
};

// The round of the uninterrupted schedule that holds run `runs` (the next one to do). The
// schedule depends only on the manifest and the budget, never on where a scan was stopped.
RoundSpan round_holding(const Manifest& m, uint64_t budget, uint64_t runs) {
  RoundSpan r;
  for (uint64_t k = 0;; ++k) {
    r.size = std::min(m.max_round, m.first_round << std::min<uint64_t>(k, 20));
    r.size = std::min(r.size, budget - std::min(budget, r.start));
    if (r.size == 0 || runs < r.start + r.size) return r;
    r.start += r.size;
  }
}

// Folds one round's output into the job's cumulative row; returns what to store.
store::RoundWrite fold_round(store::JobRow& row, const engine::RunOutput& out, uint64_t offset) {
  store::RoundWrite w;
  w.compiler_version = out.identity.version;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    store::RunRow x;
    x.index = offset + r.index;
    x.variant = r.variant;
    x.status = backend::to_string(r.status);
    x.code = r.code;
    x.signal = r.signal;
    x.seed = r.seed;
    x.seconds = r.seconds;
    x.compile_seconds = r.compile_seconds;
    x.worker_pid = r.worker_pid;
    x.nth_in_worker = r.nth_in_worker;
    x.detail = r.detail;
    w.runs.push_back(std::move(x));
  }
  for (const engine::Variant* v : store::merge_variants(row, out, offset, true))
    for (const auto& a : v->artifacts)
      w.blobs.emplace_back(a.hash, backend::artifact_bytes(a));
  row.rounds += 1;
  row.done = !out.interrupted && (row.variants.size() >= 2 || row.runs >= row.budget);
  w.job = row;
  return w;
}

// A failing store fails every slot's next push the same way: one message each.
void add_error(ScheduleStats& stats, const std::string& what) {
  if (std::find(stats.errors.begin(), stats.errors.end(), what) == stats.errors.end())
    stats.errors.push_back(what);
}

// The progress line's estimate: the runs left at most (every unfinished job's budget) and this
// invocation's runs with their slot seconds. Measured compile times from the first run on: a
// count of finished jobs says little while every job's first, short round runs first.
struct RunsLeft {
  double fallback = 0; // ScheduleOptions::seconds_per_run, until a run is timed
  uint64_t runs = 0, timed = 0;
  double timed_seconds = 0;

  void add_round(const engine::RunOutput& out) {
    runs -= std::min<uint64_t>(runs, out.completed);
    for (const auto& r : out.records)
      if (r.done) timed_seconds += r.seconds, ++timed;
  }
  // A job that varied stops before its budget: its runs not made are no longer left.
  void finished(const store::JobRow& row) {
    runs -= std::min(runs, row.budget - std::min(row.budget, row.runs));
  }
  // Seconds left on `threads` slots with `jobs` jobs unfinished; -1 when nothing is timed.
  double seconds(int threads, size_t jobs) const {
    const double per_run = timed ? timed_seconds / static_cast<double>(timed) : fallback;
    if (per_run <= 0) return -1;
    const auto slots = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), jobs));
    return per_run * static_cast<double>(runs) / static_cast<double>(slots);
  }
};

} // namespace

ScheduleStats run_jobs(const Manifest& m, const std::vector<Job>& jobs,
                       std::map<std::string, store::JobRow>& state, store::ScanWriter& writer,
                       const ScheduleOptions& options) {
  ScheduleStats stats;
  auto t0 = Clock::now();
  // Jobs whose first round is due, in planned order; jobs with runs stored (resumed) are ready
  // for their later rounds at once, ordered by what their stored runs took.
  std::vector<const Job*> fresh;
  std::vector<std::pair<double, const Job*>> ready; // (work_left, job)
  // Slot seconds and runs so far by job id: the runs' own times, so that a split round counts
  // what it takes on one slot (the job row's seconds are its rounds' wall time, which is all a
  // job resumed from the database has).
  std::map<std::string, std::pair<double, uint64_t>> run_seconds;
  auto seconds_per_run = [&](const store::JobRow& row) { // under mu once the slots run
    auto it = run_seconds.find(row.id);
    if (it != run_seconds.end() && it->second.first > 0)
      return it->second.first / static_cast<double>(it->second.second);
    return row.runs > 0 ? row.seconds / static_cast<double>(row.runs) : 0.0;
  };
  // How long a job's remaining runs are expected to take on one slot.
  auto work_left = [&](const store::JobRow& row) {
    return seconds_per_run(row) * static_cast<double>(row.budget - std::min(row.budget, row.runs));
  };
  size_t total = jobs.size(), already = 0, todo = 0;
  std::atomic<size_t> varying{0};
  RunsLeft left{options.seconds_per_run}; // under mu once the slots run
  for (const auto& j : jobs) {
    const store::JobRow& r = state.at(j.id);
    if (r.done) {
      ++already;
      if (r.varies()) ++varying;
      continue;
    }
    ++todo;
    left.runs += r.budget - std::min(r.budget, r.runs);
    if (r.runs == 0)
      fresh.push_back(&j);
    else
      ready.emplace_back(work_left(r), &j);
  }
  std::atomic<size_t> finished{0};
  std::mutex mu; // guards state, stats, broken, identities, the queues, progress calls
  std::condition_variable queue_changed;
  // jobs_running: jobs a slot is running rounds of, whose later rounds this slot may yet join.
  size_t next_fresh = 0, jobs_running = 0;
  std::map<size_t, backend::Identity>
      identities;          // by compiler index: loaded once, later rounds skip the probe
  std::set<size_t> broken; // compilers that failed to load
  auto last_report = Clock::now() - std::chrono::seconds(1);
  const int threads = std::max(1, options.threads);
  // Slots with no job left to take: a splittable round borrows them (run_split).
  std::atomic<int> idle_slots{0};
  // The splittable rounds running now, which a slot with no job left joins: it takes runs from
  // the round's queue until none is left (under mu, as their joiners and outputs).
  struct OpenRound {
    engine::RunPlan plan; // its queue shared by every piece
    // What the job has left after this round's runs not yet taken, in runs, and its seconds
    // per run so far (seconds_per_run): how long it still takes on one slot.
    uint64_t runs_after = 0;
    double per_run = 0;
    int joiners = 0; // slots running a piece of it now, beyond the owner's
    std::vector<engine::RunOutput> joined;
    size_t late = 0; // pieces that did runs, of slots that joined after the round opened
    std::exception_ptr error;
  };
  std::vector<std::shared_ptr<OpenRound>> open_rounds;
  std::condition_variable round_joined;
  auto exec = [&](const engine::RunPlan& p) {
    return options.execute ? options.execute(p) : engine::execute(p);
  };
  // Runs a piece of an open round on this slot (borrowed when the round opened, or `late`: a
  // slot that joined it later): its runs come from the round's queue. A borrowed slot is given
  // back as soon as its piece is done, before the round's owner learns it, so that the owner's
  // next round may borrow it again.
  auto join_round = [&](OpenRound& r, bool late) {
    engine::RunOutput out;
    std::exception_ptr error;
    try {
      out = exec(r.plan);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu);
    if (late && out.completed > 0) ++r.late;
    r.joined.push_back(std::move(out));
    if (error && !r.error) r.error = error;
    if (!late) {
      idle_slots.fetch_add(1);
      queue_changed.notify_all();
    }
    --r.joiners;
    round_joined.notify_all();
  };
  // Workers start ahead (within a round, and for the next round: engine/worker_pool.hpp) only
  // where a core is spare for their start: with a slot on every core they would slow the
  // compiles beside them by as much as they save.
  const bool ahead = threads < static_cast<int>(usable_cores());
  std::shared_ptr<engine::WorkerPool> workers_ahead;
  if (!options.execute && ahead)
    workers_ahead = std::make_shared<engine::WorkerPool>(static_cast<size_t>(threads));

  auto report_progress = [&](bool force, bool last) {
    if (!options.progress) return;
    auto now = Clock::now();
    if (!force && now - last_report < std::chrono::milliseconds(200)) return;
    last_report = now;
    size_t done_now = finished.load();
    ScanProgress p;
    p.done = already + done_now;
    p.total = total;
    p.varying = varying.load();
    p.runs = stats.runs; // under mu, as every change of it
    p.last = last;
    p.seconds_left = done_now == todo ? 0 : left.seconds(options.threads, todo - done_now);
    options.progress(p);
  };

  std::atomic<bool> aborted{false}; // the store failed: stop taking jobs
  auto stopping = [&] { return engine::interrupted() || aborted.load(); };

  // The next job to run and whether only its first round is due: every job's first round
  // first (in planned order), then the job expected to take longest, unless a running job's open
  // round has runs not taken and that job has more work left: then that round, to join (`join`
  // set, nullptr returned). With no job to take, the open round with the most runs not taken. Waits
  // while jobs are running that may add a job or open a round, its slot idle meanwhile (so a
  // starting round may borrow it, and the wait lasts until it is given back); nullptr when
  // nothing is left, `idle` then saying whether the slot is already counted idle.
  auto take = [&](bool& first_only, bool& idle, std::shared_ptr<OpenRound>& join) -> const Job* {
    std::unique_lock<std::mutex> lock(mu);
    idle = false;
    // The open round with the most runs not yet taken, if any.
    auto joinable = [&]() -> std::shared_ptr<OpenRound> {
      std::shared_ptr<OpenRound> best;
      uint64_t most = 0;
      for (const auto& r : open_rounds)
        if (uint64_t left = r->plan.queue->left(); left > most) best = r, most = left;
      return best;
    };
    // The open round whose job has the most work left (its runs not taken and its later rounds,
    // at its seconds per run so far), if one has runs not taken; and that work.
    auto critical = [&]() -> std::pair<std::shared_ptr<OpenRound>, double> {
      std::pair<std::shared_ptr<OpenRound>, double> best{nullptr, 0.0};
      for (const auto& r : open_rounds)
        if (uint64_t left = r->plan.queue->left(); left > 0) {
          double work = r->per_run * static_cast<double>(left + r->runs_after);
          if (!best.first || work > best.second) best = {r, work};
        }
      return best;
    };
    auto reclaim = [&] { // the slot back from idle_slots, unless a round borrowed it
      if (!idle) return true;
      for (int n = idle_slots.load(); n > 0;)
        if (idle_slots.compare_exchange_weak(n, n - 1)) return !(idle = false);
      return false;
    };
    for (;;) {
      if (stopping()) return nullptr;
      if (next_fresh < fresh.size() && reclaim()) {
        first_only = true;
        ++jobs_running;
        return fresh[next_fresh++];
      }
      if (!ready.empty() && reclaim()) {
        auto it = std::max_element(ready.begin(), ready.end(),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
        // A job already running with more work left than any waiting one is the scan's tail in
        // the making: help it now rather than when nothing else is left.
        if (auto [r, work] = critical(); r && work > it->first) {
          ++r->joiners;
          join = std::move(r);
          return nullptr;
        }
        const Job* j = it->second;
        ready.erase(it);
        first_only = false;
        ++jobs_running;
        if (!ready.empty()) queue_changed.notify_all(); // more for the waiting slots
        return j;
      }
      if (auto r = joinable(); r && reclaim()) {
        ++r->joiners;
        join = std::move(r);
        return nullptr;
      }
      if (next_fresh == fresh.size() && ready.empty() && jobs_running == 0) {
        queue_changed.notify_all(); // the waiting slots are done too
        return nullptr;
      }
      if (!idle) {
        idle = true;
        idle_slots.fetch_add(1);
      }
      queue_changed.wait_for(lock, std::chrono::milliseconds(100));
    }
  };

  // The plan of a job's round of `size` runs from run `start` (under mu): stop at the second
  // outcome, workers started ahead where a core is spare, the compiler's identity once known.
  auto round_plan = [&](const Job& job, uint64_t start, uint64_t size) {
    engine::RunPlan p = job_run_plan(m, job, m.compilers[job.compiler].setting, start, size, 2);
    p.pool = workers_ahead;
    p.prestart = ahead;
    if (auto it = identities.find(job.compiler); it != identities.end()) p.identity = it->second;
    return p;
  };

  // Runs a job's rounds until it is done (or only its first round).
  auto run_job = [&](const Job& job, bool first_only) {
    store::JobRow row;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (broken.count(job.compiler)) return;
      row = state.at(job.id);
    }
    // This slot's piece of the job's next round, started while the last round waited for its
    // other pieces (close_round), from that round's queue.
    struct EarlyPiece {
      uint64_t start = 0; // the round's first run
      std::shared_ptr<engine::RunQueue> queue;
      std::future<engine::RunOutput> out;
      EarlyPiece() = default;
      EarlyPiece(const EarlyPiece&) = delete;
      EarlyPiece& operator=(const EarlyPiece&) = delete;
      ~EarlyPiece() { // not taken by its round: it ends after its current run (out waits for it)
        if (queue) queue->close();
      }
    };
    std::optional<EarlyPiece> early;
    auto drop_early = [&] { // that round is not run: its runs done are dropped
      early->queue->close();
      uint64_t done = 0;
      try {
        if (early->out.valid()) done = early->out.get().completed;
      } catch (...) { // the round would have met it; there is none
      }
      early.reset();
      std::lock_guard<std::mutex> lock(mu);
      stats.early_dropped += done;
    };
    while (!row.done && !stopping()) {
      // A round cut short by SIGINT/SIGTERM is finished from where it stopped, with the
      // run indices (and so the seeds) an uninterrupted scan would have given.
      RoundSpan span = round_holding(m, row.budget, row.runs);
      uint64_t offset = span.start;
      if (span.size == 0) {
        row.done = true;
        store::RoundWrite w;
        w.job = row;
        writer.push(std::move(w));
        break;
      }
      engine::RunPlan plan;
      {
        std::lock_guard<std::mutex> lock(mu);
        plan = round_plan(job, offset, span.size);
      }
      plan.first_index = row.runs - span.start;
      // Idle slots join in when no run sees another's history (or only its own chain's): some
      // at the start, each piece at least two runs, and any slot left without a job later on.
      int borrowed = 0;
      const Splitting split = splitting(m.compilers[job.compiler].setting, job);
      const uint64_t unit = split.unit;
      if (early && (span.start != early->start || plan.first_index != 0 || unit == 0))
        drop_early(); // not this round's start (cannot happen: a completed round went before)
      std::shared_ptr<OpenRound> round;
      std::vector<std::jthread> helpers; // the borrowed slots' pieces (joined at the round's end)
      if (unit > 0) {
        plan.queue = early ? early->queue : split.queue(plan.first_index, plan.runs);
        const int most = static_cast<int>(std::min<uint64_t>(early ? max_pieces(*plan.queue, unit)
                                                                   : max_pieces(plan, unit),
                                                             static_cast<uint64_t>(threads))) -
                         1;
        int idle = idle_slots.load();
        while (most > 0 && idle > 0) {
          int want = std::min(idle, most);
          if (idle_slots.compare_exchange_weak(idle, idle - want)) {
            borrowed = want;
            break;
          }
        }
        round = std::make_shared<OpenRound>();
        round->plan = plan;
        round->runs_after = row.budget - std::min(row.budget, offset + span.size);
        round->joiners = borrowed;
        {
          std::lock_guard<std::mutex> lock(mu);
          round->per_run = seconds_per_run(row);
          open_rounds.push_back(round);
          queue_changed.notify_all();
        }
        for (int b = 0; b < borrowed; ++b)
          helpers.emplace_back([&join_round, round] { join_round(*round, false); });
      }
      // Closes the round to joiners and waits for the pieces running; their outputs. While it
      // waits, this slot starts its piece of the job's next round, which runs from that round's
      // queue what it would run there (the runs, seeds and worker history they have in any
      // piece): unless this round ends the job, which its outcome decides, that round then
      // opens with its piece under way, and the wait is not lost.
      size_t joined = 0;
      const RoundSpan next = round_holding(m, row.budget, span.start + span.size);
      auto close_round = [&] {
        std::unique_lock<std::mutex> lock(mu);
        open_rounds.erase(std::find(open_rounds.begin(), open_rounds.end(), round));
        if (round->joiners > 0 && !first_only && next.size > 0 &&
            next.start == span.start + span.size && !stopping()) {
          engine::RunPlan next_plan = round_plan(job, next.start, next.size);
          next_plan.queue = split.queue(0, next.size);
          early.emplace();
          early->start = next.start;
          early->queue = next_plan.queue;
          early->out = std::async(std::launch::async, exec, std::move(next_plan));
        }
        round_joined.wait(lock, [&] { return round->joiners == 0; });
        if (round->error) std::rethrow_exception(round->error);
        joined = round->late;
        return std::move(round->joined);
      };
      engine::RunOutput out;
      uint64_t ran_early = 0; // runs of this round's own piece started early
      auto own = [&] {
        if (!early) return exec(plan);
        engine::RunOutput o = early->out.get(); // on a throw, drop_early finds it taken
        early->queue.reset();                   // the round's now: not stopped
        early.reset();
        ran_early = o.completed;
        return o;
      };
      try {
        out = round ? run_split(plan, own, close_round) : exec(plan);
        // The compiler file is no longer the one the jobs' ids were made from (checked against
        // its stamp when the scan planned them): none of this round's runs is stored, and the
        // compiler's jobs stop here with the reason (a resumed scan plans new ones).
        if (!out.compiler_changed.empty()) throw Error(out.compiler_changed);
        std::lock_guard<std::mutex> lock(mu);
        identities.emplace(job.compiler, out.identity);
      } catch (const Interrupted&) {
        break; // SIGINT while a piece loaded the compiler: not its fault
      } catch (const Error& e) {
        std::lock_guard<std::mutex> lock(mu);
        if (broken.insert(job.compiler).second)
          stats.errors.push_back(
              fmt::format("compiler '{}': {}", m.compilers[job.compiler].name, e.what()));
        break;
      }
      if (out.interrupted) keep_resumable_runs(out, job, m.compilers[job.compiler].setting);
      if (out.completed == 0) break; // interrupted before any run finished (or to keep)
      store::RoundWrite w = fold_round(row, out, offset);
      if (options.trace)
        options.trace->add_round(job.id,
                                 fmt::format("{}{} {} {}", row.input,
                                             m.compilers.size() > 1 ? " " + row.compiler : "",
                                             row.target, row.option_set),
                                 out, offset);
      writer.push(std::move(w));
      std::lock_guard<std::mutex> lock(mu);
      auto& spent = run_seconds[job.id];
      for (const auto& r : out.records)
        if (r.done) spent.first += r.seconds, spent.second += 1;
      stats.rounds += 1;
      stats.runs += out.completed;
      left.add_round(out);
      for (const auto& r : out.records)
        if (r.done) stats.compile_cpu_seconds += r.compile_cpu_seconds;
      stats.early_runs += ran_early;
      if (ran_early > 0) stats.early_rounds += 1;
      if (borrowed + joined > 0) {
        stats.split_rounds += 1;
        stats.split_pieces += static_cast<uint64_t>(borrowed) + joined + 1;
        stats.joined_pieces += joined;
      }
      if (first_only) break;
    }
    if (early) drop_early(); // this round ended the job (or the scan stopped)
    std::lock_guard<std::mutex> lock(mu);
    state[job.id] = row;
    if (row.done) {
      left.finished(row);
      ++finished;
      ++stats.jobs_finished;
      if (row.varies()) ++varying;
    } else if (first_only && row.runs > 0 && !stopping()) {
      ready.emplace_back(work_left(row), &job);
    }
    report_progress(false, false);
  };
  // A slot is done with a job for now (its first round, or all its rounds; or it failed). The
  // waiting slots are woken only when no job runs any more, so that they can finish: otherwise
  // this slot takes the next job itself (take() wakes them when more is left), so that none
  // takes it while this slot, about to be idle, would be missed by the round's borrowing.
  auto job_ended = [&] {
    std::lock_guard<std::mutex> lock(mu);
    if (--jobs_running == 0) queue_changed.notify_all(); // the waiting slots may be done
  };
  auto work = [&](bool& idle) {
    for (;;) {
      bool first_only = false;
      std::shared_ptr<OpenRound> join;
      const Job* job = take(first_only, idle, join);
      if (join) {
        join_round(*join, true);
        continue;
      }
      if (!job) return;
      try {
        run_job(*job, first_only);
      } catch (...) {
        job_ended();
        throw;
      }
      job_ended();
    }
  };
  // A failing store (disk full, database locked by another writer) ends the scan with its message.
  auto worker = [&] {
    bool idle = false;
    try {
      work(idle);
    } catch (const std::exception& e) {
      aborted.store(true);
      std::lock_guard<std::mutex> lock(mu);
      add_error(stats, e.what());
    }
    if (!idle) idle_slots.fetch_add(1); // no job left for this slot: a running round may borrow it
  };
  int n = std::min<int>(threads, static_cast<int>(std::max<size_t>(1, todo)));
  idle_slots.store(threads - n);
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();
  try {
    writer.flush();
  } catch (const std::exception& e) {
    add_error(stats, e.what());
  }
  if (todo) report_progress(true, true);
  stats.interrupted = engine::interrupted();
  stats.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return stats;
}

} // namespace kdet::scan
