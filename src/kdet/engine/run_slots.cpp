//===- engine/run_slots.cpp - the slots of one execute() call, as state machines ===//
//
// Each slot makes one run at a time: it takes the run (begin_run), gets its worker ready (the
// slot's own, one started ahead, one from the pool, or one launched now: choose_worker), sends
// the compile (send_compile) and records the reply (on_reply, end_run); then it takes the next
// one (advance). A slot waits only for an event of its own worker, so the executor's one loop
// drives every slot.
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/exec_template.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_session.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unistd.h>

namespace kdet::engine {

using namespace std::chrono;

namespace {
// exec workers enforce the timeout themselves; the driver waits this much longer.
constexpr milliseconds k_exec_grace{10000};
} // namespace

// Each slot starts the worker of its next run while its current compile runs (one spare a slot):
// library backends only (an exec worker does not load the compiler), and no more slots than
// cores. Those are the fresh-process runs' workers and, with history = N, the worker each chain
// starts in. With a slot on every core the spare's start shares the cores with the compiles
// rather than leaving its slot without a compile until the compiler is loaded.
bool RunSession::prestarts() const {
  return m_plan.workers.prestart && !m_is_exec &&
         static_cast<unsigned>(m_plan.jobs + m_added) <= usable_cores() &&
         (m_mode != perturb::ProcessMode::same || m_plan.setting.history > 0);
}

// Whether a worker for the next call may be asked of RunPlan::workers.pool (pool_next_round()):
// fewer slots than cores, so that a core is spare for it.
bool RunSession::starts_ahead() const {
  return m_plan.workers.prestart && !m_is_exec &&
         static_cast<unsigned>(m_plan.jobs + m_added) < usable_cores();
}

// The slot's next run: the next index, or with a queue the rest of the slot's unit and then the
// queue's next unit; m_plan.runs when none is left.
uint64_t RunSession::take_run(Slot& slot) {
  if (!m_plan.shared.queue) return m_next++;
  if (slot.unit_next < slot.unit_end && m_plan.shared.queue->wanted(slot.unit_next))
    return slot.unit_next++;
  slot.unit_next = slot.unit_end; // past a stop: the rest of the unit is not wanted
  auto unit = m_plan.shared.queue->take(slot.holds_shared);
  if (!unit) return m_plan.runs;
  slot.unit_next = unit->first + 1;
  slot.unit_end = std::min(unit->end, m_plan.runs);
  return unit->first;
}

// Whether same-process run `idx`, taken next by this slot, will need a new shared worker: the
// slot has none, or its worker has compiled for another chain (choose_worker's rule).
bool RunSession::starts_chain(const Slot& slot, uint64_t idx) const {
  if (m_plan.setting.history == 0) return false;
  return slot.shared == 0 ||
         (slot.shared_nth > 0 && same_chain(m_plan.setting, idx) != slot.shared_chain);
}

// The environment a fresh worker for this run starts with: the session's, plus the run's
// variables (moved out of `pert`, so the worker does not also setenv() them).
std::vector<std::string> RunSession::fresh_env(perturb::RunPerturbation& pert) const {
  if (pert.host.env.empty()) return m_launch.env;
  std::vector<std::string> overrides = m_env_overrides;
  overrides.insert(overrides.end(), pert.host.env.begin(), pert.host.env.end());
  pert.host.env.clear();
  return session_env(overrides);
}

// Once this slot has no run left (its last compile just sent), asks RunPlan::workers.pool
// for a worker for the next call, launched as a chain's or a fresh run's would be, so that the next
// round's first worker loads while this compile runs. Also where same-process runs share one
// worker (no prestarts()): the next round starts one anew.
void RunSession::pool_next_round(Slot& slot) {
  if (!m_plan.workers.pool || slot.pooled || !starts_ahead() || m_stop) return;
  if (slot.claimed && *slot.claimed < m_plan.runs) return; // this slot has a run after this one
  const bool none_left = m_plan.shared.queue
                             ? slot.unit_next >= slot.unit_end && m_plan.shared.queue->left() == 0
                             : m_next >= m_plan.runs;
  if (!none_left) return;
  slot.pooled = true;
  m_plan.workers.pool->prestart(m_launch);
}

// Takes the slot's next run now and, when it runs in a fresh process or starts a chain, starts
// its worker in the background, while the compile just sent goes on. A chain's worker is
// launched as choose_worker would launch it; the run's own variables reach it with the compile.
void RunSession::prestart_next(Slot& slot) {
  if (!prestarts() || slot.claimed || m_stop) return;
  const uint64_t idx = take_run(slot);
  if (idx >= m_plan.runs) return;
  slot.claimed = idx;
  const bool fresh = runs_in_fresh_process(m_mode, idx);
  if (!fresh && !starts_chain(slot, idx)) return;
  auto p = std::make_unique<Prestarted>();
  p->idx = idx;
  p->launch = slot.launch;
  if (fresh) {
    p->pert = perturb::plan_run(m_plan.setting, m_ctx, idx, mix_seed(m_plan.setting.seed, idx),
                                slot.index);
    p->launch.env = fresh_env(p->pert);
  } else {
    p->launch.env = m_launch.env;
  }
  if (m_plan.workers.pool && same_start(p->launch, m_launch)) {
    // The pool holds workers started so (or starts one now); choose_worker takes one.
    m_plan.workers.pool->prestart(m_launch);
    return;
  }
  // Its own log: the slot's shared worker may be alive beside it, writing to worker<slot>.log.
  p->launch.log_path =
      fmt::format("{}/worker{}{}{}.log", m_session.path(), slot.index, fresh ? "f" : "c",
                  ++(fresh ? slot.log_flip_fresh : slot.log_flip_chain) % 2);
  p->worker = m_ex.launch(p->launch);
  slot.next = std::move(p);
}

void RunSession::open_slot(Slot& slot) {
  if (slot.index == 0 && m_probe != 0) slot.shared = std::exchange(m_probe, 0);
  slot.launch = m_launch;
  slot.launch.log_path = fmt::format("{}/worker{}.log", m_session.path(), slot.index);
  slot.workdir = fmt::format("{}/s{}", m_session.path(), slot.index);
  make_dirs(slot.workdir);
  slot.shared_serial = slot.shared != 0 ? m_probe_serial : 0;
}

// The slot's workers go; their exits go on after the call (the executor reaps them, or the pool).
void RunSession::close_slot(Slot& slot) {
  if (slot.next && slot.next->worker != 0) m_ex.quit(slot.next->worker);
  slot.next.reset();
  for (WorkerId* w : {&slot.shared, &slot.own})
    if (*w != 0) m_ex.quit(std::exchange(*w, 0));
}

void RunSession::dispatch(const ExecutorEvent& ev) {
  if (ev.kind == ExecutorEvent::Kind::interrupted) {
    m_interrupted = m_stop = true;
    return;
  }
  for (auto& slot : m_slots) {
    if (slot.next && slot.next->worker == ev.worker && ev.kind == ExecutorEvent::Kind::started) {
      Prestarted& p = *slot.next;
      p.answered = true;
      p.ok = ev.ok;
      p.hello = ev.hello;
      if (!ev.ok) p.worker = 0; // gone
      if (slot.phase == Phase::awaiting_prestart) choose_worker(slot);
      return;
    }
    if (slot.worker() != ev.worker || ev.worker == 0) continue;
    if (slot.phase == Phase::starting && ev.kind == ExecutorEvent::Kind::started)
      return on_started(slot, ev);
    if (slot.phase == Phase::compiling && ev.kind == ExecutorEvent::Kind::replied)
      return on_reply(slot, ev);
  }
}

// Takes the slot's next wanted run and begins it; the slot is done when none is left.
void RunSession::advance(Slot& slot) {
  for (;;) {
    if (m_stop || interrupted()) {
      slot.phase = Phase::done;
      return;
    }
    uint64_t idx = slot.claimed ? *slot.claimed : take_run(slot);
    slot.claimed.reset();
    if (idx >= m_plan.runs) {
      slot.phase = Phase::done;
      return;
    }
    if (m_plan.shared.queue && !m_plan.shared.queue->wanted(idx))
      continue; // claimed, then past a stop
    return begin_run(slot, idx);
  }
}

void RunSession::begin_run(Slot& slot, uint64_t idx) {
  slot.cur = Current{};
  Current& c = slot.cur;
  c.idx = idx;
  c.fresh = runs_in_fresh_process(m_mode, idx);
  c.rec.index = idx;
  c.rec.seed = mix_seed(m_plan.setting.seed, idx);
  c.rec.slot = slot.index;
  c.rec.fresh_process = c.fresh;
  c.t0 = m_ex.now();
  c.rec.started = duration<double>(c.t0.time_since_epoch()).count();
  c.rec.thread = static_cast<int>(::gettid());
  // A worker started ahead for another run (claimed, then not wanted) is of no use now.
  if (slot.next && slot.next->idx != idx) {
    if (slot.next->worker != 0) m_ex.quit(slot.next->worker);
    slot.next.reset();
  }
  if (slot.next && !slot.next->answered) {
    slot.phase = Phase::awaiting_prestart; // its hello comes as an event (dispatch)
    return;
  }
  choose_worker(slot);
}

// The run's worker: started ahead for it, the slot's own, one from the pool, or one launched
// now (then the slot waits for its hello: on_started).
void RunSession::choose_worker(Slot& slot) {
  Current& c = slot.cur;
  if (slot.next && slot.next->ok) c.ready = std::move(slot.next);
  slot.next.reset();
  if (c.ready && c.fresh) {
    c.pert = std::move(c.ready->pert);
  } else {
    c.pert = perturb::plan_run(m_plan.setting, m_ctx, c.idx, c.rec.seed, slot.index);
    slot.launch.env = m_launch.env;
    // A fresh worker gets this run's variables in its initial environment rather than through
    // setenv(), which would also move the compiler's heap: a factor must change only what it
    // names.
    if (c.fresh && !m_is_exec) slot.launch.env = fresh_env(c.pert);
  }
  // A chain starts with a worker that compiled nothing yet (history = N); the last chain's
  // worker exits while this chain starts.
  if (!c.fresh && m_plan.setting.history > 0) {
    const uint64_t chain = same_chain(m_plan.setting, c.idx);
    if (slot.shared != 0 && slot.shared_nth > 0 && chain != slot.shared_chain)
      m_ex.quit(std::exchange(slot.shared, 0));
    slot.shared_chain = chain;
  }
  WorkerId& worker = slot.worker();
  int& serial = c.fresh ? c.own_serial : slot.shared_serial;
  int& nth = c.fresh ? c.own_nth : slot.shared_nth;
  if (c.ready && worker == 0) {
    worker = c.ready->worker;
    c.loaded = c.ready->hello.identity;
    serial = ++m_workers_started;
    ++m_prestarted;
    nth = 0;
  } else if (c.ready) {
    m_ex.quit(c.ready->worker); // the slot's worker can still serve this run (it compiled nothing)
  }
  if (worker == 0 && !c.ready && m_plan.workers.pool) {
    HelloMessage h;
    if (auto pooled = m_plan.workers.pool->take(slot.launch, &h)) {
      worker = m_ex.adopt(std::move(*pooled));
      c.loaded = h.identity;
      serial = ++m_workers_started;
      ++m_prestarted;
      nth = 0;
    }
  }
  if (worker == 0) {
    worker = m_ex.launch(slot.launch);
    slot.phase = Phase::starting;
    return;
  }
  worker_ready(slot);
}

void RunSession::on_started(Slot& slot, const ExecutorEvent& ev) {
  Current& c = slot.cur;
  if (ev.ok) {
    c.loaded = ev.hello.identity;
    (c.fresh ? c.own_serial : slot.shared_serial) = ++m_workers_started;
    (c.fresh ? c.own_nth : slot.shared_nth) = 0;
    return worker_ready(slot);
  }
  slot.worker() = 0;
  if (m_interrupted || interrupted()) {
    m_stop = true;
    slot.phase = Phase::done;
    return;
  }
  c.result.status = backend::Status::infra_error;
  c.result.detail = "could not start a worker: " + ev.error;
  end_run(slot);
}

// The run's worker is up: check its compiler, place the run's files, send the compile.
void RunSession::worker_ready(Slot& slot) {
  Current& c = slot.cur;
  WorkerId& worker = slot.worker();
  if (c.loaded && !m_watch.same_as_first(*c.loaded)) {
    m_stop = true;
    m_ex.quit(std::exchange(worker, 0));
    c.result.status = backend::Status::infra_error;
    c.result.detail = "this run's worker loaded another compiler than the runs began with";
    return end_run(slot);
  }
  for (const auto& d : c.pert.make_dirs)
    m_folders->make(d);
  if (c.pert.copy_input) write_file_atomic(c.pert.input_path, m_input);
  if (std::string why = perturb::place_file_times(c.pert.file_times); !why.empty()) {
    c.result.status = backend::Status::infra_error;
    c.result.detail = "mtime: " + why;
    release_folders(c.pert);
    if (c.fresh) m_ex.quit(std::exchange(worker, 0));
    return end_run(slot);
  }
  if (m_held) {
    slot.phase = Phase::held; // release() sends it
    return;
  }
  send_compile(slot, worker);
}

bool RunSession::hold() {
  m_held = m_plan.workers.prestart && !m_is_exec;
  return m_held;
}

// The held compiles go; each run, and the call, count from now: the time a worker waited
// held is no compile slot's.
void RunSession::release() {
  if (!m_held) return;
  m_held = false;
  const Clock::time_point now = m_ex.now();
  m_t_start = now;
  for (auto& slot : m_slots) {
    if (slot.phase == Phase::done || slot.phase == Phase::idle) continue;
    slot.cur.t0 = now;
    slot.cur.rec.started = duration<double>(now.time_since_epoch()).count();
    if (slot.phase == Phase::held) send_compile(slot, slot.worker());
  }
}

int RunSession::finishing_slots() const {
  if (m_held || m_loading != 0 || runs_unhanded() > 0) return 0;
  return static_cast<int>(std::count_if(m_slots.begin(), m_slots.end(), [&](const Slot& slot) {
    const bool unit_left = m_plan.shared.queue && slot.unit_next < slot.unit_end;
    return slot.phase == Phase::compiling && (m_stop || (!slot.claimed && !unit_left));
  }));
}

void RunSession::send_compile(Slot& slot, WorkerId worker) {
  Current& c = slot.cur;
  const perturb::RunPerturbation& pert = c.pert;
  CompileMessage msg;
  msg.run_index = c.idx;
  msg.seed = c.rec.seed;
  msg.heap = pert.heap;
  msg.request.input = m_input;
  msg.request.host = pert.host;
  msg.request.input_path = pert.input_path;
  msg.request.input_name = pert.input_name;
  msg.request.options = m_plan.options;
  msg.request.parts = m_plan.parts;
  msg.request.workdir = slot.workdir;
  msg.request.timeout = m_plan.timeout;
  msg.request.max_output = m_plan.max_output;
  c.rec.worker_pid = m_ex.pid(worker);
  c.rec.worker = c.fresh ? c.own_serial : slot.shared_serial;
  // An exec compiler is a new process every run: each compile is the first in its process,
  // whichever kdet worker started it (so a split round's runs read the same on any slot).
  int& nth = c.fresh ? c.own_nth : slot.shared_nth;
  ++nth;
  c.rec.nth_in_worker = m_is_exec ? 1 : nth;
  const auto driver_timeout =
      m_plan.timeout.count() > 0 && m_is_exec ? m_plan.timeout + k_exec_grace : m_plan.timeout;
  c.rec.setup_seconds = duration<double>(m_ex.now() - c.t0).count();
  slot.phase = Phase::compiling;
  m_ex.compile(worker, msg, driver_timeout);
  // The next run's worker is launched once this request is on its way: a launch is a clone
  // and an exec this thread waits for, time this compile need not wait too.
  prestart_next(slot);
  pool_next_round(slot);
}

void RunSession::on_reply(Slot& slot, const ExecutorEvent& ev) {
  Current& c = slot.cur;
  if (ev.reply.interrupted) { // not a run's outcome: the run is not recorded
    slot.worker() = 0;
    m_stop = true;
    slot.phase = Phase::done;
    return;
  }
  c.result = ev.reply.message.result;
  if (ev.reply.worker_lost) slot.worker() = 0;
  if (!adopt_artifact_files(c.result, slot.workdir)) {
    c.result = backend::CompileResult{};
    c.result.status = backend::Status::infra_error;
    c.result.detail =
        "garbled reply from the worker (an artifact file it named is not where kdet put it)";
  }
  backend::classify_empty_output(c.result);
  release_folders(c.pert);
  const auto& m = ev.reply.message;
  c.rec.compile_seconds = static_cast<double>(m.compile_ns) * 1e-9;
  c.rec.churn_seconds = static_cast<double>(m.churn_ns) * 1e-9;
  c.rec.compile_cpu_seconds = static_cast<double>(m.compile_cpu_ns) * 1e-9;
  c.rec.own_cpu_seconds = static_cast<double>(m.own_cpu_ns) * 1e-9;
  // Its exit (unmapping the compiler and its heap) goes on while the next run starts.
  if (c.fresh && slot.own != 0) m_ex.quit(std::exchange(slot.own, 0));
  end_run(slot);
}

// The run's own folders go back to the stock, without the files kdet put in them (the input's
// copy, the mtime copies), so that the next run can take them; what the compiler left in one
// keeps it from being taken (FolderStock::make removes it then).
void RunSession::release_folders(const perturb::RunPerturbation& pert) {
  // Never through a link: a compiler may have put one in its folder's place.
  if (pert.copy_input) unlink_in_folder(pert.input_path);
  for (const auto& f : pert.file_times)
    if (!f.copy.empty()) unlink_in_folder(f.copy);
  for (const auto& d : pert.make_dirs)
    m_folders->give_back(d);
}

// Records the slot's run; pump() then gives the slot its next one.
void RunSession::end_run(Slot& slot) {
  Current& c = slot.cur;
  c.rec.seconds = duration<double>(m_ex.now() - c.t0).count();
  record_outcome(c.rec, c.result);
  record(std::move(c.rec), std::move(c.result));
  slot.phase = Phase::idle;
  c.ready.reset();
}

// Gives every idle slot its next run, until each waits for an event or is done. A loop, not a
// call from end_run: runs that end without a process (a start that failed at once, an mtime
// that cannot be placed) would otherwise nest one call per run.
void RunSession::pump() {
  for (bool moved = true; moved;) {
    moved = false;
    for (auto& slot : m_slots)
      if (slot.phase == Phase::idle) {
        advance(slot);
        moved = true;
      }
  }
}

} // namespace kdet::engine
