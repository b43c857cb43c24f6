//===- util/host_view.hpp - how one compile sees its host ---------------------===//
//
// One value for a run's view of the host: its environment changes, working folder, umask, the
// CPUs it may run on, the host and domain name, the files bound over others for it, and whether
// it runs in a PID namespace of its own. The factors fill it (perturb::RunPerturbation), it
// crosses the pipe to the worker whole (engine/protocol.cpp), and backend/host_view.cpp applies
// it: to a library worker, to an exec compiler as it starts, and to `kdet exec`'s command.
//
// And what a worker does to its heap before a compile (the heap factor), which a Python stage's
// interpreter does instead of the worker.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kdet {

struct HostView {
  std::vector<std::string> env;     // "K=V" sets, "K" unsets, in order
  std::string cwd;                  // empty: unchanged
  int umask = -1;                   // -1: unchanged
  std::vector<int> cpus;            // the CPUs it may run on (empty: unchanged)
  std::string hostname, domainname; // in a UTS namespace of the worker's own (empty: unchanged)
  // (copy, path): a copy bound over `path` for this compile only, in the worker's private mount
  // namespace (the mtime factor).
  std::vector<std::pair<std::string, std::string>> binds;
  bool pid_namespace = false; // a compiler started as a child runs as pid 2 of a fresh one
  bool operator==(const HostView&) const = default;
};

struct HeapSteps {
  bool churn = false; // malloc and free seeded blocks first (perturb::heap_churn)
  uint64_t churn_seed = 0;
  bool chaos_reseed = false; // reseed libkdet_chaos (kdet_chaos_reseed)
  uint64_t chaos_seed = 0;
  bool operator==(const HeapSteps&) const = default;
};

} // namespace kdet
