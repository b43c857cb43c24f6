//===- scan/job_rounds.cpp - a job's rounds, each one RunSession -------------===//
//
// A job runs in rounds until it varies or its budget is spent; each round is one session in the
// scheduler's loop, a splittable one given more slots (scan/split_round.hpp). When its session
// ends, the round is folded into the job's row and pushed to the store at once, and the job's
// next round starts.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/interrupt.hpp"
#include "kdet/scan/job_scheduler.hpp"
#include "kdet/scan/trace.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>

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
  // A compiler that the levels [setting] names break (the probe saw them hang it) ends a job at
  // the failures that ended its round, not after a round per failure up to its budget.
  const uint64_t after = out.plan.stop.after_failures;
  const bool broken = after > 0 && row.ok_runs == 0 && row.runs >= after;
  row.done = !out.interrupted && (row.outcomes() >= 2 || row.runs >= row.budget || broken);
  w.job = row;
  return w;
}

} // namespace

// The plan of a job's round of `size` runs from run `start`: stop at the second outcome, workers
// started ahead (RunPlan::workers), the compiler's identity once known.
engine::RunPlan JobScheduler::round_plan(const Job& job, uint64_t start, uint64_t size) {
  engine::RunPlan p = job_run_plan(m_m, job, m_m.compilers[job.compiler].setting, start, size, 2);
  p.workers.pool = m_workers_ahead;
  p.shared.folders = m_folders;
  p.workers.prestart = m_ahead;
  if (auto it = m_identities.find(job.compiler); it != m_identities.end())
    p.known.identity = it->second;
  return p;
}

// A job's rounds begin (all of them, or only its first round); `held`: started ahead.
void JobScheduler::start_job(const Job& job, bool first_only, bool held) {
  if (m_broken.count(job.compiler)) return;
  start_round(job, first_only, m_state.at(job.id), held);
}

// Starts the job's round that holds its next run; a job with no run left is done at once. A
// round cut short by SIGINT/SIGTERM is finished from where it stopped, with the run indices (and
// so the seeds) an uninterrupted scan would have given. A splittable round takes free compile
// slots as its pieces when no job waits for them.
void JobScheduler::start_round(const Job& job, bool first_only, store::JobRow row, bool held) {
  const RoundSpan span = round_holding(m_m, row.budget, row.runs);
  if (span.size == 0) {
    row.done = true;
    store::RoundWrite w;
    w.job = row;
    try {
      m_writer.push(std::move(w));
    } catch (const std::exception& e) {
      m_aborted = true;
      add_error(m_stats, e.what());
      return;
    }
    return job_ended(job, row, first_only);
  }
  Round& r = m_rounds.emplace_back();
  r.job = &job;
  r.first_only = first_only;
  r.offset = span.start;
  r.plan = round_plan(job, span.start, span.size);
  r.plan.first_index = row.runs - span.start;
  r.split = splitting(m_m.compilers[job.compiler].setting, job);
  if (r.split.unit > 0) r.plan.shared.queue = r.split.queue(r.plan.first_index, r.plan.runs);
  r.per_run = seconds_per_run(row);
  r.runs_after = row.budget - std::min(row.budget, span.start + span.size);
  r.row = std::move(row);
  try {
    r.session = std::make_unique<engine::RunSession>(r.plan, engine::ProgressFn{}, m_executor);
    if (held) r.held = r.session->hold();
    m_loop.add(*r.session);
  } catch (...) { // the input cannot be read, a factor this machine lacks: as a load's failure
    return end_round({r.session.get(), std::current_exception()});
  }
  if (r.split.unit > 0 && !r.held && !jobs_waiting())
    if (const int free = free_slots(); free > 0) {
      const uint64_t most = max_pieces(r.plan, r.split.unit) - 1;
      const int taken = r.session->add_slots(
          static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(free), most)));
      r.pieces += taken;
    }
}

