#include "kdet/engine/runner.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/compiler_watch.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/variant_order.hpp"
#include "kdet/engine/worker.hpp"
#include "kdet/engine/worker_pool.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/cores.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/tempdir.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kdet::engine {

using namespace std::chrono;

namespace {

// exec workers enforce the timeout themselves; the driver waits this much longer.
constexpr milliseconds k_exec_grace{10000};

std::vector<std::string> build_env(const std::vector<std::string>& overrides) {
  return with_env_changes(current_environment(), overrides);
}

std::string iso_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(system_clock::to_time_t(system_clock::now())));
}

// One execute() call. Its stages, in order: prepare_launch (the session folder, the factors, how
// a worker starts), load_compiler (one worker up front, the compiler's identity), the slots'
// loops (each run: compile_one, then record), finish (the variants in order).
class Session {
public:
  Session(const RunPlan& plan, const ProgressFn& progress)
      : m_plan(plan), m_progress(progress), m_input(read_file(plan.input_path)), m_session("run"),
        m_kept_files(std::make_shared<const TempFolder>("artifacts")),
        m_is_exec(plan.backend.kind == backend::Kind::exec), m_mode(plan.setting.process),
        m_next(plan.first_index) {
    m_out.plan = plan;
    m_out.started_at = iso_now();
    m_out.records.resize(plan.runs);
  }

  RunOutput run() {
    prepare_launch();
    load_compiler();
    m_workers_started = m_probe.alive() ? 1 : 0;
    if (m_probe.alive()) m_probe_serial = 1;
    int jobs = std::max(
        1, std::min<int>(m_plan.jobs, static_cast<int>(m_plan.runs -
                                                       std::min(m_plan.runs, m_plan.first_index))));
    std::vector<std::thread> threads;
    for (int s = 1; s < jobs; ++s)
      threads.emplace_back([this, s] { slot_main(s); });
    slot_main(0);
    for (auto& t : threads)
      t.join();
    finish();
    return std::move(m_out);
  }

private:
  // A fresh worker launched for run `idx` before that run was due: the same launch, and so the
  // same arguments and environment, as compile_one would have given it at its turn. It loads the
  // compiler on its own; its hello is read when the run is due.
  struct Prestarted {
    uint64_t idx = 0;
    perturb::RunPerturbation pert;
    WorkerLaunch launch;
    WorkerProcess worker;
    HelloMessage hello; // once it said hello (take_prestarted)
  };

  // The workers of one slot: `shared` serves its same-process runs; `own` is started for one
  // fresh-process run and stopped after it (process=both uses both).
  struct Slot {
    int index = 0;
    WorkerProcess shared, own;
    WorkerLaunch launch;
    std::string workdir;
    int shared_serial = 0, shared_nth = 0;
    uint64_t shared_chain = 0; // same_chain() of the runs `shared` served
    // The run this slot took while its last compile went on, and, when that run is a
    // fresh-process one, its worker starting meanwhile (prestart_next).
    std::optional<uint64_t> claimed;
    uint64_t unit_next = 0, unit_end = 0; // the rest of the unit taken from RunPlan::queue
    bool holds_shared = false; // RunQueue::take's: this slot makes the shared worker's runs
    std::unique_ptr<Prestarted> next;
    // Prestarted workers of a kind (fresh, chain) alive together write to two logs in turn.
    int log_flip_fresh = 0, log_flip_chain = 0;
    std::vector<pid_t> quitting; // fresh workers told to quit, not reaped yet (stop_quitting)
    bool pooled = false;         // asked RunPlan::pool for a worker for the next call
  };

  // Workers start off the critical path when a core is spare for their start: library backends
  // only (an exec worker does not load the compiler), and fewer slots than cores. Those are the
  // fresh-process runs' workers and, with history = N, the worker each chain starts in.
  bool prestarts() const {
    return starts_ahead() && (m_mode != perturb::ProcessMode::same || m_plan.setting.history > 0);
  }
  // Whether a worker may start before its run is due at all (prestarts(), pool_next_round()).
  bool starts_ahead() const {
    return m_plan.prestart && !m_is_exec && static_cast<unsigned>(m_plan.jobs) < usable_cores();
  }

