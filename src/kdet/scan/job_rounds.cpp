//===- scan/job_rounds.cpp - a job's rounds on one slot ----------------------===//
//
// A job runs in rounds until it varies or its budget is spent; a splittable round is run in
// pieces on idle slots (scan/split_round.hpp), and while it waits for them, this slot starts its
// piece of the job's next round (EarlyPiece). Each round is folded into the job's row and
// pushed to the store at once.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/interrupt.hpp"
#include "kdet/scan/job_scheduler.hpp"
#include "kdet/scan/trace.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <thread>

namespace kdet::scan {

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

} // namespace

// The plan of a job's round of `size` runs from run `start` (under m_mu): stop at the second
// outcome, workers started ahead where a core is spare, the compiler's identity once known.
engine::RunPlan JobScheduler::round_plan(const Job& job, uint64_t start, uint64_t size) {
  engine::RunPlan p = job_run_plan(m_m, job, m_m.compilers[job.compiler].setting, start, size, 2);
  p.pool = m_workers_ahead;
  p.prestart = m_ahead;
  if (auto it = m_identities.find(job.compiler); it != m_identities.end()) p.identity = it->second;
  return p;
}

// Runs a piece of an open round on this slot (borrowed when the round opened, or `late`: a slot
// that joined it later): its runs come from the round's queue. A borrowed slot is given back as
// soon as its piece is done, before the round's owner learns it, so that the owner's next round
// may borrow it again.
void JobScheduler::join_round(OpenRound& r, bool late) {
  engine::RunOutput out;
  std::exception_ptr error;
  try {
    out = exec(r.plan);
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(m_mu);
  if (late && out.completed > 0) ++r.late;
  r.joined.push_back(std::move(out));
  if (error && !r.error) r.error = error;
  if (!late) {
    m_idle_slots.fetch_add(1);
    m_queue_changed.notify_all();
  }
  --r.joiners;
  m_round_joined.notify_all();
}

// The early piece's round is not run: its runs done are dropped.
void JobScheduler::drop_early(JobRun& jr) {
  jr.early->queue->close();
  uint64_t done = 0;
  try {
    if (jr.early->out.valid()) done = jr.early->out.get().completed;
  } catch (...) { // the round would have met it; there is none
  }
  jr.early.reset();
  std::lock_guard<std::mutex> lock(m_mu);
  m_stats.early_dropped += done;
}

// Runs a job's rounds until it is done (or only its first round).
void JobScheduler::run_job(const Job& job, bool first_only) {
  JobRun jr{job, first_only, {}, std::nullopt};
  {
    std::lock_guard<std::mutex> lock(m_mu);
    if (m_broken.count(job.compiler)) return;
    jr.row = m_state.at(job.id);
  }
  while (!jr.row.done && !stopping() && run_round(jr)) {
  }
  if (jr.early) drop_early(jr); // this round ended the job (or the scan stopped)
  const store::JobRow& row = jr.row;
  std::lock_guard<std::mutex> lock(m_mu);
  m_state[job.id] = row;
  if (row.done) {
    m_left.finished(row);
    ++m_finished;
    ++m_stats.jobs_finished;
    if (row.varies()) ++m_varying;
  } else if (first_only && row.runs > 0 && !stopping()) {
    m_ready.emplace_back(work_left(row), &job);
  }
  report_progress(false, false);
}

// One round of the job: its runs (on this slot, and in pieces on idle slots when it splits),
// folded into the row and pushed to the store. False when the job's rounds end here.
bool JobScheduler::run_round(JobRun& jr) {
  const Job& job = jr.job;
  store::JobRow& row = jr.row;
  // A round cut short by SIGINT/SIGTERM is finished from where it stopped, with the run indices
  // (and so the seeds) an uninterrupted scan would have given.
  RoundSpan span = round_holding(m_m, row.budget, row.runs);
  uint64_t offset = span.start;
  if (span.size == 0) {
    row.done = true;
    store::RoundWrite w;
    w.job = row;
    m_writer.push(std::move(w));
    return false;
  }
  engine::RunPlan plan;
  {
    std::lock_guard<std::mutex> lock(m_mu);
    plan = round_plan(job, offset, span.size);
  }
  plan.first_index = row.runs - span.start;
  // Idle slots join in when no run sees another's history (or only its own chain's): some at
  // the start, each piece at least two runs, and any slot left without a job later on.
  int borrowed = 0;
  const Splitting split = splitting(m_m.compilers[job.compiler].setting, job);
  const uint64_t unit = split.unit;
  if (jr.early && (span.start != jr.early->start || plan.first_index != 0 || unit == 0))
    drop_early(jr); // not this round's start (cannot happen: a completed round went before)
  std::shared_ptr<OpenRound> round;
  std::vector<std::jthread> helpers; // the borrowed slots' pieces (joined at the round's end)
  if (unit > 0) {
    plan.queue = jr.early ? jr.early->queue : split.queue(plan.first_index, plan.runs);
    const int most = static_cast<int>(std::min<uint64_t>(jr.early ? max_pieces(*plan.queue, unit)
                                                                  : max_pieces(plan, unit),
                                                         static_cast<uint64_t>(m_threads))) -
                     1;
    int idle = m_idle_slots.load();
    while (most > 0 && idle > 0) {
      int want = std::min(idle, most);
      if (m_idle_slots.compare_exchange_weak(idle, idle - want)) {
        borrowed = want;
        break;
      }
    }
    round = std::make_shared<OpenRound>();
    round->plan = plan;
    round->runs_after = row.budget - std::min(row.budget, offset + span.size);
    round->joiners = borrowed;
    {
      std::lock_guard<std::mutex> lock(m_mu);
      round->per_run = seconds_per_run(row);
      m_open_rounds.push_back(round);
      m_queue_changed.notify_all();
    }
    for (int b = 0; b < borrowed; ++b)
      helpers.emplace_back([this, round] { join_round(*round, false); });
  }
  // Closes the round to joiners and waits for the pieces running; their outputs. While it
  // waits, this slot starts its piece of the job's next round, which runs from that round's
  // queue what it would run there (the runs, seeds and worker history they have in any piece):
  // unless this round ends the job, which its outcome decides, that round then opens with its
  // piece under way, and the wait is not lost.
  size_t joined = 0;
  const RoundSpan next = round_holding(m_m, row.budget, span.start + span.size);
  auto close_round = [&] {
    std::unique_lock<std::mutex> lock(m_mu);
    m_open_rounds.erase(std::find(m_open_rounds.begin(), m_open_rounds.end(), round));
    if (round->joiners > 0 && !jr.first_only && next.size > 0 &&
        next.start == span.start + span.size && !stopping()) {
      engine::RunPlan next_plan = round_plan(job, next.start, next.size);
      next_plan.queue = split.queue(0, next.size);
      jr.early.emplace();
      jr.early->start = next.start;
      jr.early->queue = next_plan.queue;
      jr.early->out = std::async(
          std::launch::async, [this](const engine::RunPlan& p) { return exec(p); },
          std::move(next_plan));
    }
    m_round_joined.wait(lock, [&] { return round->joiners == 0; });
    if (round->error) std::rethrow_exception(round->error);
    joined = round->late;
    return std::move(round->joined);
  };
  engine::RunOutput out;
  uint64_t ran_early = 0; // runs of this round's own piece started early
  auto own = [&] {
    if (!jr.early) return exec(plan);
    engine::RunOutput o = jr.early->out.get(); // on a throw, drop_early finds it taken
    jr.early->queue.reset();                   // the round's now: not stopped
    jr.early.reset();
    ran_early = o.completed;
    return o;
  };
  try {
    out = round ? run_split(plan, own, close_round) : exec(plan);
    // The compiler file is no longer the one the jobs' ids were made from (checked against its
    // stamp when the scan planned them): none of this round's runs is stored, and the
    // compiler's jobs stop here with the reason (a resumed scan plans new ones).
    if (!out.compiler_changed.empty()) throw Error(out.compiler_changed);
    std::lock_guard<std::mutex> lock(m_mu);
    m_identities.emplace(job.compiler, out.identity);
  } catch (const Interrupted&) {
    return false; // SIGINT while a piece loaded the compiler: not its fault
  } catch (const Error& e) {
    std::lock_guard<std::mutex> lock(m_mu);
    if (m_broken.insert(job.compiler).second)
      m_stats.errors.push_back(
          fmt::format("compiler '{}': {}", m_m.compilers[job.compiler].name, e.what()));
    return false;
  }
  if (out.interrupted) keep_resumable_runs(out, job, m_m.compilers[job.compiler].setting);
  if (out.completed == 0) return false; // interrupted before any run finished (or to keep)
  store::RoundWrite w = fold_round(row, out, offset);
  if (m_options.trace)
    m_options.trace->add_round(job.id,
                               fmt::format("{}{} {} {}", row.input,
                                           m_m.compilers.size() > 1 ? " " + row.compiler : "",
                                           row.target, row.option_set),
                               out, offset);
  m_writer.push(std::move(w));
  count_round(job, out, ran_early, borrowed, joined);
  return !jr.first_only;
}

// The round's runs and pieces in the scan's statistics.
void JobScheduler::count_round(const Job& job, const engine::RunOutput& out, uint64_t ran_early,
                               int borrowed, size_t joined) {
  std::lock_guard<std::mutex> lock(m_mu);
  auto& spent = m_run_seconds[job.id];
  for (const auto& r : out.records)
    if (r.done) spent.first += r.seconds, spent.second += 1;
  m_stats.rounds += 1;
  m_stats.runs += out.completed;
  m_left.add_round(out);
  for (const auto& r : out.records)
    if (r.done) m_stats.compile_cpu_seconds += r.compile_cpu_seconds;
  m_stats.early_runs += ran_early;
  if (ran_early > 0) m_stats.early_rounds += 1;
  if (borrowed + joined > 0) {
    m_stats.split_rounds += 1;
    m_stats.split_pieces += static_cast<uint64_t>(borrowed) + joined + 1;
    m_stats.joined_pieces += joined;
  }
}

} // namespace kdet::scan
