//===- util/compress.hpp - zstd frames for stored bytes ------------------------===//
//
// The scan database stores artifact bytes as zstd frames (libzstd, as ccache does): PTX, the
// bulk of a census's bytes, shrinks several times. Reading a frame is bounded, so a damaged or
// hostile database cannot make kdet allocate what its header claims.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kdet {

// One zstd frame of `data` (its content size in the header) at `level`.
std::string zstd_compress(std::string_view data, int level = 3);

// The bytes of the zstd frame `frame`; nullopt when it is not one whole frame, does not state
// its content size, states more than `max_size`, or does not decode to exactly that size.
std::optional<std::string> zstd_decompress(std::string_view frame, size_t max_size);

} // namespace kdet