  // The slot's next run: the next index, or with a queue the rest of the slot's unit and then the
  // queue's next unit; m_plan.runs when none is left.
  uint64_t take_run(Slot& slot) {
    if (!m_plan.queue) return m_next.fetch_add(1);
    if (slot.unit_next < slot.unit_end && m_plan.queue->wanted(slot.unit_next)) {
      return slot.unit_next++;
    }
    slot.unit_next = slot.unit_end; // past a stop: the rest of the unit is not wanted
    auto unit = m_plan.queue->take(slot.holds_shared);
    if (!unit) return m_plan.runs;
    slot.unit_next = unit->first + 1;
    slot.unit_end = std::min(unit->end, m_plan.runs);
    return unit->first;
  }

  // Whether same-process run `idx`, taken next by this slot, will need a new shared worker: the
  // slot has none, or its worker has compiled for another chain (compile_one's rule).
  bool starts_chain(const Slot& slot, uint64_t idx) const {
    if (m_plan.setting.history == 0) return false;
    return !slot.shared.alive() ||
           (slot.shared_nth > 0 && same_chain(m_plan.setting, idx) != slot.shared_chain);
  }

  // The environment a fresh worker for this run starts with: the session's, plus the run's
  // variables (moved out of `pert`, so the worker does not also setenv() them).
  std::vector<std::string> fresh_env(perturb::RunPerturbation& pert) const {
    if (pert.env.empty()) return m_launch.env;
    std::vector<std::string> overrides = m_env_overrides;
    overrides.insert(overrides.end(), pert.env.begin(), pert.env.end());
    pert.env.clear();
    return build_env(overrides);
  }

  // Once this slot has no run left (its last compile about to be sent), asks RunPlan::pool for a
  // worker for the next call, launched as a chain's or a fresh run's would be, so that the next
  // round's first worker loads while this compile runs. Also where same-process runs share one
  // worker (no prestarts()): the next round starts one anew.
  void pool_next_round(Slot& slot) {
    if (!m_plan.pool || slot.pooled || !starts_ahead() || m_stop.load()) return;
    if (slot.claimed && *slot.claimed < m_plan.runs) return; // this slot has a run after this one
    const bool none_left = m_plan.queue
                               ? slot.unit_next >= slot.unit_end && m_plan.queue->left() == 0
                               : m_next.load() >= m_plan.runs;
    if (!none_left) return;
    slot.pooled = true;
    m_plan.pool->prestart(m_launch);
  }

  // Takes the slot's next run now and, when it runs in a fresh process or starts a chain, starts
  // its worker in the background, while the compile about to be sent goes on. A chain's worker is
  // launched as compile_one would launch it; the run's own variables reach it with the compile.
  void prestart_next(Slot& slot) {
    if (!prestarts() || slot.claimed || m_stop.load()) return;
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
    if (m_plan.pool && same_start(p->launch, m_launch)) {
      // The pool holds workers started so (or starts one now); compile_one takes one.
      m_plan.pool->prestart(m_launch);
      return;
    }
    // Its own log: the slot's shared worker may be alive beside it, writing to worker<slot>.log.
    p->launch.log_path =
        fmt::format("{}/worker{}{}{}.log", m_session.path(), slot.index, fresh ? "f" : "c",
                    ++(fresh ? slot.log_flip_fresh : slot.log_flip_chain) % 2);
    std::string error;
    if (p->worker.launch(p->launch, error)) slot.next = std::move(p);
  }

  // The worker prestart_next launched for `idx`, once it said hello (nullptr when there is
  // none, or it failed to load: the run then starts a worker at its turn, as without prestart).
  static std::unique_ptr<Prestarted> take_prestarted(Slot& slot, uint64_t idx) {
    std::unique_ptr<Prestarted> p = std::move(slot.next);
    if (!p || p->idx != idx) return nullptr;
    std::string error;
    if (!p->worker.await_hello(p->launch, p->hello, error)) return nullptr;
    return p;
  }

