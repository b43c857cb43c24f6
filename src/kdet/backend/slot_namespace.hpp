//===- backend/slot_namespace.hpp - one set of paths for every --jobs slot ---===//
//
// With --jobs N each slot compiles in its own folder, so an exec compiler that
// writes its {output} or {workdir} path into what it produces would differ by
// slot: kdet itself would add variation. An exec worker therefore enters a
// private mount namespace (propagation private, so nothing leaks to the host)
// and binds its slot's folder at one fixed path, which is the path the
// compiler is given. Root uses a plain mount namespace; other users a user
// namespace that maps their own ids. Where neither is allowed, slots keep
// their own folders and the run says so.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace kdet::backend {

// The folder every slot's compiler sees as its work folder: "<session>/work"
// for slot folders "<session>/sN".
std::string shared_workdir_for(const std::string& slot_dir);

// In this (single-threaded) process: a private mount namespace with `slot_dir`
// bound at `shared_dir` (created if missing). Returns "" on success, else why not
// (this process is then unchanged apart from a possible user namespace).
std::string enter_slot_namespace(const std::string& slot_dir, const std::string& shared_dir);

// Whether enter_slot_namespace can work for this user here: "" if it can, else
// why not. Tried in a short-lived child so this process stays as it is.
std::string slot_namespace_unavailable();

} // namespace kdet::backend
