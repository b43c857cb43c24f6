//===- engine/compiler_watch.cpp - every worker loads the compiler the runs began with ===//
#include "kdet/engine/compiler_watch.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/hash_memo.hpp"

#include <fmt/format.h>

namespace kdet::engine {

bool CompilerWatch::begin(const std::optional<CompilerFile>& planned,
                          const backend::Identity& loaded, bool check_loaded,
                          const std::optional<FileStamp>& before, const std::string& lib) {
  // Hash the compiler file (tens of MB) while the runs go on; only the report needs it.
  if (loaded.content_hash.empty())
    m_content_hash = std::async(std::launch::async, backend::cached_file_hash, loaded.path);
  m_first = planned;
  if (m_first) return !check_loaded || same_as_first(loaded);
  std::optional<FileStamp> st = file_stamp(loaded.path);
  if (!st) return true;
  m_first = CompilerFile{*st, loaded.content_hash}; // else: the future's
  if (before && *before != *st) {
    m_changed = fmt::format(
        "the compiler changed while the runs went on: {} was replaced while kdet loaded it; the "
        "runs may mix two compilers, so outputs that differ prove nothing",
        lib);
    return false;
  }
  return true;
}

bool CompilerWatch::same_as_first(const backend::Identity& id) {
  if (id.path.empty()) return true;
  const std::optional<FileStamp> st = file_stamp(id.path);
  std::lock_guard<std::mutex> lock(m_mu);
  if (!m_changed.empty()) return false;
  if (!m_first) return true; // the file could not be stat'ed at the load
  if (st == m_first->stamp) return true;
  std::string why;
  if (!st) {
    why = fmt::format("{} is gone or no longer a regular file", id.path);
  } else if (auto seen = m_same_bytes.find({id.path, *st}); seen != m_same_bytes.end()) {
    if (seen->second) return true;
    why = fmt::format("{} holds other bytes", id.path);
  } else {
    if (m_first->hash.empty() && m_content_hash.valid())
      m_first->hash = m_first_hash = m_content_hash.get();
    std::string hash;
    try {
      // Remembered by stamp: a touched compiler is hashed once, not by every run.
      hash = remembered_file_hash(id.path, hash_memo_dir());
    } catch (const Error&) {
    }
    const bool same = !hash.empty() && hash == m_first->hash;
    m_same_bytes.emplace(std::make_pair(id.path, *st), same);
    if (same) return true;
    why =
        fmt::format("{} {}", id.path, hash.empty() ? "can no longer be read" : "holds other bytes");
  }
  m_changed = fmt::format(
      "the compiler changed while the runs went on: a new worker found that {} than when the runs "
      "began; the runs may mix two compilers, so outputs that differ prove nothing",
      why);
  return false;
}

void CompilerWatch::finish(RunOutput& out) {
  std::lock_guard<std::mutex> lock(m_mu);
  if (m_content_hash.valid()) m_first_hash = m_content_hash.get();
  if (!m_first_hash.empty()) out.identity.content_hash = m_first_hash;
  if (m_first && m_first->hash.empty()) m_first->hash = out.identity.content_hash;
  out.compiler_file = m_first;
  out.compiler_changed = m_changed;
  if (!m_changed.empty()) out.warnings.push_back(m_changed);
}

} // namespace kdet::engine