  void prepare_launch() {
    m_ctx.session_dir = m_session.path();
    m_ctx.input_path = m_plan.input_path;
    m_ctx.base_cwd = std::filesystem::current_path().string();
    m_ctx.exec_backend = m_is_exec;
    perturb::find_preload_libraries(m_ctx);
    perturb::check_available(m_plan.setting, m_ctx);
    m_ctx.usable_cpus = perturb::affinity_cpus();
    if (m_plan.setting.hostname != perturb::Level::inherit)
      if (std::string why = backend::private_uts_unavailable(); !why.empty())
        throw Error::format("--hostname {}: {}",
                            perturb::level_name("hostname", m_plan.setting.hostname), why);
    if (m_plan.setting.mtime != perturb::Level::inherit) {
      m_ctx.named_files = perturb::named_files(m_input, m_plan.input_path, m_plan.options,
                                               m_ctx.base_cwd, 256, &m_ctx.named_in_cwd);
      std::string why;
      if (perturb::needs_private_mounts(m_plan.setting, m_ctx) &&
          !(why = backend::private_mounts_unavailable()).empty())
        throw Error::format("--mtime {}: the files' times are set on kdet's copies bound over "
                            "them in a private mount namespace, which this machine does not "
                            "allow ({})",
                            perturb::level_name("mtime", m_plan.setting.mtime), why);
    }
    perturb::Launch factors = perturb::plan_launch(m_plan.setting, m_ctx);
    m_launch.exe = m_plan.worker_exe; // empty: this kdet
    m_launch.backend = m_plan.backend;
    m_launch.aslr = !factors.disable_aslr;
    m_launch.pid_namespace = factors.pid_namespace;
    m_launch.private_mounts = factors.private_mounts;
    m_launch.private_uts = factors.private_uts;
    m_launch.threads = factors.threads;
    m_launch.thread_seed = mix_seed(m_plan.setting.seed, ~0ULL);
    m_env_overrides = factors.env;
    m_env_overrides.insert(m_env_overrides.end(), m_plan.setting.env.begin(),
                           m_plan.setting.env.end());
    m_launch.env = build_env(m_env_overrides);
  }

  // Loads the compiler once up front: a bad --lib or --cmd is a usage error, not N failed runs.
  // With --process same the probe simply stays on as slot 0's worker.
  void load_compiler() {
    HelloMessage hello;
    // The library named, stat'ed before the probe loads it: replaced during the load, the probe
    // (slot 0's worker under --process same or both) would hold the old one while the stamp
    // taken after its hello already names the new file.
    std::optional<FileStamp> before;
    if (!m_plan.identity && !m_is_exec && !m_plan.backend.lib.empty())
      before = file_stamp(m_plan.backend.lib);
    if (m_plan.identity) {
      hello.identity = *m_plan.identity;
    } else {
      m_launch.log_path = m_session.path() + "/worker0.log";
      std::string error;
      auto t_probe = steady_clock::now();
      if (m_plan.pool)
        if (auto pooled = m_plan.pool->take(m_launch, &hello)) {
          m_probe = std::move(*pooled);
          m_prestarted.fetch_add(1);
        }
      if (!m_probe.alive() && !m_probe.start(m_launch, hello, error)) {
        if (interrupted()) throw Interrupted();
        throw Error::format("cannot load the {} compiler: {}",
                            backend::to_string(m_plan.backend.kind), error);
      }
      m_out.worker_start_seconds = duration<double>(steady_clock::now() - t_probe).count();
      m_out.probes.push_back({duration<double>(t_probe.time_since_epoch()).count(),
                              m_out.worker_start_seconds, static_cast<int>(::gettid())});
      if (m_mode == perturb::ProcessMode::fresh) m_probe.stop();
    }
    m_out.identity = hello.identity;
    if (m_is_exec) {
      // Exec workers do not ask the program for its version; one question per session.
      if (m_out.identity.version.empty())
        m_out.identity.version = backend::exec_program_version(m_out.identity.path);
      bool to_file = backend::template_names(split_command(m_plan.backend.command), "output");
      m_out.exec_artifact = to_file ? "output-file" : "stdout";
      m_out.slot_paths_unshared = backend::slot_namespace_unavailable();
    }
    // The compiler every worker must load: the one the caller planned, else the probe's.
    if (!m_watch.begin(m_plan.compiler_file, m_out.identity, !m_plan.identity, before,
                       m_plan.backend.lib))
      m_stop.store(true);
  }

