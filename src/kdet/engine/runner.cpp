#include "kdet/engine/runner.hpp"

#include "kdet/backend/exec_template.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/worker.hpp"
#include "kdet/perturb/factors.hpp"
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
#include <future>
#include <mutex>
#include <thread>

namespace kdet::engine {

using namespace std::chrono;

namespace {

constexpr size_t k_max_log_kept = 16 << 10;
// exec workers enforce the timeout themselves; the driver waits this much longer.
constexpr milliseconds k_exec_grace{10000};

std::vector<std::string> build_env(const std::vector<std::string>& overrides) {
  return with_env_changes(current_environment(), overrides);
}

std::string iso_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(system_clock::to_time_t(system_clock::now())));
}

} // namespace

std::string outcome_id(const backend::CompileResult& r) {
  Hasher h;
  h.add(backend::to_string(r.status));
  if (r.status == backend::Status::ok) {
    for (const auto& a : r.artifacts)
      add_artifact(h, a);
  } else {
    h.add_u64(static_cast<uint64_t>(r.code)).add_u64(static_cast<uint64_t>(r.signal));
  }
  return h.hex();
}

bool runs_in_fresh_process(perturb::ProcessMode mode, uint64_t index) {
  return mode == perturb::ProcessMode::fresh ||
         (mode == perturb::ProcessMode::both && index % 2 == 0);
}

