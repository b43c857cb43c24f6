//===- engine/run_session.hpp - one execute() call: a planner over an executor ===//
//
// The planner of engine::execute. It decides which run each slot makes next, in which worker
// (the slot's shared one, a fresh one, one started ahead), and what a reply means; the executor
// (engine/executor.hpp) runs the processes. It has no threads and never waits: each slot is a
// small state machine that moves when an event of its worker comes in, handed to it by whoever
// drives the executor (begin, then on_event for each event, until done; then output). So one
// executor can drive many sessions at once, each event routed by its worker (owns). Its stages,
// in order: prepare_launch (the session folder, the factors, how a worker starts), the
// compiler's load (one worker up front, the compiler's identity: start_load, end_load), the
// slots (each run: begin_run, then the worker is made ready, the compile is sent, its reply
// recorded), finish (the variants in order).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/compiler_watch.hpp"
#include "kdet/engine/executor.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/variants.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/folder_stock.hpp"
#include "kdet/util/tempdir.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdet::engine {

// kdet's own environment with `overrides` (K=V) applied: what a session's workers start with.
std::vector<std::string> session_env(const std::vector<std::string>& overrides);

class RunSession {
public:
  // `plan` and `executor` must outlive the session.
  RunSession(const RunPlan& plan, ProgressFn progress, Executor& executor);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // Starts the call: its folder and factors, its compiler's load, its first runs. Throws Error
  // for a plan that cannot run here (a factor this machine lacks).
  void begin();
  // Whether `worker` is one of this session's: its events are this session's to take.
  bool owns(WorkerId worker) const;
  // Takes one event: of its own workers (others are ignored), or the executor's `interrupted`.
  // Throws Error when the compiler cannot load, Interrupted when its load was interrupted.
  void on_event(const ExecutorEvent& ev);
  // Whether the call has ended: no run left to begin and none in flight.
  bool done() const;
  // Lets the call make up to `n` more compiles at once from now on (compile slots its driver
  // has idle), no more than it has runs left to hand out; returns how many it took. With
  // RunPlan::shared.queue the new slots take units as a split round's pieces do. Not from within
  // the session's own callbacks (RunPlan::on_record, progress).
  int add_slots(int n);
  // Starting ahead: called before begin(), it makes the session hold each compile its slots are
  // ready to send (the worker started and said hello, the run's folders made) until release().
  // So a caller can begin the next call's first runs, their workers loading the compiler, while
  // its other compiles still run; the runs are what they are at their turn (the same launch,
  // arguments and environment), only their workers' starts come earlier. False (and nothing
  // held) where workers are not started ahead (RunPlan::workers.prestart off, exec backends).
  bool hold();
  // The held compiles are sent now; the runs' and the call's times count from here. Not from
  // within the session's own callbacks.
  void release();
  // Slots whose compile now in flight is the last they make in this call (no run left to hand
  // out): each frees its compile slot when that compile ends. 0 while held or loading.
  int finishing_slots() const;
  // The compiles this call may have in flight now: its slots not done (before the compiler's
  // load ends, the slots it will open); none while held.
  int busy_slots() const;
  // Lets its workers go and returns what the call made; once, when done() or when the executor
  // has no event left for it. Throws Interrupted when the compiler's load never ended.
  RunOutput output();

private:
  using Clock = Executor::Clock;

  // A fresh worker launched for run `idx` before that run was due: the same launch, and so the
  // same arguments and environment, as the run would have given it at its turn. It loads the
  // compiler on its own; its hello is taken when it comes.
  struct Prestarted {
    uint64_t idx = 0;
    perturb::RunPerturbation pert;
    WorkerLaunch launch;
    WorkerId worker = 0;
    bool answered = false; // its `started` event came: ok or not
    bool ok = false;
    HelloMessage hello;
  };

  // The run a slot is making.
  struct Current {
    uint64_t idx = 0;
    bool fresh = false;
    RunRecord rec;
    backend::CompileResult result;
    perturb::RunPerturbation pert;
    Clock::time_point t0;
    std::unique_ptr<Prestarted> ready;       // its worker, started ahead
    std::optional<backend::Identity> loaded; // a new worker's compiler, from its hello
    int own_serial = 0, own_nth = 0;         // the fresh worker's, for a fresh run
  };

  enum class Phase {
    idle,              // between runs
    awaiting_prestart, // its run's worker was started ahead and has not said hello yet
    starting,          // its run's worker was launched at its turn
    held,              // its worker is ready; the session holds the compile (hold())
    compiling,         // the compile was sent
    done,              // no run left
  };

