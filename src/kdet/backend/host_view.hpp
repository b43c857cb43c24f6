//===- backend/host_view.hpp - the host as a compiler sees it ----------------===//
//
// Two of reprotest's variations that no environment variable carries: the
// host and domain name (uname's nodename and domainname), changed only inside
// a UTS namespace of the worker's own, and the CPUs the compile may run on
// (the affinity mask, which nproc, OpenMP and thread pools size themselves
// from). The worker applies both just before a compile; an exec compiler
// inherits them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kdet::backend {

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