RunOutput execute(const RunPlan& plan, const ProgressFn& progress) {
  RunOutput out;
  out.plan = plan;
  out.started_at = iso_now();
  out.records.resize(plan.runs);
  auto t_start = steady_clock::now();

  const std::string input = read_file(plan.input_path);
  const TempDir session("run");
  const std::string& session_dir = session.path();
  // Large artifacts of the variants are kept here, beside the session folder (same file
  // system, so they move by rename); it goes when the last artifact in it is dropped.
  auto kept_files = std::make_shared<const TempFolder>("artifacts");
  uint64_t kept_serial = 0;

  const bool is_exec = plan.backend.kind == backend::Kind::exec;
  perturb::Context ctx;
  ctx.session_dir = session_dir;
  ctx.input_path = plan.input_path;
  ctx.base_cwd = std::filesystem::current_path().string();
  ctx.exec_backend = is_exec;
  perturb::find_preload_libraries(ctx);
  perturb::check_available(plan.setting, ctx);
  perturb::Launch factors = perturb::plan_launch(plan.setting, ctx);

  WorkerLaunch launch;
  launch.exe = plan.worker_exe.empty() ? self_exe() : plan.worker_exe;
  launch.backend = plan.backend;
  launch.aslr = !factors.disable_aslr;
  launch.pid_namespace = factors.pid_namespace;
  launch.threads = factors.threads;
  launch.thread_seed = mix_seed(plan.setting.seed, ~0ULL);
  std::vector<std::string> env_overrides = factors.env;
  env_overrides.insert(env_overrides.end(), plan.setting.env.begin(), plan.setting.env.end());
  launch.env = build_env(env_overrides);
  const perturb::ProcessMode mode = plan.setting.process;
  const bool fresh = mode == perturb::ProcessMode::fresh;

  // Load the compiler once up front: a bad --lib or --cmd is a usage error, not N failed runs.
  // With --process same the probe simply stays on as slot 0's worker.
  HelloMessage hello;
  WorkerProcess probe;
  int probe_serial = 0;
  if (plan.identity) {
    hello.identity = *plan.identity;
  } else {
    launch.log_path = session_dir + "/worker0.log";
    std::string error;
    auto t_probe = steady_clock::now();
    if (!probe.start(launch, hello, error)) {
      if (interrupted()) throw Interrupted();
      throw Error::format("cannot load the {} compiler: {}", backend::to_string(plan.backend.kind),
                          error);
    }
    out.worker_start_seconds = duration<double>(steady_clock::now() - t_probe).count();
    if (fresh) probe.stop();
  }
  out.identity = hello.identity;
  if (is_exec) {
    // Exec workers do not ask the program for its version; one question per session.
    if (out.identity.version.empty())
      out.identity.version = backend::exec_program_version(out.identity.path);
    bool to_file = backend::template_names(split_command(plan.backend.command), "output");
    out.exec_artifact = to_file ? "output-file" : "stdout";
    out.slot_paths_unshared = backend::slot_namespace_unavailable();
  }
  // Hash the compiler file (tens of MB) while the runs go on; only the report needs it.
  std::future<std::string> content_hash;
  if (out.identity.content_hash.empty())
    content_hash = std::async(std::launch::async, backend::cached_file_hash, out.identity.path);

  std::atomic<uint64_t> next{plan.first_index};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::map<std::string, Variant> variants;
  uint64_t completed = 0, succeeded = 0;

  std::atomic<int> workers_started{probe.alive() ? 1 : 0};
  if (probe.alive()) probe_serial = 1;
  auto slot_main = [&](int slot) {
    // `shared` serves the slot's same-process runs; `own` is started for one
    // fresh-process run and stopped after it (process=both uses both).
    WorkerProcess shared, own;
    if (slot == 0 && probe.alive()) shared = std::move(probe);
    WorkerLaunch my = launch;
    my.log_path = fmt::format("{}/worker{}.log", session_dir, slot);
    std::string workdir = fmt::format("{}/s{}", session_dir, slot);
    make_dirs(workdir);
    int shared_serial = shared.alive() ? probe_serial : 0, shared_nth = 0;
    for (;;) {
      if (stop.load() || interrupted()) break;
      uint64_t idx = next.fetch_add(1);
      if (idx >= plan.runs) break;
      RunRecord rec;
      rec.index = idx;
      rec.seed = mix_seed(plan.setting.seed, idx);
      rec.slot = slot;
      const bool run_fresh = runs_in_fresh_process(mode, idx);
      rec.fresh_process = run_fresh;
      WorkerProcess& worker = run_fresh ? own : shared;
      int own_serial = 0, own_nth = 0;
      int& worker_serial = run_fresh ? own_serial : shared_serial;
      int& nth = run_fresh ? own_nth : shared_nth;
      auto t0 = steady_clock::now();
      backend::CompileResult result;
      WorkerReply reply;
      perturb::RunPerturbation pert = perturb::plan_run(plan.setting, ctx, idx, rec.seed);
      my.env = launch.env;
      if (run_fresh && !is_exec && !pert.env.empty()) {
        // A fresh worker gets this run's variables in its initial environment
        // rather than through setenv(), which would also move the compiler's
        // heap: a factor must change only what it names.
        std::vector<std::string> overrides = env_overrides;
        overrides.insert(overrides.end(), pert.env.begin(), pert.env.end());
        my.env = build_env(overrides);
        pert.env.clear();
      }
      if (!worker.alive()) {
        HelloMessage h;
        std::string error;
        if (worker.start(my, h, error)) {
          worker_serial = workers_started.fetch_add(1) + 1;
          nth = 0;
        } else if (interrupted()) {
          stop.store(true);
          break;
        } else {
          result.status = backend::Status::infra_error;
          result.detail = "could not start a worker: " + error;
        }
      }
      if (worker.alive()) {
        CompileMessage msg;
        msg.run_index = idx;
        msg.seed = rec.seed;
        msg.churn = plan.setting.heap == perturb::HeapMode::churn ? 1 : 0;
        msg.request.input = input;
        for (const auto& d : pert.make_dirs)
          make_dirs(d);
        if (pert.copy_input) write_file_atomic(pert.input_path, input);
        msg.chaos_reseed = pert.chaos_reseed ? 1 : 0;
        msg.chaos_seed = pert.chaos_seed;
        msg.request.input_path = pert.input_path;
        msg.request.input_name = pert.input_name;
        msg.request.env = pert.env;
        msg.request.cwd = pert.cwd;
        msg.request.umask = pert.umask;
        msg.request.pid_namespace = pert.pid_namespace;
        msg.request.options = plan.options;
        msg.request.workdir = workdir;
        msg.request.timeout = plan.timeout;
        msg.request.max_output = plan.max_output;
        rec.worker_pid = worker.pid();
        rec.worker = worker_serial;
        rec.nth_in_worker = ++nth;
        auto driver_timeout =
            plan.timeout.count() > 0 && is_exec ? plan.timeout + k_exec_grace : plan.timeout;
        reply = worker.compile(msg, driver_timeout, interrupt_fd());
        if (reply.interrupted) {
          stop.store(true);
          break;
        }
        result = std::move(reply.message.result);
        if (!adopt_artifact_files(result, workdir)) {
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
        if (run_fresh && worker.alive()) worker.stop();
      }
      rec.seconds = duration<double>(steady_clock::now() - t0).count();
      rec.status = result.status;
      rec.code = result.code;
      rec.signal = result.signal;
      rec.detail = result.detail;
      rec.log_hash = hash_bytes(result.log);
      rec.log =
          result.log.size() > k_max_log_kept ? result.log.substr(0, k_max_log_kept) : result.log;
      if (result.status == backend::Status::ok) {
        for (const auto& a : result.artifacts)
          rec.artifacts.push_back({a.name, a.hash, a.size});
      }
      try {
        rec.variant = outcome_id(result);
      } catch (const std::exception& e) {
        result = backend::CompileResult{};
        result.status = backend::Status::infra_error;
        result.detail = e.what();
        rec.status = result.status;
        rec.detail = result.detail;
        rec.artifacts.clear();
        rec.variant = outcome_id(result);
      }
      rec.done = true;

      std::lock_guard<std::mutex> lock(mu);
      auto [it, inserted] = variants.try_emplace(rec.variant);
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
              keep_artifact_file(a, kept_files, ++kept_serial);
            } catch (const std::exception& e) {
              // Cannot move it (should not happen: same folder tree): keep its bytes instead.
              out.warnings.push_back(e.what());
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
      out.records[idx] = std::move(rec);
      if (plan.on_record) plan.on_record(out.records[idx]);
      ++completed;
      if (plan.stop_at_outcomes > 0 && variants.size() >= plan.stop_at_outcomes) stop.store(true);
      if (result.status == backend::Status::ok) ++succeeded;
      if (plan.stop_after_failures > 0 && succeeded == 0 && completed >= plan.stop_after_failures)
        stop.store(true);
      if (progress) progress(completed, plan.runs, variants.size());
    }
    shared.stop();
    own.stop();
  };

  int jobs = std::max(
      1, std::min<int>(plan.jobs,
                       static_cast<int>(plan.runs - std::min(plan.runs, plan.first_index))));
  std::vector<std::thread> threads;
  for (int s = 1; s < jobs; ++s)
    threads.emplace_back(slot_main, s);
  slot_main(0);
  for (auto& t : threads)
    t.join();

  if (content_hash.valid()) out.identity.content_hash = content_hash.get();
  out.completed = completed;
  out.workers_started = workers_started.load();
  out.interrupted = interrupted();
  out.stopped_early = !out.interrupted && completed + plan.first_index < plan.runs;
  for (auto& [id, v] : variants)
    out.variants.push_back(std::move(v));
  std::sort(out.variants.begin(), out.variants.end(), [](const Variant& a, const Variant& b) {
    return a.count != b.count ? a.count > b.count : a.first_run < b.first_run;
  });
  out.wall_seconds = duration<double>(steady_clock::now() - t_start).count();
  return out;
}

} // namespace kdet::engine
