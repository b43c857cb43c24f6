//===- util/compress.cpp - zstd frames for stored bytes ------------------------===//
#include "kdet/util/compress.hpp"

#include <zstd.h>

namespace kdet {

std::string zstd_compress(std::string_view data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  // Compressing into a buffer of ZSTD_compressBound never fails but for memory.
  if (ZSTD_isError(n)) throw std::bad_alloc();
  out.resize(n);
  return out;
}

std::optional<std::string> zstd_decompress(std::string_view frame, size_t max_size) {
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
    return std::nullopt; // not exactly one frame
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > max_size)
    return std::nullopt;
  std::string out(static_cast<size_t>(size), '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != out.size()) return std::nullopt;
  return out;
}

} // namespace kdet
