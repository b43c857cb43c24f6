//===- util/reap.hpp - no process outlives kdet -------------------------------===//
//
// kdet and its workers are subreapers (PR_SET_CHILD_SUBREAPER): a process
// whose parent dies is handed to them instead of to init, however it detached
// itself (setsid, double fork). kill_orphans() then ends such adopted processes,
// and every child started by spawn() dies with the thread that started it
// (PR_SET_PDEATHSIG), so nothing a compiler started outlives kdet.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <mutex>
#include <sys/types.h>

namespace kdet {

// Makes this process the reaper of its orphaned descendants. False when the
// kernel refuses (then orphans go to init as before).
bool become_subreaper();

// True once become_subreaper() succeeded in this process.
bool is_subreaper();

// In a subreaper (else it does nothing): kills (SIGKILL) and reaps every child
// of this process that spawn() did not start, that is, every orphan it
// adopted, and the orphans those leave in turn, until none is left (bounded:
// about 2 s for processes stuck in the kernel). Returns how many it killed.
int kill_orphans();

// Async-signal-safe, for a dying worker's signal handler: SIGKILLs and reaps
// every child of this process, registered or not, until none is left (bounded).
void kill_all_children_now() noexcept;

namespace detail {
// Held by spawn() across fork() and by kill_orphans(), so a child just forked
// is never mistaken for an orphan.
std::mutex& children_mutex();
// The registry of children spawn() started and no one has reaped yet (call with the mutex held).
void note_child(pid_t pid);
// Call after reaping `pid`; takes the mutex itself.
void forget_child(pid_t pid);
} // namespace detail

} // namespace kdet
