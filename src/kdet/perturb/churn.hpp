//===- perturb/churn.hpp - in-worker heap perturbation -----------------------===//
#pragma once

#include <cstdint>

namespace kdet::perturb {

// Heap churn as in the reporter's repro: malloc blocks of seeded random
// sizes (16 B .. 64 KiB, log-uniform) and free every other one. The kept half
// is released eight calls later, so churn shifts the heap without growing it
// without bound. Same seed, same sequence.
void heap_churn(uint64_t seed);

// Starts `count` threads that each allocate a seeded set of blocks and then
// stay alive (blocked) for the life of the process, like a thread pool.
void start_allocating_threads(int count, uint64_t seed);

} // namespace kdet::perturb
