//===- util/cpu_time.hpp - CPU time (user + system) of this process ----------===//
//
// Wall time on a shared machine cannot show a 1 % cost; CPU time can. These
// read the kernel's counters, in nanoseconds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace kdet {

// This process, all its threads.
uint64_t process_cpu_ns();

// The calling thread alone.
uint64_t thread_cpu_ns();

// The children (and their descendants) this process has waited for.
uint64_t children_cpu_ns();

} // namespace kdet