// The round's output, or its error (`error`: its session threw): a compiler that cannot load (or
// whose file changed since the jobs were planned) is marked broken, named once, and its jobs
// stop; an interrupted load stops the job. False when the round gives nothing to store.
bool JobScheduler::take_output(Round& r, const std::exception_ptr& error, engine::RunOutput& out) {
  const Job& job = *r.job;
  try {
    if (error) {
      if (r.session) try { // its workers go
          (void)r.session->output();
        } catch (...) { // the error below says what went wrong
        }
      std::rethrow_exception(error);
    }
    out = r.session->output();
    // The compiler file is no longer the one the jobs' ids were made from (checked against its
    // stamp when the scan planned them): none of this round's runs is stored, and the
    // compiler's jobs stop here with the reason (a resumed scan plans new ones).
    if (!out.compiler_changed.empty()) throw Error(out.compiler_changed);
    m_identities.emplace(job.compiler, out.identity);
  } catch (const Interrupted&) {
    m_interrupted = true;
    return false; // SIGINT while the compiler loaded: not its fault
  } catch (const Error& e) {
    if (m_broken.insert(job.compiler).second)
      m_stats.errors.push_back(
          fmt::format("compiler '{}': {}", m_m.compilers[job.compiler].name, e.what()));
    return false;
  }
  // The slots' runs as the serial round would have made them, then what a resume can go on from.
  if (r.plan.shared.queue) serial_cut(out);
  if (out.interrupted) {
    m_interrupted = true;
    keep_resumable_runs(out, job, m_m.compilers[job.compiler].setting);
  }
  return out.completed > 0; // nothing when interrupted before any run finished (or to keep)
}

// A round's session ended: its runs folded into the job's row, traced, stored and counted; then
// the job's next round starts at once, unless the job is done, only its first round was due, or
// the scan is stopping. A store that fails (disk full, database locked by another writer) stops
// the scan with its message.
void JobScheduler::end_round(const engine::SessionLoop::Ended& ended) {
  auto it = std::find_if(m_rounds.begin(), m_rounds.end(),
                         [&](const Round& r) { return r.session.get() == ended.session; });
  if (it == m_rounds.end()) return;
  Round& r = *it;
  const Job& job = *r.job;
  const bool first_only = r.first_only;
  store::JobRow row = std::move(r.row);
  engine::RunOutput out;
  bool more = take_output(r, ended.error, out);
  if (more) {
    store::RoundWrite w = fold_round(row, out, r.offset);
    if (m_options.trace)
      m_options.trace->add_round(job.id,
                                 fmt::format("{}{} {} {}", row.input,
                                             m_m.compilers.size() > 1 ? " " + row.compiler : "",
                                             row.target, row.option_set),
                                 out, r.offset);
    try {
      m_writer.push(std::move(w));
    } catch (const std::exception& e) {
      m_aborted = true;
      add_error(m_stats, e.what());
      m_rounds.erase(it);
      return;
    }
    count_round(job, out, r);
    more = !first_only && !row.done;
  }
  m_rounds.erase(it);
  if (more && !stopping()) return start_round(job, false, std::move(row));
  job_ended(job, row, first_only);
}

// A job's rounds end here for now (all of them, only its first, or it failed or stopped).
void JobScheduler::job_ended(const Job& job, const store::JobRow& row, bool first_only) {
  m_state[job.id] = row;
  if (row.done) {
    m_left.finished(row);
    ++m_finished;
    ++m_stats.jobs_finished;
    if (row.varies()) ++m_varying;
  } else if (first_only && row.runs > 0 && !stopping()) {
    m_ready.emplace_back(work_left(row), &job);
  }
}

// The round's runs and slots in the scan's statistics.
void JobScheduler::count_round(const Job& job, const engine::RunOutput& out, const Round& r) {
  auto& spent = m_run_seconds[job.id];
  for (const auto& rec : out.records)
    if (rec.done) spent.first += rec.seconds, spent.second += 1;
  m_stats.rounds += 1;
  m_stats.runs += out.completed;
  m_left.add_round(out);
  for (const auto& rec : out.records)
    if (rec.done) m_stats.compile_cpu_seconds += rec.compile_cpu_seconds;
  if (r.pieces > 1) {
    m_stats.split_rounds += 1;
    m_stats.split_pieces += static_cast<uint64_t>(r.pieces);
    m_stats.joined_pieces += r.joined;
  }
}

} // namespace kdet::scan
