//===- engine/artifact_files.hpp - artifacts on their way from worker to driver ===//
//
// Small artifacts travel in the reply frame; large ones stay in files in the
// run's private work folder and the reply names them. The worker hashes every
// artifact while reading it and enforces --max-output, so neither process
// holds a large output in memory (docs/WORKERS.md, "Bounded memory").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/util/hash.hpp"

#include <memory>
#include <string>

namespace kdet::engine {

// Artifacts up to this size travel inline in the reply frame.
constexpr uint64_t k_inline_artifact_max = 1 << 20;

// Worker side, after a compile: reads every artifact once (regular files only,
// at most `max_output` bytes each), fills size and hash, and leaves large ones
// in `dir`/artifact<N>. An output that is not a regular file, is too large or
// unreadable turns the result into that failure, with no artifacts.
void settle_artifacts(backend::CompileResult& result, const std::string& dir, uint64_t max_output);

// Driver side, after a reply: true when every artifact file the worker named
// is a regular file `dir`/artifact<N> (a garbled reply must not make kdet
// touch other files); the files become owned (removed when dropped).
bool adopt_artifact_files(backend::CompileResult& result, const std::string& dir);

// Moves an adopted artifact file into `keep` (a folder on the same file system)
// so it outlives the run's work folder; throws Error when the move fails.
void keep_artifact_file(backend::Artifact& a, const std::shared_ptr<const TempFolder>& keep,
                        uint64_t serial);

// Adds (name, content) to an outcome hash exactly as Hasher::add(name).add(bytes)
// would, streaming the content from the artifact's file when it has one.
void add_artifact(Hasher& h, const backend::Artifact& a);

} // namespace kdet::engine
