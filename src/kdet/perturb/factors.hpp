//===- perturb/factors.hpp - from a Setting to what a worker and a run get ----===//
#pragma once

#include "kdet/perturb/files.hpp"
#include "kdet/perturb/setting.hpp"
#include "kdet/util/host_view.hpp"
#include "kdet/util/result.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kdet::perturb {

// What the factors need to know about the session.
struct Context {
  std::string session_dir;   // private temp folder of this kdet process
  std::string input_path;    // the input as given (absolute)
  std::string base_cwd;      // the driver's working directory
  bool exec_backend = false; // the compiler is a separate process started per run
  std::string chaos_lib;     // libkdet_chaos.so (empty: not found)
  std::string faketime_lib;  // libfaketime.so.1 (empty: not installed)
  // The files the input names (perturb::named_files), whose times the mtime factor sets.
  std::vector<std::string> named_files;
  std::vector<std::string> named_in_cwd; // per named file: its relative name in base_cwd, or ""
  std::vector<int> usable_cpus;          // the driver's affinity mask (affinity_cpus), for cpus
  // std::thread::hardware_concurrency(), asked once (it reads sysfs); 0: asked by each plan_run.
  unsigned hardware_threads = 0;
  // The input's bytes and the compiler's options, for factors that read what the input names.
  std::string input;
  std::vector<std::string> options;
  // What this machine allows, each asked when a factor needs it: "" or why not. The driver
  // fills them (engine::host_probes); unset, a factor takes the machine as allowing it.
  struct Probes {
    std::function<std::string()> private_uts;    // a UTS namespace of the worker's own
    std::function<std::string()> private_mounts; // a private mount namespace (binds)
  } probes;
};

// Asks a probe of Context::probes: "" when it is unset.
std::string ask(const std::function<std::string()>& probe);

// How every worker of the session is started.
struct Launch {
  std::vector<std::string> env; // K=V added to the worker's environment
  bool disable_aslr = false;
  bool pid_namespace = false;  // the worker runs as pid 2 of a fresh PID namespace
  bool private_mounts = false; // the worker makes its mount namespace private (mtime binds)
  bool private_uts = false;    // the worker takes a UTS namespace of its own (hostname)
  int threads = 0;
  uint64_t thread_seed = 0;         // the allocating threads' seed (0 without threads)
  std::vector<std::string> preload; // libraries for the worker's LD_PRELOAD, in order
  bool operator==(const Launch&) const = default;
};

// One run's own perturbation. Its view of the host and its heap steps go to the worker whole
// (engine/protocol.cpp), which applies them just before the compile (backend/host_view.hpp);
// the rest is the driver's (folders to make, the input's copy, the mtime copies).
struct RunPerturbation {
  HostView host;                      // environment, folder, umask, CPUs, names, binds, pid
  HeapSteps heap;                     // churn, or the chaos allocator's reseed (library backends)
  std::string input_path;             // where the compiler reads the input
  std::string input_name;             // module / program name given to library compilers
  bool copy_input = false;            // the driver must place the input at input_path
  std::vector<std::string> make_dirs; // folders the driver creates before the run
  // mtime: files whose modification time this run sets. The driver makes the copies
  // (place_file_times) in a folder of make_dirs; the worker binds each copy over its path
  // (host.binds).
  std::vector<FileTime> file_times;
  std::vector<std::string> preload; // exec: libraries for the compiler's LD_PRELOAD, in order
};

// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> affinity_cpus();

// Whether the mtime factor under `s` needs the worker's private mount namespace: some file
// the compiler reads is not kdet's own (a named file, or an exec compiler's input at its
// fixed path).
bool needs_private_mounts(const Setting& s, const Context& ctx);

// Locates libkdet_chaos.so (beside the kdet binary) and libfaketime; fills `ctx`.
void find_preload_libraries(Context& ctx);

// Why the chaos allocator cannot act in this build's workers, or "" when it can. A kdet built
// with AddressSanitizer or ThreadSanitizer runs its library compilers in a worker whose malloc
// is the sanitizer's: libkdet_chaos.so preloaded there would make two allocators free each
// other's blocks, which crashes a worker on some machines and not on others. So the chaos level
// is refused for library backends in such a build, always (`exec`: the compiler is a process of
// its own, unsanitized, and takes the library as any program does).
std::string chaos_unusable(bool exec);

// Checks the setting can be honoured here, each factor by its own check (which may fill what it
// needs in `ctx`); throws Error naming the option when not (e.g. --heap chaos without
// libkdet_chaos.so or in a sanitized kdet's library workers, --time without libfaketime).
void check_available(const Setting& s, Context& ctx);

Launch plan_launch(const Setting& s, const Context& ctx);
// `slot`: the parallel slot the run goes to; cpus=fixed gives each slot a CPU of its own.
RunPerturbation plan_run(const Setting& s, const Context& ctx, uint64_t run_index,
                         uint64_t run_seed, int slot = 0);

// An LD_PRELOAD value: `libs` first, then whatever this process already preloads.
std::string preload_list(const std::vector<std::string>& libs);

// Thread-count variables that thread pools read (OpenBLAS, OpenMP, MKL, ...).
const std::vector<std::string>& thread_count_variables();

// Whether this machine lets kdet create PID namespaces, and if not why (probed once).
Status pid_namespace_available();

} // namespace kdet::perturb
