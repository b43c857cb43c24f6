//===- diff/occupancy.cpp - CUDA's occupancy calculator, from a table --------===//
//
// Sources of the table (CUDA 13.0):
//  [G] CUDA C++ Programming Guide, "Technical Specifications per Compute
//      Capability": max threads per block (1024), max resident threads per SM,
//      32-bit registers per SM and per block (64 K), max registers per thread,
//      shared memory per SM and the max per block (opt-in), and the 1 KB of
//      shared memory reserved per block from 8.0 on.
//  [H] cuda_occupancy.h of CUDA 13.0 (/usr/local/cuda/include): the calculator's
//      own constants: cudaOccMaxBlocksPerMultiprocessor (max blocks per SM; it
//      says 24 for 12.x where [G] lists 32, and the calculator is what this
//      reproduces), cudaOccRegAllocationGranularity (256), cudaOcc-
//      RegAllocationMaxPerThread (256), cudaOccSubPartitionsPerMultiprocessor
//      (4), cudaOccSMemAllocationGranularity (256 for 7.x, 128 from 8.x),
//      cudaOccAlignUpShmemSizeVoltaPlus (the carveout sizes),
//      cudaOccMaxBlocksPerSMBlockBarrierLimit (barriers per block slot).
// 8.8 and 11.0, which ptxas 13.0 also targets, are left out: [G] and [H] do not
// give every value for them, and a made-up row would give a made-up answer.
//
// One departure from [H]: the per-block shared memory check uses the opt-in
// limit. [H] checks static + reserved shared memory against sharedMemPerBlock
// (48 KB) unless the function opted in, which would call a kernel with 48 KB of
// static shared memory unlaunchable; static shared memory needs no opt-in.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/occupancy.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace kdet::diff {

namespace {

constexpr uint64_t k_kib = 1024;
constexpr uint32_t k_warp = 32;
constexpr uint32_t k_none = std::numeric_limits<uint32_t>::max();

// Carveout sizes [H] cudaOccAlignUpShmemSizeVoltaPlus.
const std::vector<uint64_t>& carveouts_turing() {
  static const std::vector<uint64_t> v = {32 * k_kib, 64 * k_kib};
  return v;
}
const std::vector<uint64_t>& carveouts_100k() { // 8.6, 8.9, 12.x
  static const std::vector<uint64_t> v = {0,          8 * k_kib,  16 * k_kib,
                                          32 * k_kib, 64 * k_kib, 100 * k_kib};
  return v;
}
const std::vector<uint64_t>& carveouts_164k() { // 8.0, 8.7
  static const std::vector<uint64_t> v = {0,          8 * k_kib,   16 * k_kib,  32 * k_kib,
                                          64 * k_kib, 100 * k_kib, 132 * k_kib, 164 * k_kib};
  return v;
}
const std::vector<uint64_t>& carveouts_228k() { // 9.0, 10.0, 10.3
  static const std::vector<uint64_t> v = {0,           8 * k_kib,   16 * k_kib,  32 * k_kib,
                                          64 * k_kib,  100 * k_kib, 132 * k_kib, 164 * k_kib,
                                          196 * k_kib, 228 * k_kib};
  return v;
}

// sm, threads/SM [G], blocks/SM [H], shared/SM KB [G], opt-in/block KB [G], reserved/block [G],
// shared allocation unit [H], barriers per block slot [H], carveouts [H].
ArchLimits row(unsigned sm, uint32_t threads_per_sm, uint32_t blocks, uint64_t shared_kib,
               uint64_t optin_kib, uint64_t reserved, uint32_t smem_unit, uint32_t barrier_slots,
               const std::vector<uint64_t>& carveouts) {
  ArchLimits a;
  a.sm = sm;
  a.max_threads_per_block = 1024; // [G] all listed capabilities
  a.max_threads_per_sm = threads_per_sm;
  a.max_blocks_per_sm = blocks;
  a.regs_per_sm = 64 * 1024;    // [G]
  a.regs_per_block = 64 * 1024; // [G]
  a.max_regs_per_thread = 256;  // [H] cudaOccRegAllocationMaxPerThread, 7.x and later
  a.reg_alloc_unit = 256;       // [H] cudaOccRegAllocationGranularity
  a.sub_partitions = 4;         // [H] cudaOccSubPartitionsPerMultiprocessor
  a.shared_per_sm = shared_kib * k_kib;
  a.shared_per_block_optin = optin_kib * k_kib;
  a.reserved_shared_per_block = reserved;
  a.shared_alloc_unit = smem_unit;
  a.barriers_per_block_slot = barrier_slots;
  a.carveouts = carveouts;
  return a;
}

const std::vector<ArchLimits>& table() {
  static const std::vector<ArchLimits> t = {
      row(75, 1024, 16, 64, 64, 0, 256, 2, carveouts_turing()),
      row(80, 2048, 32, 164, 163, k_kib, 128, 2, carveouts_164k()),
      row(86, 1536, 16, 100, 99, k_kib, 128, 1, carveouts_100k()),
      row(87, 1536, 16, 164, 163, k_kib, 128, 1, carveouts_164k()),
      row(89, 1536, 24, 100, 99, k_kib, 128, 1, carveouts_100k()),
      row(90, 2048, 32, 228, 227, k_kib, 128, 2, carveouts_228k()),
      row(100, 2048, 32, 228, 227, k_kib, 128, 2, carveouts_228k()),
      row(103, 2048, 32, 228, 227, k_kib, 128, 2, carveouts_228k()),
      row(120, 1536, 24, 100, 99, k_kib, 128, 1, carveouts_100k()),
      row(121, 1536, 24, 100, 99, k_kib, 128, 1, carveouts_100k()),
  };
  return t;
}

uint64_t round_up(uint64_t x, uint64_t unit) {
  return unit == 0 ? x : (x + unit - 1) / unit * unit;
}

// The smallest carveout holding `size`, or 0 past the largest ([H] returns an error there;
// no block then fits anyway).
uint64_t align_carveout(const ArchLimits& a, uint64_t size) {
  for (uint64_t c : a.carveouts)
    if (size <= c) return c;
  return 0;
}

uint32_t regs_limit(const ArchLimits& a, const OccupancyInput& in, uint32_t warps) {
  uint64_t per_warp = round_up(uint64_t{in.registers} * k_warp, a.reg_alloc_unit);
  uint64_t per_block = per_warp * warps;
  // The hardware checks a block's registers as if its warps filled every sub-partition.
  uint64_t assumed = per_warp * round_up(warps, a.sub_partitions);
  if (a.regs_per_block < assumed || a.regs_per_block < per_block ||
      in.registers > a.max_regs_per_thread)
    return 0;
  if (per_warp == 0) return k_none;
  uint64_t warps_per_partition = (a.regs_per_sm / a.sub_partitions) / per_warp;
  return static_cast<uint32_t>(warps_per_partition * a.sub_partitions / warps);
}

uint32_t shared_limit(const ArchLimits& a, const OccupancyInput& in, uint64_t& carveout) {
  uint64_t preferred = in.carveout < 0 ? a.shared_per_sm
                                       : static_cast<uint64_t>(in.carveout) * a.shared_per_sm / 100;
  preferred = align_carveout(a, preferred);
  uint64_t allocated = round_up(in.static_shared + a.reserved_shared_per_block + in.dynamic_shared,
                                a.shared_alloc_unit);
  carveout = preferred;
  if (allocated > a.shared_per_block_optin) return 0;
  // A preference too small for one block gives way to the smallest carveout that holds it.
  if (preferred < allocated) carveout = align_carveout(a, allocated);
  if (allocated == 0) return k_none;
  return static_cast<uint32_t>(carveout / allocated);
}

} // namespace

