//===- util/faketime_shm.cpp - libfaketime's shared clock, made and removed by kdet -===//
#include "kdet/util/faketime_shm.hpp"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <random>
#include <semaphore.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet {

namespace {

constexpr const char* k_prefix = "kdet-ft-";
// kdet-ft-PID(10 digits)-SERIAL(8 hex)-RANDOM(8 hex): one length for every launch,
// so the variable libfaketime's children read never depends on the pid.
constexpr size_t k_name_size = 8 + 10 + 1 + 8 + 1 + 8;

// libfaketime's struct ft_shared_s (0.9.7 to 0.9.10 and later, 64-bit): two
// counters, then the start times (real, monotonic, raw monotonic, boot) as
// {seconds, nanoseconds}. A nanosecond field of -1 in the real start time means
// "not set yet": the first process of the launch sets it, its children read it,
// as when libfaketime makes the object itself.
struct SharedClock {
  uint64_t ticks = 0;
  uint64_t file_idx = 0;
  int64_t start[4][2] = {{0, -1}, {0, -1}, {0, -1}, {0, 0}};
};

std::string new_name() {
  static std::atomic<uint32_t> serial{0};
  static const uint32_t salt = std::random_device{}();
  return fmt::format("{}{:010d}-{:08x}-{:08x}", k_prefix, static_cast<long>(::getpid()),
                     serial.fetch_add(1), salt);
}

// Splits kdet-ft-PID-SERIAL-RANDOM; 0 when `name` is not of that form.
long owner_pid(const std::string& name) {
  if (name.size() != k_name_size || name.rfind(k_prefix, 0) != 0) return 0;
  const std::string pid = name.substr(8, 10);
  if (pid.find_first_not_of("0123456789") != std::string::npos) return 0;
  if (name[18] != '-' || name[27] != '-') return 0;
  for (size_t i : {19, 20, 21, 22, 23, 24, 25, 26, 28, 29, 30, 31, 32, 33, 34, 35})
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return 0;
  return std::stol(pid);
}

// The semaphore /NAME as sem_open(O_CREAT) makes it (a process-shared sem_t of value 1 in
// /dev/shm/sem.NAME, glibc's place for it), without sem_open's temporary file, link and mapping:
// unmapping a mapping in a process with threads flushes the TLB of every core that runs one of
// them, and nothing opens this one before the launch it is for starts. Falls back to sem_open
// where that file cannot be made.
bool make_semaphore(const std::string& name) {
  sem_t init;
  if (::sem_init(&init, 1, 1) == 0) {
    const std::string path = "/dev/shm/sem." + name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      const bool written = ::pwrite(fd, &init, sizeof init, 0) == static_cast<ssize_t>(sizeof init);
      ::close(fd);
      if (written) return true;
      ::unlink(path.c_str());
      return false;
    }
    if (errno == EEXIST) return false;
  }
  sem_t* sem = ::sem_open(("/" + name).c_str(), O_CREAT | O_EXCL, 0600, 1);
  if (sem == SEM_FAILED) return false;
  ::sem_close(sem);
  return true;
}

bool process_exists(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

} // namespace

FaketimeShared::FaketimeShared() {
  std::string name = new_name();
  std::string slashed = "/" + name;
  int fd = ::shm_open(slashed.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return;
  const SharedClock init;
  // One page: the library maps its struct, whatever size a later version gives it.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::ftruncate(fd, 4096) != 0 ||
      ::pwrite(fd, &init, sizeof init, 0) != static_cast<ssize_t>(sizeof init)) {
    ::shm_unlink(slashed.c_str());
    ::close(fd);
    return;
  }
  if (!make_semaphore(name)) {
    ::shm_unlink(slashed.c_str());
    ::close(fd);
    return;
  }
  m_name = std::move(name);
  m_lock_fd = fd;
  m_env = fmt::format("FAKETIME_SHARED={} {}", slashed, slashed);
}

FaketimeShared::~FaketimeShared() {
  if (m_lock_fd < 0) return;
  std::string slashed = "/" + m_name;
  ::sem_unlink(slashed.c_str());
  ::shm_unlink(slashed.c_str());
  ::close(m_lock_fd);
}

bool env_sets_faketime(const std::vector<std::string>& env) {
  for (const auto& e : env)
    if (e.rfind("FAKETIME=", 0) == 0) return true;
  return false;
}

size_t sweep_stale_faketime_objects(const std::string& shm_dir) noexcept {
  size_t removed = 0;
  try {
    int dir = ::open(shm_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return 0;
    DIR* d = ::fdopendir(dir);
    if (!d) {
      ::close(dir);
      return 0;
    }
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d))
      names.emplace_back(e->d_name);
    const uid_t me = ::geteuid();
    auto mine = [&](const std::string& entry) {
      struct stat st {};
      return ::fstatat(::dirfd(d), entry.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISREG(st.st_mode) && st.st_uid == me;
    };
    for (const auto& entry : names) {
      // The shared memory is NAME; its semaphore is sem.NAME.
      const bool is_sem = entry.rfind("sem.", 0) == 0;
      const std::string name = is_sem ? entry.substr(4) : entry;
      long pid = owner_pid(name);
      if (pid == 0 || process_exists(pid) || !mine(entry)) continue;
      if (is_sem) {
        // A semaphore whose shared memory is gone: its maker died between the two.
        if (::faccessat(::dirfd(d), name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
            ::unlinkat(::dirfd(d), entry.c_str(), 0) == 0)
          ++removed;
        continue;
      }
      int fd = ::openat(::dirfd(d), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat st {};
      // Its owner (seen from another PID namespace, maybe) still holds the lock.
      if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != me ||
          ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        continue;
      }
      ::unlinkat(::dirfd(d), ("sem." + name).c_str(), 0);
      if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0) ++removed;
      ::close(fd);
    }
    ::closedir(d);
  } catch (...) {
  }
  return removed;
}

} // namespace kdet