  void slot_main(int index) {
    Slot slot;
    slot.index = index;
    if (index == 0 && m_probe.alive()) slot.shared = std::move(m_probe);
    slot.launch = m_launch;
    slot.launch.log_path = fmt::format("{}/worker{}.log", m_session.path(), index);
    slot.workdir = fmt::format("{}/s{}", m_session.path(), index);
    make_dirs(slot.workdir);
    slot.shared_serial = slot.shared.alive() ? m_probe_serial : 0;
    for (;;) {
      if (m_stop.load() || interrupted()) break;
      uint64_t idx = slot.claimed ? *slot.claimed : take_run(slot);
      slot.claimed.reset();
      if (idx >= m_plan.runs) break;
      if (m_plan.queue && !m_plan.queue->wanted(idx)) continue; // claimed, then past a stop
      RunRecord rec;
      backend::CompileResult result;
      if (!compile_one(slot, idx, rec, result)) {
        m_stop.store(true); // interrupted
        break;
      }
      record(std::move(rec), std::move(result));
    }
    if (slot.next && slot.next->worker.alive()) slot.quitting.push_back(slot.next->worker.quit());
    for (WorkerProcess* w : {&slot.shared, &slot.own})
      if (w->alive()) slot.quitting.push_back(w->quit());
    // With a pool the workers' exits go on after this call returns; the pool reaps them.
    if (m_plan.pool)
      m_plan.pool->reap_later(slot.quitting);
    else
      stop_quitting(slot.quitting, true);
  }

