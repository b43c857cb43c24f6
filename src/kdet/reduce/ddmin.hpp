//===- reduce/ddmin.hpp - delta debugging over chunks -------------------------===//
//
// llvm-reduce's chunk halving: try removing windows of the kept chunks, from
// half of them down to one at a time, keeping every removal the test accepts.
// Up to `jobs` windows are tested at once; of those accepted, the lowest one
// wins, so the result does not depend on which test ends first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace kdet::reduce {

// True when keeping exactly these chunk indices (ascending) is still interesting.
using ChunkTest = std::function<bool(const std::vector<size_t>& keep)>;

// The chunks to keep, 1-minimal for single-chunk removals unless `stop` said to end early.
std::vector<size_t> ddmin(size_t count, const ChunkTest& test, int jobs,
                          const std::function<bool()>& stop);

} // namespace kdet::reduce
