//===- util/faketime_shm.hpp - libfaketime's shared clock, made and removed by kdet -===//
//
// libfaketime shares one clock among a process tree through a named semaphore
// and shared-memory object in /dev/shm, announced to children in
// FAKETIME_SHARED. When that variable is unset, the first process makes them
// itself, named after its pid (/faketime_sem_PID, /faketime_shm_PID), and
// removes them only from a destructor. Two faults follow for kdet:
//  - A process that ends by _exit() or exec() never removes them: every worker
//    and most compilers' children left two files in /dev/shm per launch.
//  - The pid's digits set the length of an environment string the library adds,
//    so with time fixed the pid reached the compiler's heap and load addresses:
//    "vary pid only" varied a compiler that follows only its load address.
// So kdet makes the two objects itself for each launch that preloads libfaketime,
// with names of one length, holds a lock on them while the launch lives, and
// removes them when it ends. A killed kdet cannot remove them; the next kdet to
// start does (sweep_stale_faketime_objects), and only those whose lock is free.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kdet {

class FaketimeShared {
public:
  // Makes the semaphore and the shared memory. When /dev/shm cannot hold them,
  // env() is empty and libfaketime falls back to making its own.
  FaketimeShared();
  // Removes both. Call only once every process of the launch has ended.
  ~FaketimeShared();
  FaketimeShared(const FaketimeShared&) = delete;
  FaketimeShared& operator=(const FaketimeShared&) = delete;

  // "FAKETIME_SHARED=/NAME /NAME", or empty when they could not be made.
  const std::string& env() const { return m_env; }
  // The object's name without the leading slash (for tests).
  const std::string& name() const { return m_name; }

private:
  std::string m_name, m_env;
  int m_lock_fd = -1;
};

// True when `env` (NAME=VALUE entries) preloads libfaketime, i.e. sets FAKETIME.
bool env_sets_faketime(const std::vector<std::string>& env);

// Removes the objects that kdet processes now gone left in `shm_dir` (default
// /dev/shm): names of kdet's form, owned by this user, regular files, and not
// locked by a live owner. Returns how many objects it removed. Never throws.
size_t sweep_stale_faketime_objects(const std::string& shm_dir = "/dev/shm") noexcept;

} // namespace kdet
