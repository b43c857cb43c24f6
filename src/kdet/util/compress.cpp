//===- util/compress.cpp - zstd frames for stored bytes ------------------------===//
#include "kdet/util/compress.hpp"

#include <memory>
#include <new>
#include <zstd.h>

namespace kdet {

namespace {
struct FreeCCtx {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct FreeDCtx {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
} // namespace

std::string zstd_compress(std::string_view data, int level, std::string_view prefix) {
  // One context a thread, reused: making one allocates and clears its match tables, which cost
  // more than compressing a small artifact. Reset, it keeps no prefix nor parameter.
  thread_local std::unique_ptr<ZSTD_CCtx, FreeCCtx> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  size_t rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  // The frame states its size: reads bound their allocation by it.
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  if (!ZSTD_isError(rc) && !prefix.empty())
    rc = ZSTD_CCtx_refPrefix(cctx.get(), prefix.data(), prefix.size());
  size_t n = ZSTD_isError(rc)
                 ? rc
                 : ZSTD_compress2(cctx.get(), out.data(), out.size(), data.data(), data.size());
  // Compressing into a buffer of ZSTD_compressBound never fails but for memory.
  if (ZSTD_isError(n)) throw std::bad_alloc();
  out.resize(n);
  return out;
}

std::optional<std::string> zstd_decompress(std::string_view frame, size_t max_size,
                                           std::string_view prefix) {
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
    return std::nullopt; // not exactly one frame
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > max_size)
    return std::nullopt;
  thread_local std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx(ZSTD_createDCtx());
  if (!dctx) throw std::bad_alloc();
  ZSTD_DCtx_reset(dctx.get(), ZSTD_reset_session_and_parameters);
  std::string out(static_cast<size_t>(size), '\0');
  size_t n = 0;
  if (!prefix.empty()) n = ZSTD_DCtx_refPrefix(dctx.get(), prefix.data(), prefix.size());
  if (!ZSTD_isError(n))
    n = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != out.size()) return std::nullopt;
  return out;
}

} // namespace kdet
