//===- engine/compiler_watch.hpp - every worker loads the compiler the runs began with ===//
//
// An upgrade or rebuild of the compiler while the runs go on: each fresh worker loads the file at
// the compiler's path (an exec worker looks its program up in PATH), so a worker started after
// it has another compiler, and outputs that differ prove nothing. So each new worker's compiler
// file is checked against the first one's (or the one the caller planned): the same file (its
// stamp) passes with one stat; another file with the same bytes (a touch, a chmod, a link
// re-pointed to an identical copy) passes once hashed. Otherwise the runs stop and
// RunOutput::compiler_changed says why. Workers that live on (--process same) loaded the
// compiler once, so replacing the file under them changes nothing.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/util/fs.hpp"

#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace kdet::engine {

class CompilerWatch {
public:
  // The compiler the runs began with: `planned` (RunPlan::known.file) when the caller saw it
  // first, else the file `loaded` names now. `before`: the library's stamp taken before the probe
  // loaded it (a file replaced during the load). Hashes the file in the background when
  // `loaded` has no content hash. False when the compiler already changed.
  bool begin(const std::optional<CompilerFile>& planned, const backend::Identity& loaded,
             bool check_loaded, const std::optional<FileStamp>& before, const std::string& lib);
  // True when a new worker loaded the first compiler (thread-safe); false once it did not.
  bool same_as_first(const backend::Identity& id);
  // After the runs: the identity's content hash, RunOutput::compiler_file and compiler_changed.
  void finish(RunOutput& out);

private:
  std::mutex m_mu; // guards everything below once the runs started
  std::optional<CompilerFile> m_first;
  std::string m_changed;
  std::future<std::string> m_content_hash; // read once, under m_mu after the load
  std::string m_first_hash;                // what it gave
  // Compiler files (path, stamp) other than the first that a worker loaded: the same bytes?
  std::map<std::pair<std::string, FileStamp>, bool> m_same_bytes;
};

} // namespace kdet::engine
