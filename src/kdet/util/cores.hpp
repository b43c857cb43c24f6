//===- util/cores.hpp - how many CPUs this process may use -------------------===//
//
// std::thread::hardware_concurrency() counts the machine's online CPUs. On a
// shared build machine kdet often may use fewer: `taskset`, a container's
// cpuset, or a cgroup CPU quota (`docker --cpus`, systemd's CPUQuota=). Slots
// by default, and "is a core spare for a worker's start", count these.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kdet {

// The CPUs this process may run on, bounded by a cgroup CPU quota (v2's cpu.max,
// v1's cfs quota); at least 1. Read once per process (the first call), then
// remembered.
unsigned usable_cores();

// The same, read now: the affinity mask's CPUs, bounded by the quota of the
// process's cgroup and of its ancestors: cgroup v2's cpu.max under
// `cgroup_root` (the cgroup is the "0::" line of `proc_cgroup`, the text of
// /proc/self/cgroup), and v1's cpu.cfs_quota_us / cpu.cfs_period_us under
// `cgroup_root`/cpu (the cgroup is the line whose controllers include "cpu").
unsigned count_usable_cores(const std::string& cgroup_root, const std::string& proc_cgroup);

// The CPUs a cgroup v2 cpu.max text allows: "max 100000" none (nullopt),
// "150000 100000" 2 (a quota of 1.5 CPUs rounds up). nullopt for anything else.
std::optional<unsigned> cores_from_cpu_max(std::string_view text);

} // namespace kdet
