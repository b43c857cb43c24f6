//===- cache/compile.hpp - compile through the cache, verify sampled hits ------===//
//
// get-or-compile for kdet's own backends: build the key (compiler identity
// from the memo, no compile), serve a hit after its hash check, compile on a
// miss through engine::execute (runs=1, fresh worker, no heap churn), and
// recompile a sampled fraction of hits to check them. A mismatch is stored as
// another variant (never over the first) and reported with kdet diff's words.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/cache/key.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/engine/runner.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kdet::cache {

// What to do when a key holds more than one variant.
enum class Policy { serve_first, fail };

// Parses "serve-first" / "fail"; throws Error naming `option`.
Policy parse_policy(const std::string& text, const std::string& option);

struct CompileJob {
  backend::BackendConfig backend;
  std::string input_path; // absolute
  std::vector<std::string> options;
  std::chrono::milliseconds timeout{0};
  uint64_t max_output = engine::k_default_max_output; // --max-output
  std::vector<std::string> key_env;                   // declared relevant variables (names)
  double verify_rate = k_default_verify_rate;
  Policy policy = Policy::serve_first;
  std::string command_line; // recorded in meta.json
  std::string deps_hash;    // launcher mode: other files read (KeyMaterial::deps_hash)
  std::vector<std::string> deps;
};

struct CompileOutcome {
  std::string result; // hit | miss | verified | mismatch | refused | failed
  std::string key;
  std::string variant;                      // the one served
  std::vector<backend::Artifact> artifacts; // served (empty for refused/failed)
  size_t variants = 0;                      // under the key afterwards
  std::vector<std::string> warnings;
  std::string error; // refused/failed: why; failed: the compiler's log follows
  std::string
      log; // the compiler's stderr: of this compile (miss), or stored with the variant (hit)
  int exit_code = 0; // 0 served, 1 refused (policy fail), 3 the compiler failed
  double seconds = 0;
};

// One compile of `input_path` outside the cache (a fresh worker); the
// compiler's outcome with its identity (`known` when given: no probe worker is
// started and the compiler is not asked again). A compile that exits well but
// leaves no artifact, or only empty ones, is not ok: nothing empty is cached.
struct Recompiled {
  bool ok = false;
  backend::Identity identity;
  std::vector<backend::Artifact> artifacts;
  std::string detail; // how it failed
  std::string log;
};
Recompiled compile_once(const backend::BackendConfig& config, const std::string& input_path,
                        const std::vector<std::string>& options, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& env,
                        uint64_t max_output = engine::k_default_max_output,
                        const std::optional<backend::Identity>& known = std::nullopt);

// The key material for a job (reads the input, resolves the compiler identity).
KeyMaterial job_key_material(const Store& store, const CompileJob& job, std::string& input);

// The full get-or-compile path described above.
CompileOutcome cached_compile(Store& store, const CompileJob& job);

} // namespace kdet::cache
