//===- engine/worker_main.cpp - the worker process ---------------------------===//
//
// Started by the driver as `kdet __worker --backend K [--lib PATH] [--cmd T]
// [--ext E] [--function F --python PY] [--threads N --thread-seed S]` with requests on fd 3 and
// answers on fd 4. The arguments and environment are the same for every worker of a session, so
// fresh workers reach the compile call in the same state.
//
//===----------------------------------------------------------------------===//
#include "kdet/engine/worker_main.hpp"

#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/protocol.hpp"
#include "kdet/perturb/churn.hpp"
#include "kdet/util/cpu_time.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/reap.hpp"
#include "kdet/util/strings.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::engine {

namespace {

constexpr int k_request_fd = 3;
constexpr int k_reply_fd = 4;

struct WorkerArgs {
  backend::BackendConfig backend;
  int threads = 0;
  uint64_t thread_seed = 0;
  bool private_mounts = false; // a private mount namespace for the mtime factor's binds
  bool private_uts = false;    // a UTS namespace of its own for the hostname factor
};

bool parse_args(int argc, char** argv, WorkerArgs& a, std::string& error) {
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) {
      error = "missing value for " + k;
      return false;
    }
    std::string v = argv[++i];
    if (k == "--backend") {
      auto kind = backend::parse_kind(v);
      if (!kind) {
        error = "--backend " + v + ": not nvvm, nvrtc, nvjitlink, exec or python";
        return false;
      }
      a.backend.kind = *kind;
    } else if (k == "--lib")
      a.backend.lib = v;
    else if (k == "--cmd")
      a.backend.command = v;
    else if (k == "--ext")
      a.backend.output_ext = v;
    else if (k == "--function")
      a.backend.function = v;
    else if (k == "--python")
      a.backend.python = v;
    else if (k == "--threads")
      a.threads = static_cast<int>(parse_u64(v).value_or(0));
    else if (k == "--thread-seed")
      a.thread_seed = parse_u64(v).value_or(0);
    else if (k == "--private-mounts")
      a.private_mounts = v == "1";
    else if (k == "--private-uts")
      a.private_uts = v == "1";
    else {
      error = "unknown worker option " + k;
      return false;
    }
  }
  return true;
}

// The driver died (PR_SET_PDEATHSIG): end every process the compiler started,
// including those that left its process group (this worker is their subreaper),
// then go. Async-signal-safe.
void on_driver_gone(int sig) {
  kill_all_children_now();
  ::_exit(128 + sig);
}

// A worker never outlives the driver, nor lets its compiler's processes do so.
// spawn() set SIGKILL as the parent-death signal before exec; it becomes SIGTERM
// only once the handler is in place, so there is no moment without one.
void die_with_driver() {
  struct sigaction sa {};
  sa.sa_handler = on_driver_gone;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  become_subreaper();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
}

// The chaos allocator's reseed, for a library compiler in this process.
void reseed_chaos(const HeapSteps& heap) {
  if (!heap.chaos_reseed) return;
  using Reseed = void (*)(unsigned long long);
  static auto reseed = reinterpret_cast<Reseed>(::dlsym(RTLD_DEFAULT, "kdet_chaos_reseed"));
  if (reseed) reseed(heap.chaos_seed);
}

} // namespace

