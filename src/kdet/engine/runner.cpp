#include "kdet/engine/runner.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/compiler_watch.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/run_session.hpp"
#include "kdet/engine/session_loop.hpp"
#include "kdet/engine/verdict.hpp"
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
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace kdet::engine {

using namespace std::chrono;

namespace {

std::string iso_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(system_clock::to_time_t(system_clock::now())));
}

} // namespace

std::vector<std::string> session_env(const std::vector<std::string>& overrides) {
  return with_env_changes(current_environment(), overrides);
}

RunSession::RunSession(const RunPlan& plan, ProgressFn progress, Executor& executor)
    : m_plan(plan), m_progress(std::move(progress)), m_ex(executor), m_t_start(executor.now()),
      m_input(read_file(plan.input_path)), m_session("run"),
      m_folders(plan.shared.folders ? plan.shared.folders : std::make_shared<FolderStock>()),
      m_is_exec(plan.backend.kind == backend::Kind::exec), m_mode(plan.setting.process),
      m_next(plan.first_index) {
  m_out.plan = plan;
  m_out.started_at = iso_now();
  m_out.records.resize(plan.runs);
}

// The spares in the session folder outlive it in a shared stock's park.
RunSession::~RunSession() {
  m_folders->leave(m_session.path());
}

void RunSession::begin() {
  prepare_launch();
  start_load();
  if (m_loading == 0) open_slots();
}

// The slots, once the compiler is loaded: as many as --jobs, no more than the runs left.
void RunSession::open_slots() {
  m_workers_started = m_probe != 0 ? 1 : 0;
  if (m_probe != 0) m_probe_serial = 1;
  const uint64_t left = m_plan.runs - std::min(m_plan.runs, m_plan.first_index);
  const int jobs =
      std::max(1, static_cast<int>(std::min<uint64_t>(
                      static_cast<uint64_t>(std::max(1, m_plan.jobs) + m_added), left)));
  m_slots.resize(static_cast<size_t>(jobs));
  for (int s = 0; s < jobs; ++s) {
    m_slots[static_cast<size_t>(s)].index = s;
    open_slot(m_slots[static_cast<size_t>(s)]);
  }
  pump();
}

// Runs no slot has taken yet (a slot's claimed run and the rest of its unit count as taken).
uint64_t RunSession::runs_unhanded() const {
  if (m_stop) return 0;
  if (m_plan.shared.queue) return m_plan.shared.queue->left();
  return m_plan.runs - std::min(m_plan.runs, m_next);
}

int RunSession::add_slots(int n) {
  if (n <= 0) return 0;
  if (m_loading != 0) { // open_slots() opens them with the rest, as far as runs are left
    m_added += n;
    return n;
  }
  const int taken = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(n), runs_unhanded()));
  for (int i = 0; i < taken; ++i) {
    Slot& slot = m_slots.emplace_back();
    slot.index = static_cast<int>(m_slots.size()) - 1;
    open_slot(slot);
  }
  m_added += taken;
  pump();
  return taken;
}

int RunSession::busy_slots() const {
  if (m_held) return 0; // its compiles wait for release()
  if (m_loading != 0)
    return static_cast<int>(std::min<uint64_t>(
        static_cast<uint64_t>(std::max(1, m_plan.jobs) + m_added),
        std::max<uint64_t>(1, m_plan.runs - std::min(m_plan.runs, m_plan.first_index))));
  return static_cast<int>(std::count_if(
      m_slots.begin(), m_slots.end(), [](const Slot& slot) { return slot.phase != Phase::done; }));
}

bool RunSession::owns(WorkerId worker) const {
  if (worker == 0) return false;
  if (worker == m_loading || worker == m_probe) return true;
  for (const auto& slot : m_slots)
    if (worker == slot.shared || worker == slot.own || (slot.next && worker == slot.next->worker))
      return true;
  return false;
}

void RunSession::on_event(const ExecutorEvent& ev) {
  if (m_loading != 0 && ev.kind != ExecutorEvent::Kind::interrupted) {
    if (ev.worker != m_loading) return;
    m_loading = 0;
    if (!ev.ok) {
      if (m_interrupted || interrupted()) throw Interrupted();
      throw Error::format("cannot load the {} compiler: {}",
                          backend::to_string(m_plan.backend.kind), ev.error);
    }
    m_probe = ev.worker;
    end_load(ev.hello);
    return open_slots();
  }
  dispatch(ev);
  pump();
}