  // Runs compile `idx` in the slot's worker (started first when it is not running) and fills
  // `rec` and `result`. False when the user interrupted kdet meanwhile.
  bool compile_one(Slot& slot, uint64_t idx, RunRecord& rec, backend::CompileResult& result) {
    rec.index = idx;
    rec.seed = mix_seed(m_plan.setting.seed, idx);
    rec.slot = slot.index;
    const bool run_fresh = runs_in_fresh_process(m_mode, idx);
    rec.fresh_process = run_fresh;
    stop_quitting(slot.quitting, false);
    WorkerProcess& worker = run_fresh ? slot.own : slot.shared;
    int own_serial = 0, own_nth = 0;
    int& worker_serial = run_fresh ? own_serial : slot.shared_serial;
    int& nth = run_fresh ? own_nth : slot.shared_nth;
    auto t0 = steady_clock::now();
    rec.started = duration<double>(t0.time_since_epoch()).count();
    rec.thread = static_cast<int>(::gettid());
    perturb::RunPerturbation pert;
    std::unique_ptr<Prestarted> ready = take_prestarted(slot, idx);
    if (ready && run_fresh) {
      pert = std::move(ready->pert);
    } else {
      pert = perturb::plan_run(m_plan.setting, m_ctx, idx, rec.seed, slot.index);
      slot.launch.env = m_launch.env;
      // A fresh worker gets this run's variables in its initial environment
      // rather than through setenv(), which would also move the compiler's
      // heap: a factor must change only what it names.
      if (run_fresh && !m_is_exec) slot.launch.env = fresh_env(pert);
    }
    // A chain starts with a worker that compiled nothing yet (history = N).
    if (!run_fresh && m_plan.setting.history > 0) {
      const uint64_t chain = same_chain(m_plan.setting, idx);
      // The last chain's worker exits while this chain starts (reaped later).
      if (worker.alive() && slot.shared_nth > 0 && chain != slot.shared_chain)
        slot.quitting.push_back(worker.quit());
      slot.shared_chain = chain;
    }
    std::optional<backend::Identity> loaded; // a new worker's compiler, from its hello
    if (ready && !worker.alive()) {
      worker = std::move(ready->worker);
      loaded = ready->hello.identity;
      worker_serial = m_workers_started.fetch_add(1) + 1;
      m_prestarted.fetch_add(1);
      nth = 0;
    } else if (ready) {
      ready->worker.stop(); // the slot's worker can still serve this run (it compiled nothing)
    }
    if (!worker.alive() && !ready && m_plan.pool) {
      HelloMessage h;
      if (auto pooled = m_plan.pool->take(slot.launch, &h)) {
        worker = std::move(*pooled);
        loaded = h.identity;
        worker_serial = m_workers_started.fetch_add(1) + 1;
        m_prestarted.fetch_add(1);
        nth = 0;
      }
    }
    if (!worker.alive()) {
      HelloMessage h;
      std::string error;
      if (worker.start(slot.launch, h, error)) {
        loaded = h.identity;
        worker_serial = m_workers_started.fetch_add(1) + 1;
        nth = 0;
      } else if (interrupted()) {
        return false;
      } else {
        result.status = backend::Status::infra_error;
        result.detail = "could not start a worker: " + error;
      }
    }
    if (loaded && worker.alive() && !m_watch.same_as_first(*loaded)) {
      m_stop.store(true);
      worker.stop();
      result.status = backend::Status::infra_error;
      result.detail = "this run's worker loaded another compiler than the runs began with";
    }
    if (worker.alive()) {
      CompileMessage msg;
      msg.run_index = idx;
      msg.seed = rec.seed;
      msg.churn = m_plan.setting.heap == perturb::HeapMode::churn ? 1 : 0;
      msg.request.input = m_input;
      for (const auto& d : pert.make_dirs)
        make_dirs(d);
      if (pert.copy_input) write_file_atomic(pert.input_path, m_input);
      msg.request.binds = perturb::file_binds(pert);
      msg.request.cpus = pert.cpus;
      msg.request.hostname = pert.hostname;
      msg.request.domainname = pert.domainname;
      if (std::string why = perturb::place_file_times(pert.file_times); !why.empty()) {
        result.status = backend::Status::infra_error;
        result.detail = "mtime: " + why;
        for (const auto& d : pert.make_dirs)
          remove_tree(d);
        if (run_fresh) slot.quitting.push_back(worker.quit());
        rec.seconds = duration<double>(steady_clock::now() - t0).count();
        record_outcome(rec, result);
        return true;
      }
      msg.chaos_reseed = pert.chaos_reseed ? 1 : 0;
      msg.chaos_seed = pert.chaos_seed;
      msg.request.input_path = pert.input_path;
      msg.request.input_name = pert.input_name;
      msg.request.env = pert.env;
      msg.request.cwd = pert.cwd;
      msg.request.umask = pert.umask;
      msg.request.pid_namespace = pert.pid_namespace;
      msg.request.options = m_plan.options;
      msg.request.parts = m_plan.parts;
      msg.request.workdir = slot.workdir;
      msg.request.timeout = m_plan.timeout;
      msg.request.max_output = m_plan.max_output;
      rec.worker_pid = worker.pid();
      rec.worker = worker_serial;
      // An exec compiler is a new process every run: each compile is the first in its process,
      // whichever kdet worker started it (so a split round's runs read the same on any slot).
      ++nth;
      rec.nth_in_worker = m_is_exec ? 1 : nth;
      auto driver_timeout =
          m_plan.timeout.count() > 0 && m_is_exec ? m_plan.timeout + k_exec_grace : m_plan.timeout;
      prestart_next(slot);
      pool_next_round(slot);
      rec.setup_seconds = duration<double>(steady_clock::now() - t0).count();
      WorkerReply reply = worker.compile(msg, driver_timeout, interrupt_fd());
      if (reply.interrupted) return false;
      result = std::move(reply.message.result);
      if (!adopt_artifact_files(result, slot.workdir)) {
        result = backend::CompileResult{};
        result.status = backend::Status::infra_error;
        result.detail =
            "garbled reply from the worker (an artifact file it named is not where kdet put it)";
      }
      backend::classify_empty_output(result);
      for (const auto& d : pert.make_dirs)
        remove_tree(d);
      rec.compile_seconds = static_cast<double>(reply.message.compile_ns) * 1e-9;
      rec.churn_seconds = static_cast<double>(reply.message.churn_ns) * 1e-9;
      rec.compile_cpu_seconds = static_cast<double>(reply.message.compile_cpu_ns) * 1e-9;
      rec.own_cpu_seconds = static_cast<double>(reply.message.own_cpu_ns) * 1e-9;
      // Its exit (unmapping the compiler and its heap) goes on while the next run starts.
      if (run_fresh && worker.alive()) slot.quitting.push_back(worker.quit());
    }
    rec.seconds = duration<double>(steady_clock::now() - t0).count();
    record_outcome(rec, result);
    return true;
  }