const ArchLimits* arch_limits(unsigned sm) {
  for (const auto& a : table())
    if (a.sm == sm) return &a;
  return nullptr;
}

std::vector<unsigned> known_archs() {
  std::vector<unsigned> out;
  for (const auto& a : table())
    out.push_back(a.sm);
  return out;
}

Occupancy occupancy(const ArchLimits& a, const OccupancyInput& in) {
  Occupancy o;
  o.max_warps_per_sm = a.max_threads_per_sm / k_warp;
  uint32_t warps = std::max<uint32_t>(1, (in.block_size + k_warp - 1) / k_warp);
  o.by_warps = in.block_size > a.max_threads_per_block ? 0 : o.max_warps_per_sm / warps;
  o.by_registers = regs_limit(a, in, warps);
  o.by_blocks = a.max_blocks_per_sm;
  o.by_shared = shared_limit(a, in, o.shared_per_sm);
  o.by_barriers = k_none;
  // [H]: from 9.0 on, each resident-block slot brings a fixed number of block barriers.
  if (a.sm >= 90 && in.barriers > 0)
    o.by_barriers = a.max_blocks_per_sm * a.barriers_per_block_slot / in.barriers;
  o.blocks_per_sm = std::min({o.by_registers, o.by_warps, o.by_blocks, o.by_shared, o.by_barriers});
  const std::array<std::pair<uint32_t, const char*>, 5> limits = {{{o.by_warps, "warps"},
                                                                   {o.by_registers, "registers"},
                                                                   {o.by_shared, "shared memory"},
                                                                   {o.by_blocks, "blocks"},
                                                                   {o.by_barriers, "barriers"}}};
  for (const auto& [v, name] : limits)
    if (v == o.blocks_per_sm) o.limited_by.emplace_back(name);
  o.warps_per_sm = o.blocks_per_sm * warps;
  o.fraction = o.max_warps_per_sm ? static_cast<double>(o.warps_per_sm) / o.max_warps_per_sm : 0;
  return o;
}

} // namespace kdet::diff
