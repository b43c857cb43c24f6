//===- diff/occupancy.hpp - CUDA's occupancy calculator, from a table --------===//
//
// The blocks and warps per SM a kernel's resources allow, computed as
// cudaOccMaxActiveBlocksPerMultiprocessor in CUDA 13.0's cuda_occupancy.h does
// (registers per warp rounded to the allocation unit and shared among the four
// sub-partitions; warps, blocks, shared memory with the driver's per-block
// reserve and the carveout configurations; block barriers from sm_90 on), on
// a per-architecture table of device properties (occupancy.cpp cites each).
// No GPU is asked: the numbers are those of the architecture, not a device.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kdet::diff {

// The device properties the calculator needs, for one compute capability.
struct ArchLimits {
  unsigned sm = 0; // 80 for compute capability 8.0
  uint32_t max_threads_per_block = 0;
  uint32_t max_threads_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t regs_per_sm = 0;
  uint32_t regs_per_block = 0;
  uint32_t max_regs_per_thread = 0; // cudaOccRegAllocationMaxPerThread
  uint32_t reg_alloc_unit = 0;      // registers, per warp
  uint32_t sub_partitions = 0;
  uint64_t shared_per_sm = 0;          // bytes, the largest carveout
  uint64_t shared_per_block_optin = 0; // bytes
  uint64_t reserved_shared_per_block = 0;
  uint32_t shared_alloc_unit = 0;       // bytes
  uint32_t barriers_per_block_slot = 0; // block barriers per resident-block slot (sm_90 on)
  std::vector<uint64_t> carveouts;      // the shared memory sizes an SM can be configured to
};

// The table's row for `sm` (75, 80, 86, 87, 89, 90, 100, 103, 120, 121), or nullptr.
const ArchLimits* arch_limits(unsigned sm);

// The architectures arch_limits knows, ascending.
std::vector<unsigned> known_archs();

// What one kernel's launch needs.
struct OccupancyInput {
  uint32_t registers = 0;      // per thread
  uint64_t static_shared = 0;  // bytes
  uint64_t dynamic_shared = 0; // bytes
  uint32_t barriers = 0;       // block barriers
  uint32_t block_size = 0;     // threads per block
  int carveout = -1;           // percent of shared_per_sm preferred; -1: the default
};

// The calculator's answer.
struct Occupancy {
  uint32_t blocks_per_sm = 0;
  uint32_t warps_per_sm = 0; // blocks_per_sm x warps per block
  uint32_t max_warps_per_sm = 0;
  double fraction = 0; // warps_per_sm / max_warps_per_sm
  // The limit each resource sets on blocks per SM (UINT32_MAX: none).
  uint32_t by_registers = 0, by_warps = 0, by_blocks = 0, by_shared = 0, by_barriers = 0;
  std::vector<std::string> limited_by; // "registers", "warps", "blocks", "shared memory",
                                       // "barriers": those equal to blocks_per_sm
  uint64_t shared_per_sm = 0;          // the carveout the calculation used (bytes)
};

// Runs the calculator; `in.block_size` must be at least 1.
Occupancy occupancy(const ArchLimits& arch, const OccupancyInput& in);

} // namespace kdet::diff