  // Files the run under its variant (keeping the first occurrence's artifacts), hands it to
  // RunPlan::on_record and the progress callback, and sets the stop conditions.
  void record(RunRecord rec, backend::CompileResult result) {
    const uint64_t idx = rec.index;
    std::lock_guard<std::mutex> lock(m_mu);
    auto [it, inserted] = m_variants.try_emplace(rec.variant);
    Variant& v = it->second;
    if (inserted || idx < v.first_run) {
      v.id = rec.variant;
      v.first_run = idx;
      v.status = result.status;
      v.detail = result.detail;
      if (result.status == backend::Status::ok) {
        // Out of the slot's work folder before its next compile reuses the names.
        for (auto& a : result.artifacts) {
          try {
            keep_artifact_file(a, m_kept_files, ++m_kept_serial);
          } catch (const std::exception& e) {
            // Cannot move it (should not happen: same folder tree): keep its bytes instead.
            m_out.warnings.push_back(e.what());
            try {
              a.data = backend::artifact_bytes(a);
            } catch (const std::exception&) {
            }
            a.file.reset();
          }
        }
        v.artifacts = std::move(result.artifacts);
      }
    }
    result.artifacts.clear(); // a repeat's files are removed here
    ++v.count;
    m_out.records[idx] = std::move(rec);
    if (m_plan.on_record) m_plan.on_record(m_out.records[idx]);
    ++m_completed;
    if (m_plan.stop_at_outcomes > 0 && m_variants.size() >= m_plan.stop_at_outcomes) {
      // The serial order stops no later than here: no run after this one is handed out. A
      // piece of a split round goes on with the runs before it still in its queue (a `both`
      // round's fresh runs may not all be handed out yet), which no other piece may take. Its
      // later runs may come before this one, but need not bring the stop nearer: only here.
      if (!m_plan.queue)
        m_stop.store(true);
      else if (!std::exchange(m_queue_stopped, true))
        m_plan.queue->stop(idx);
    }
    if (result.status == backend::Status::ok) {
      ++m_succeeded;
      if (!m_plan.stop_at_other_than.empty() &&
          m_out.records[idx].variant != m_plan.stop_at_other_than)
        m_stop.store(true);
    }
    if (m_plan.stop_after_failures > 0 && m_succeeded == 0 &&
        m_completed >= m_plan.stop_after_failures)
      m_stop.store(true);
    if (m_progress) m_progress(m_completed, m_plan.runs, m_variants.size());
  }

  void finish() {
    // Here, with the slots joined: record() adds warnings under another lock.
    m_watch.finish(m_out);
    m_out.completed = m_completed;
    m_out.workers_started = m_workers_started.load();
    m_out.workers_prestarted = m_prestarted.load();
    m_out.interrupted = interrupted();
    m_out.stopped_early = !m_out.interrupted && m_completed + m_plan.first_index < m_plan.runs;
    for (auto& [id, v] : m_variants)
      m_out.variants.push_back(std::move(v));
    order_most_common_first(m_out.variants);
    m_out.wall_seconds = duration<double>(steady_clock::now() - m_t_start).count();
  }

  const RunPlan& m_plan;
  const ProgressFn& m_progress;
  const steady_clock::time_point m_t_start = steady_clock::now();
  const std::string m_input;
  const TempDir m_session;
  // Large artifacts of the variants are kept here, beside the session folder (same file
  // system, so they move by rename); it goes when the last artifact in it is dropped.
  std::shared_ptr<const TempFolder> m_kept_files;
  uint64_t m_kept_serial = 0;
  const bool m_is_exec;
  const perturb::ProcessMode m_mode;
  perturb::Context m_ctx;
  WorkerLaunch m_launch;
  std::vector<std::string> m_env_overrides;
  WorkerProcess m_probe;
  int m_probe_serial = 0;
  CompilerWatch m_watch;
  RunOutput m_out;

  std::atomic<uint64_t> m_next;
  std::atomic<bool> m_stop{false};
  bool m_queue_stopped = false; // this piece stopped RunPlan::queue (under the record lock)
  std::atomic<int> m_workers_started{0};
  std::atomic<int> m_prestarted{0};
  std::mutex m_mu; // guards what record() changes
  std::map<std::string, Variant> m_variants;
  uint64_t m_completed = 0, m_succeeded = 0;
};

} // namespace

RunOutput execute(const RunPlan& plan, const ProgressFn& progress) {
  return Session(plan, progress).run();
}

} // namespace kdet::engine
