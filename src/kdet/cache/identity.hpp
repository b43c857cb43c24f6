//===- cache/identity.hpp - a compiler's identity without compiling ------------===//
//
// To look a key up before compiling, kdet needs the compiler's content hash and
// reported version. The content hash is read from the file; the version comes
// from a probe (a kdet worker that loads the compiler and says hello, no
// compile; an exec program is asked `--version` directly, once). Both are memoized in
// DIR/v1/identity/, keyed by the file's (real path, device, inode, size, mtime, ctime): any
// replacement of the file changes ctime, so a changed compiler never reuses an old identity.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"
#include "kdet/cache/store.hpp"

#include <string>

namespace kdet::cache {

// The file a backend config names: --lib or the default library, or the exec program; resolved.
std::string compiler_file(const backend::BackendConfig& config);

// Identity (backend, real path, content hash, version) of the compiler `config` names.
// Uses the memo when the file is unchanged; otherwise hashes it and probes it
// (throws Error when the compiler cannot be loaded).
backend::Identity compiler_identity(const Store& store, const backend::BackendConfig& config);

} // namespace kdet::cache
