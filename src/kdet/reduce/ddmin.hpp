//===- reduce/ddmin.hpp - delta debugging over chunks -------------------------===//
//
// llvm-reduce's chunk halving: try removing windows of the kept chunks, from
// half of them down to one at a time, keeping every removal the test accepts.
// Up to `jobs` windows are handed to the test together (which runs them at once);
// of those accepted, the lowest one wins, so the result does not depend on which
// test ends first. ddmin itself only decides: it has no threads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace kdet::reduce {

// For each candidate (the chunk indices it keeps, ascending), in order, whether it is still
// interesting (nonzero).
using ChunkTests =
    std::function<std::vector<char>(const std::vector<std::vector<size_t>>& candidates)>;

// The chunks to keep, 1-minimal for single-chunk removals unless `stop` said to end early.
std::vector<size_t> ddmin(size_t count, const ChunkTests& test, int jobs,
                          const std::function<bool()>& stop);

} // namespace kdet::reduce