bool RunSession::done() const {
  if (m_loading != 0) return false;
  return std::all_of(m_slots.begin(), m_slots.end(),
                     [](const Slot& slot) { return slot.phase == Phase::done; });
}

RunOutput RunSession::output() {
  if (m_loading != 0) { // the executor had nothing left: its start was lost to an interrupt
    m_ex.quit(std::exchange(m_loading, 0));
    throw Interrupted();
  }
  for (auto& slot : m_slots)
    close_slot(slot);
  if (m_probe != 0) m_ex.quit(std::exchange(m_probe, 0));
  finish();
  return std::move(m_out);
}

double RunSession::since_start(Clock::time_point t) const {
  return duration<double>(t - m_t_start).count();
}

void RunSession::prepare_launch() {
  m_ctx.session_dir = m_session.path();
  m_ctx.input_path = m_plan.input_path;
  m_ctx.base_cwd = current_folder();
  m_ctx.exec_backend = m_is_exec;
  perturb::find_preload_libraries(m_ctx);
  m_ctx.usable_cpus = perturb::affinity_cpus();
  m_ctx.hardware_threads = std::thread::hardware_concurrency();
  m_ctx.input = m_input;
  m_ctx.options = m_plan.options;
  m_ctx.probes = host_probes();
  perturb::check_available(m_plan.setting, m_ctx);
  m_launch.exe = m_plan.workers.exe; // empty: this kdet
  m_launch.backend = m_plan.backend;
  m_launch.factors = perturb::plan_launch(m_plan.setting, m_ctx);
  m_env_overrides = m_launch.factors.env;
  m_env_overrides.insert(m_env_overrides.end(), m_plan.setting.env.begin(),
                         m_plan.setting.env.end());
  m_launch.env = session_env(m_env_overrides);
}

// Loads the compiler once up front: a bad --lib or --cmd is a usage error, not N failed runs.
// With --process same the probe simply stays on as slot 0's worker. A probe launched now says
// hello as an event (on_event, then end_load); one from the pool or a known identity ends the
// load at once.
void RunSession::start_load() {
  // The library named, stat'ed before the probe loads it: replaced during the load, the probe
  // (slot 0's worker under --process same or both) would hold the old one while the stamp
  // taken after its hello already names the new file.
  if (!m_plan.known.identity && !m_is_exec && !m_plan.backend.lib.empty())
    m_lib_before = file_stamp(m_plan.backend.lib);
  HelloMessage hello;
  if (m_plan.known.identity) {
    hello.identity = *m_plan.known.identity;
    return end_load(hello);
  }
  m_launch.log_path = m_session.path() + "/worker0.log";
  m_t_probe = m_ex.now();
  if (m_plan.workers.pool)
    if (auto pooled = m_plan.workers.pool->take(m_launch, &hello)) {
      m_probe = m_ex.adopt(std::move(*pooled));
      ++m_prestarted;
      return end_load(hello);
    }
  m_loading = m_ex.launch(m_launch);
}

