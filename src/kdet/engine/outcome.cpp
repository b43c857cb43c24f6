//===- engine/outcome.cpp - a compile result as a run's record and outcome id --===//
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/util/hash.hpp"

namespace kdet::engine {

namespace {
constexpr size_t k_max_log_kept = 16 << 10;
} // namespace

std::string outcome_id(const backend::CompileResult& r) {
  Hasher h;
  h.add(backend::to_string(r.status));
  if (r.status == backend::Status::ok) {
    for (const auto& a : r.artifacts)
      add_artifact(h, a);
  } else {
    h.add_u64(static_cast<uint64_t>(r.code)).add_u64(static_cast<uint64_t>(r.signal));
  }
  return h.hex();
}

void record_outcome(RunRecord& rec, backend::CompileResult& result) {
  rec.status = result.status;
  rec.code = result.code;
  rec.signal = result.signal;
  rec.detail = result.detail;
  rec.log_hash = hash_bytes(result.log);
  rec.log = result.log.size() > k_max_log_kept ? result.log.substr(0, k_max_log_kept) : result.log;
  if (result.status == backend::Status::ok) {
    for (const auto& a : result.artifacts)
      rec.artifacts.push_back({a.name, a.hash, a.size});
  }
  try {
    rec.variant = outcome_id(result);
  } catch (const std::exception& e) {
    result = backend::CompileResult{};
    result.status = backend::Status::infra_error;
    result.detail = e.what();
    rec.status = result.status;
    rec.detail = result.detail;
    rec.artifacts.clear();
    rec.variant = outcome_id(result);
  }
  rec.done = true;
}

} // namespace kdet::engine
