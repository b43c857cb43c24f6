//===- backend/host_view.hpp - the host as a compiler sees it ----------------===//
//
// Applies a run's HostView (util/host_view.hpp): its environment changes, folder, umask, CPUs
// (the affinity mask, which nproc, OpenMP and thread pools size themselves from), host and
// domain name (uname's, changed only inside a UTS namespace of the worker's own), the mtime
// factor's binds and the PID namespace. One function for every place a view is applied: a
// library worker (the whole view, just before the compile), a worker whose compiler is its
// child (what the child shares with it), an exec compiler and `kdet exec`'s command (what a
// child is started with).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/exec.hpp"
#include "kdet/util/host_view.hpp"

#include <string>
#include <vector>

namespace kdet::backend {

// Where apply_host_view puts a view.
enum class HostScope {
  whole,  // this process, all but the PID namespace (a library compiler runs in it)
  shared, // this process, only what a compiler that is its child shares with it or inherits:
          // the CPUs, the host names and the binds
  child,  // `child`'s start only: the environment (changes to child->env, or to this process's
          // environment), the folder, the umask and the PID namespace
};

// Applies `v` in `scope`. "" on success, else why not (a folder that cannot be entered, a bind
// that fails, names without a UTS namespace of its own).
std::string apply_host_view(const HostView& v, HostScope scope, SpawnOptions* child = nullptr);

// Undoes what must not outlive the compile in this process (the binds), after it.
void end_host_view(const HostView& v);

// Gives this process a UTS namespace of its own (root; call it at the worker's start).
// "" on success, else why not.
std::string enter_private_uts();

// Whether enter_private_uts can work here ("" if so); tried once, in a short-lived child.
std::string private_uts_unavailable();

// Sets the host and domain name, only inside the namespace enter_private_uts made (never the
// machine's own). "" on success, else why not.
std::string set_host_names(const std::string& host, const std::string& domain);

// Restricts the calling thread (and what it starts next) to `cpus`. "" or why not.
std::string set_cpus(const std::vector<int>& cpus);

} // namespace kdet::backend