  // The workers of one slot: `shared` serves its same-process runs; `own` is started for one
  // fresh-process run and quit after it (process=both uses both).
  struct Slot {
    int index = 0;
    Phase phase = Phase::idle;
    WorkerId shared = 0, own = 0;
    WorkerLaunch launch;
    std::string workdir;
    int shared_serial = 0, shared_nth = 0;
    uint64_t shared_chain = 0; // same_chain() of the runs `shared` served
    // The run this slot took while its last compile went on, and, when that run is a
    // fresh-process one (or starts a chain), its worker starting meanwhile (prestart_next).
    std::optional<uint64_t> claimed;
    uint64_t unit_next = 0, unit_end = 0; // the rest of the unit taken from RunPlan::shared.queue
    bool holds_shared = false; // RunQueue::take's: this slot makes the shared worker's runs
    std::unique_ptr<Prestarted> next;
    // Prestarted workers of a kind (fresh, chain) alive together write to two logs in turn.
    int log_flip_fresh = 0, log_flip_chain = 0;
    bool pooled = false; // asked RunPlan::workers.pool for a worker for the next call
    Current cur;
    WorkerId& worker() { return cur.fresh ? own : shared; }
  };

  // Setup (runner.cpp).
  void prepare_launch();
  void start_load();
  void end_load(const HelloMessage& hello);
  void open_slots();
  uint64_t runs_unhanded() const;
  void record(RunRecord rec, backend::CompileResult result);
  void finish();
  uint64_t serial_stop() const; // where the serial round stops, by the runs recorded so far

  // The slots (run_slots.cpp).
  void open_slot(Slot& slot);
  void dispatch(const ExecutorEvent& ev);
  void advance(Slot& slot);
  void begin_run(Slot& slot, uint64_t idx);
  void choose_worker(Slot& slot);
  void worker_ready(Slot& slot);
  void send_compile(Slot& slot, WorkerId worker);
  void on_started(Slot& slot, const ExecutorEvent& ev);
  void on_reply(Slot& slot, const ExecutorEvent& ev);
  void end_run(Slot& slot);
  void release_folders(const perturb::RunPerturbation& pert);
  void pump();
  void close_slot(Slot& slot);
  uint64_t take_run(Slot& slot);
  bool starts_chain(const Slot& slot, uint64_t idx) const;
  std::vector<std::string> fresh_env(perturb::RunPerturbation& pert) const;
  void pool_next_round(Slot& slot);
  void prestart_next(Slot& slot);
  bool prestarts() const;
  bool starts_ahead() const;
  double since_start(Clock::time_point t) const;

  const RunPlan& m_plan;
  const ProgressFn m_progress; // a copy: a session may outlive the call that made it
  Executor& m_ex;
  Clock::time_point m_t_start; // when the call began, or was released (hold())
  const std::string m_input;
  const TempDir m_session;
  // Where each run's own folders come from (RunPlan::shared.folders, else the session's own).
  const std::shared_ptr<FolderStock> m_folders;
  // Large artifacts of the variants are kept here, beside the session folder (same file
  // system, so they move by rename); made for the first one, it goes when the last artifact in
  // it is dropped.
  std::shared_ptr<const TempFolder> m_kept_files;
  uint64_t m_kept_serial = 0;
  const bool m_is_exec;
  const perturb::ProcessMode m_mode;
  perturb::Context m_ctx;
  WorkerLaunch m_launch;
  std::vector<std::string> m_env_overrides;
  WorkerId m_probe = 0;
  WorkerId m_loading = 0; // the probe, launched, its hello not come yet
  Clock::time_point m_t_probe;
  std::optional<FileStamp> m_lib_before; // the library's stamp before the probe loaded it
  int m_probe_serial = 0;
  CompilerWatch m_watch;
  RunOutput m_out;
  std::vector<Slot> m_slots;

  uint64_t m_next;
  bool m_stop = false;
  bool m_held = false;        // hold(): compiles wait for release()
  bool m_out_of_time = false; // m_stop set by stop.seconds
  bool m_interrupted = false;
  uint64_t m_queue_stop = UINT64_MAX; // where this session stopped RunPlan::shared.queue
  int m_workers_started = 0;
  int m_prestarted = 0;
  int m_added = 0; // slots added (add_slots) beyond RunPlan::jobs
  VariantFold<Variant> m_variants;
  size_t m_outcomes = 0; // of m_variants, those that are no error of kdet's own (is_kdet_error)
  uint64_t m_completed = 0, m_succeeded = 0;
};

} // namespace kdet::engine
