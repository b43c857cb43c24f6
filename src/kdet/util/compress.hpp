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

// One zstd frame of `data` (its content size in the header) at `level`. With a `prefix`, the
// frame refers to those bytes as if they came just before `data` (zstd's raw-content prefix):
// a close relative (the same kernel's PTX for another target) then costs a few bytes, and
// only the same prefix decodes it.
std::string zstd_compress(std::string_view data, int level = 3, std::string_view prefix = {});

// The bytes of the zstd frame `frame`, made with `prefix` (none: empty); nullopt when it is
// not one whole frame, does not state its content size, states more than `max_size`, or does
// not decode to exactly that size (a wrong prefix decodes to garbage or fails: the caller
// checks the bytes against their hash).
std::optional<std::string> zstd_decompress(std::string_view frame, size_t max_size,
                                           std::string_view prefix = {});

} // namespace kdet