// The compiler is loaded (or known): its identity, and the one every worker must load.
void RunSession::end_load(const HelloMessage& hello) {
  if (!m_plan.known.identity) {
    m_out.worker_start_seconds = duration<double>(m_ex.now() - m_t_probe).count();
    m_out.probes.push_back({duration<double>(m_t_probe.time_since_epoch()).count(),
                            m_out.worker_start_seconds, static_cast<int>(::gettid())});
    if (m_mode == perturb::ProcessMode::fresh) m_ex.quit(std::exchange(m_probe, 0));
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
  if (!m_watch.begin(m_plan.known.file, m_out.identity, !m_plan.known.identity, m_lib_before,
                     m_plan.backend.lib))
    m_stop = true;
}

// Files the run under its variant (keeping the first occurrence's artifacts), hands it to
// RunPlan::on_record and the progress callback, and sets the stop conditions.
void RunSession::record(RunRecord rec, backend::CompileResult result) {
  const uint64_t idx = rec.index;
  auto [v, first] = m_variants.add(rec.variant, idx);
  if (first && !is_kdet_error(result.status)) ++m_outcomes;
  if (first) {
    v.status = result.status;
    v.detail = result.detail;
    if (result.status == backend::Status::ok) {
      // Out of the slot's work folder before its next compile reuses the names.
      for (auto& a : result.artifacts) {
        try {
          if (a.file && !m_kept_files)
            m_kept_files = std::make_shared<const TempFolder>("artifacts");
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
  m_out.records[idx] = std::move(rec);
  if (m_plan.on_record) m_plan.on_record(m_out.records[idx]);
  ++m_completed;
  if (m_plan.stop.outcomes > 0 && m_outcomes >= m_plan.stop.outcomes) {
    // The serial order stops no later than the first run by which the runs recorded show that
    // many outcomes: no run after it is handed out. The slots go on with the runs before it
    // still in the queue (a `both` round's fresh runs may not all be handed out yet), so that
    // every run of the serial round is made. With several slots the runs come out of index
    // order, so a run recorded later, below that bound, may bring it nearer.
    if (!m_plan.shared.queue)
      m_stop = true;
    else if (idx < m_queue_stop)
      m_plan.shared.queue->stop(m_queue_stop = serial_stop());
  }
  if (result.status == backend::Status::ok) {
    ++m_succeeded;
    if (!m_plan.stop.other_than.empty() && m_out.records[idx].variant != m_plan.stop.other_than)
      m_stop = true;
  }
  if (m_plan.stop.after_failures > 0 && m_succeeded == 0 &&
      m_completed >= m_plan.stop.after_failures)
    m_stop = true;
  // The time budget: the runs that are done are the evidence, once there are enough of them.
  if (m_plan.stop.seconds > 0 && m_completed >= m_plan.stop.min_runs && !m_stop &&
      since_start(m_ex.now()) >= m_plan.stop.seconds)
    m_stop = m_out_of_time = true;
  if (m_progress) m_progress(m_completed, m_plan.runs, m_variants.size());
}

// The first run by which the runs recorded, in index order, show stop.outcomes outcomes (kdet's
// own errors are none).
uint64_t RunSession::serial_stop() const {
  std::set<std::string_view> seen;
  for (uint64_t i = m_plan.first_index; i < m_out.records.size(); ++i) {
    const RunRecord& r = m_out.records[i];
    if (r.done && !is_kdet_error(r.status) && seen.insert(r.variant).second &&
        seen.size() >= m_plan.stop.outcomes)
      return i;
  }
  return m_queue_stop; // not reached: record() asks only once that many were seen
}

void RunSession::finish() {
  m_watch.finish(m_out);
  m_out.completed = m_completed;
  m_out.workers_started = m_workers_started;
  m_out.workers_prestarted = m_prestarted;
  m_out.interrupted = m_interrupted || interrupted();
  m_out.stopped_early = !m_out.interrupted && m_completed + m_plan.first_index < m_plan.runs;
  m_out.out_of_time = m_out.stopped_early && m_out_of_time;
  m_out.variants = m_variants.take();
  m_out.wall_seconds = since_start(m_ex.now());
}

RunOutput execute(const RunPlan& plan, Executor& executor, const ProgressFn& progress) {
  RunSession session(plan, progress, executor);
  SessionLoop loop(executor);
  loop.add(session);
  while (loop.size() > 0)
    for (const auto& ended : loop.step())
      if (ended.error) std::rethrow_exception(ended.error);
  return session.output();
}

std::vector<RunOutput> execute_all(const std::vector<RunPlan>& plans, Executor& executor) {
  std::vector<std::unique_ptr<RunSession>> sessions;
  sessions.reserve(plans.size());
  SessionLoop loop(executor);
  for (const auto& plan : plans) {
    sessions.push_back(std::make_unique<RunSession>(plan, ProgressFn{}, executor));
    loop.add(*sessions.back());
  }
  while (loop.size() > 0)
    for (const auto& ended : loop.step())
      if (ended.error) std::rethrow_exception(ended.error);
  std::vector<RunOutput> out;
  out.reserve(sessions.size());
  for (auto& s : sessions)
    out.push_back(s->output());
  return out;
}

perturb::Context::Probes host_probes() {
  perturb::Context::Probes p;
  p.private_uts = [] { return backend::private_uts_unavailable(); };
  p.private_mounts = [] { return backend::private_mounts_unavailable(); };
  return p;
}

RunOutput execute(const RunPlan& plan, const ProgressFn& progress) {
  ProcessExecutor executor(plan.workers.pool);
  return execute(plan, executor, progress);
}

} // namespace kdet::engine
