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
#include <utility>
#include <vector>

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

// The mtime factor: kdet's copies of the files an input names, with the run's modification
// time, are bound over the named paths in the worker's own mount namespace, so the compiler
// stats the copy and the user's file is never touched. enter_private_mounts makes this
// process's namespace private, once (call it while single-threaded: a worker at its start;
// enter_slot_namespace then keeps it). "" on success, else why not.
std::string enter_private_mounts();

// Whether enter_private_mounts can work here ("" if so); tried in a short-lived child.
// Unlike slot_namespace_unavailable it does not read KDET_SLOT_NAMESPACE.
std::string private_mounts_unavailable();

// Binds each (copy, path): `path` must be a regular file. "" on success, else why not (what
// was bound is undone). Needs enter_private_mounts first.
std::string bind_files(const std::vector<std::pair<std::string, std::string>>& binds);

// Undoes bind_files (lazily: a file the compiler still holds stays open on the copy).
void unbind_files(const std::vector<std::pair<std::string, std::string>>& binds);

} // namespace kdet::backend
