#include "kdet/perturb/factors.hpp"

#include "kdet/perturb/registry.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <fmt/format.h>
#include <mutex>
#include <sched.h>
#include <unistd.h>

namespace kdet::perturb {

std::string preload_list(const std::vector<std::string>& libs) {
  std::string v;
  for (const auto& l : libs)
    v += (v.empty() ? "" : ":") + l;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    v += std::string(":") + existing;
  return v;
}

const std::vector<std::string>& thread_count_variables() {
  static const std::vector<std::string> v = {
      "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",        "MKL_NUM_THREADS", "GOTO_NUM_THREADS",
      "NUMEXPR_NUM_THREADS",  "VECLIB_MAXIMUM_THREADS", "TBB_NUM_THREADS", "NPROC"};
  return v;
}

Status pid_namespace_available() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    SpawnOptions o;
    o.argv = {"/bin/true"};
    o.new_pid_namespace = true;
    auto r = run_captured(o, std::chrono::seconds(10));
    if (!r.status.ok()) status = failure(r.status.describe());
  });
  return status;
}

void find_preload_libraries(Context& ctx) {
  ctx.chaos_lib = find_kdet_library("libkdet_chaos.so");
  for (const char* cand :
       {"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"}) {
    if (::access(cand, R_OK) == 0) {
      ctx.faketime_lib = cand;
      break;
    }
  }
}

std::string chaos_unusable(bool exec) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr const char* k_sanitizer = "AddressSanitizer";
#elif defined(__SANITIZE_THREAD__)
  constexpr const char* k_sanitizer = "ThreadSanitizer";
#else
  constexpr const char* k_sanitizer = nullptr;
#endif
  if (exec || k_sanitizer == nullptr) return "";
  return fmt::format("this kdet is built with {}, whose allocator and libkdet_chaos.so cannot "
                     "share a library compiler's worker",
                     k_sanitizer);
}

std::string ask(const std::function<std::string()>& probe) {
  return probe ? probe() : std::string();
}

void check_available(const Setting& s, Context& ctx) {
  for (const auto& f : factor_registry())
    if (f.check)
      if (std::string why = f.check(s, ctx); !why.empty()) throw Error(why);
}

std::vector<int> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

Launch plan_launch(const Setting& s, const Context& ctx) {
  Launch l;
  for (const auto& f : factor_registry())
    if (f.launch) f.launch(s, ctx, l);
  if (!l.preload.empty()) l.env.push_back("LD_PRELOAD=" + preload_list(l.preload));
  return l;
}

RunPerturbation plan_run(const Setting& s, const Context& ctx, uint64_t run_index,
                         uint64_t run_seed, int slot) {
  RunPerturbation p;
  p.input_path = ctx.input_path;
  p.input_name = ctx.input_path.substr(ctx.input_path.find_last_of('/') + 1);
  const RunSpot at{run_index, run_seed, slot};
  for (const auto& f : factor_registry())
    if (f.run) f.run(s, ctx, at, p);
  if (!p.preload.empty()) p.host.env.push_back("LD_PRELOAD=" + preload_list(p.preload));
  return p;
}

} // namespace kdet::perturb