int worker_main(int argc, char** argv) {
  die_with_driver();
  WorkerArgs args;
  HelloMessage hello;
  std::string error;
  if (!parse_args(argc, argv, args, error)) {
    hello.error = error;
    write_frame(k_reply_fd, MessageType::hello, encode(hello));
    return 2;
  }
  // Before any thread: a mount namespace is the whole process's only when it is made so.
  // A failure is told to the first compile that needs one (apply_host_view says why).
  std::string mounts_error;
  if (args.private_mounts) mounts_error = backend::enter_private_mounts();
  if (args.private_uts) mounts_error += backend::enter_private_uts();
  // A Python stage's heap is its interpreter's: the threads start there (backend/python.cpp).
  const bool python = args.backend.kind == backend::Kind::python;
  if (python) {
    args.backend.threads = args.threads;
    args.backend.thread_seed = args.thread_seed;
  } else if (args.threads > 0) {
    perturb::start_allocating_threads(args.threads, args.thread_seed);
  }

  std::unique_ptr<backend::Backend> be;
  try {
    be = backend::load_backend(args.backend);
    hello.ok = true;
    hello.identity = be->identity();
  } catch (const std::exception& e) {
    hello.error = e.what();
  }
  if (!write_frame(k_reply_fd, MessageType::hello, encode(hello)) || !hello.ok) return 2;

  std::string payload;
  CompileMessage msg;
  uint64_t cpu_reported = 0; // this process's CPU time at the previous reply
  for (;;) {
    MessageType type;
    ReadStatus s = read_frame(k_request_fd, type, payload, std::nullopt);
    if (s != ReadStatus::ok || type == MessageType::quit)
      return s == ReadStatus::eof || s == ReadStatus::ok ? 0 : 2;
    if (type != MessageType::compile || !decode(payload, msg)) return 2;

    ResultMessage reply;
    using clock = std::chrono::steady_clock;
    // A library compiler runs in this process and takes the whole view here. Exec and Python
    // compilers are processes of their own: this process takes what they share with it (CPUs,
    // names, binds), the backend hands them the rest (and a Python stage its heap steps).
    const bool here = args.backend.kind != backend::Kind::exec && !python;
    if (std::string why = backend::apply_host_view(
            msg.request.host, here ? backend::HostScope::whole : backend::HostScope::shared);
        !why.empty()) {
      reply.result.status = backend::Status::infra_error;
      reply.result.detail = mounts_error.empty() ? why : why + " (" + mounts_error + ")";
      if (!write_frame(k_reply_fd, MessageType::result, encode(reply))) return 2;
      continue;
    }
    if (python) {
      msg.request.kept_heap = msg.heap;
    } else if (here) {
      reseed_chaos(msg.heap);
    }
    if (!python && msg.heap.churn) {
      auto t0 = clock::now();
      perturb::heap_churn(msg.heap.churn_seed);
      reply.churn_ns = static_cast<uint64_t>((clock::now() - t0).count());
    }
    // The compile's CPU: an exec'd compiler's is its children's; a library's is this
    // process's, unless kdet's own allocating threads run beside it: then only the
    // calling thread's (a compiler's own threads then count as kdet's, the safe side).
    const bool exec = args.backend.kind == backend::Kind::exec;
    const bool one_thread = args.threads > 0;
    auto compile_cpu = [&] {
      return exec ? children_cpu_ns() : one_thread ? thread_cpu_ns() : process_cpu_ns();
    };
    const uint64_t cpu0 = compile_cpu();
    auto t0 = clock::now();
    try {
      reply.result = be->compile(msg.request);
    } catch (const std::exception& e) {
      reply.result = backend::CompileResult{};
      reply.result.status = backend::Status::infra_error;
      reply.result.detail = e.what();
    }
    reply.compile_ns = static_cast<uint64_t>((clock::now() - t0).count());
    backend::end_host_view(msg.request.host);
    const uint64_t cpu1 = compile_cpu();
    reply.compile_cpu_ns = python ? reply.result.kept_cpu_ns : cpu1 > cpu0 ? cpu1 - cpu0 : 0;
    if (python) reply.churn_ns = reply.result.kept_churn_ns;
    settle_artifacts(reply.result, msg.request.workdir, msg.request.max_output);
    const uint64_t self = process_cpu_ns();
    const uint64_t in_process = exec || python ? 0 : reply.compile_cpu_ns;
    reply.own_cpu_ns = self > cpu_reported + in_process ? self - cpu_reported - in_process : 0;
    cpu_reported = self;
    if (!write_frame(k_reply_fd, MessageType::result, encode(reply))) return 2;
  }
}

} // namespace kdet::engine
