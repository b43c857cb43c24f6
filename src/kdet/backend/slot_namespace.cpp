//===- backend/slot_namespace.cpp - private mount namespace per exec slot -----===//
#include "kdet/backend/slot_namespace.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

// Only async-signal-safe calls below this line up to enter_namespace(): it also
// runs in a child forked from a threaded driver.

bool write_text(const char* path, const char* text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t n = std::strlen(text);
  bool ok = ::write(fd, text, n) == static_cast<ssize_t>(n);
  ::close(fd);
  return ok;
}

// "ID ID 1\n" into `buf` (at least 32 bytes).
void id_map_line(unsigned id, char* buf) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id != 0);
  char* p = buf;
  for (int rep = 0; rep < 2; ++rep) {
    for (int i = n - 1; i >= 0; --i)
      *p++ = digits[i];
    *p++ = ' ';
  }
  *p++ = '1';
  *p++ = '\n';
  *p = '\0';
}

// errno-style result: 0 when this process now has a private mount namespace. `for_slots`:
// KDET_SLOT_NAMESPACE=off turns it off (that switch is for the slot paths alone).
int enter_namespace(bool for_slots) {
  if (const char* off = std::getenv("KDET_SLOT_NAMESPACE");
      for_slots && off && std::strcmp(off, "off") == 0)
    return EPERM;
  if (::geteuid() == 0) {
    if (::unshare(CLONE_NEWNS) != 0) return errno;
  } else {
    unsigned uid = ::geteuid(), gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return errno;
    char line[32];
    id_map_line(uid, line);
    if (!write_text("/proc/self/uid_map", line)) return errno ? errno : EPERM;
    write_text("/proc/self/setgroups", "deny"); // absent on old kernels: gid_map then needs no deny
    id_map_line(gid, line);
    if (!write_text("/proc/self/gid_map", line)) return errno ? errno : EPERM;
  }
  // systemd makes / shared: without this the bind below would appear on the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  return 0;
}

// This process entered a private mount namespace already (enter_private_mounts).
bool g_private = false;

// "" when enter_namespace(for_slots) works in a short-lived child, else why not.
std::string probe_namespace(bool for_slots) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::strerror(errno);
  pid_t pid = ::fork();
  if (pid == 0) {
    int e = enter_namespace(for_slots);
    (void)!::write(fds[1], &e, sizeof e);
    ::_exit(0);
  }
  ::close(fds[1]);
  int e = EAGAIN;
  if (pid < 0)
    e = errno;
  else if (::read(fds[0], &e, sizeof e) != static_cast<ssize_t>(sizeof e))
    e = ECHILD;
  ::close(fds[0]);
  if (pid > 0) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  return e != 0 ? std::string("no mount namespace: ") + std::strerror(e) : std::string();
}

} // namespace

std::string shared_workdir_for(const std::string& slot_dir) {
  auto slash = slot_dir.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : slot_dir.substr(0, slash)) + "/work";
}

std::string enter_slot_namespace(const std::string& slot_dir, const std::string& shared_dir) {
  if (::mkdir(shared_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot create " + shared_dir + ": " + std::strerror(errno);
  // A user namespace cannot be left again: one whose id maps failed would leave the
  // compiler without a uid. So a non-root worker first tries the whole sequence in a child.
  if (const char* off = std::getenv("KDET_SLOT_NAMESPACE"); off && std::strcmp(off, "off") == 0)
    return "KDET_SLOT_NAMESPACE=off";
  if (!g_private) {
    if (::geteuid() != 0)
      if (std::string why = slot_namespace_unavailable(); !why.empty()) return why;
    if (int e = enter_namespace(true); e != 0)
      return std::string("mount namespace: ") + std::strerror(e);
  }
  if (::mount(slot_dir.c_str(), shared_dir.c_str(), nullptr, MS_BIND, nullptr) != 0)
    return "bind " + slot_dir + ": " + std::strerror(errno);
  return {};
}

std::string slot_namespace_unavailable() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] {
    if (const char* off = std::getenv("KDET_SLOT_NAMESPACE"); off && std::strcmp(off, "off") == 0)
      reason = "KDET_SLOT_NAMESPACE=off";
    else
      reason = probe_namespace(true);
  });
  return reason;
}

std::string private_mounts_unavailable() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] { reason = probe_namespace(false); });
  return reason;
}

std::string enter_private_mounts() {
  if (g_private) return {};
  if (::geteuid() != 0)
    if (std::string why = private_mounts_unavailable(); !why.empty()) return why;
  if (int e = enter_namespace(false); e != 0)
    return std::string("mount namespace: ") + std::strerror(e);
  g_private = true;
  return {};
}

std::string bind_files(const std::vector<std::pair<std::string, std::string>>& binds) {
  if (binds.empty()) return {};
  if (!g_private)
    return "no private mount namespace in this worker: the files' times cannot be set";
  for (size_t i = 0; i < binds.size(); ++i) {
    const auto& [copy, path] = binds[i];
    struct stat st {};
    // Only a regular file is bound over, never a folder or a device the input happens to name.
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        ::mount(copy.c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      std::string why = "cannot bind kdet's copy over " + path + ": " + std::strerror(errno);
      unbind_files({binds.begin(), binds.begin() + static_cast<long>(i)});
      return why;
    }
  }
  return {};
}

void unbind_files(const std::vector<std::pair<std::string, std::string>>& binds) {
  // The last bound first: a path the input names twice was bound twice.
  for (auto it = binds.rbegin(); it != binds.rend(); ++it)
    ::umount2(it->second.c_str(), MNT_DETACH);
}

} // namespace kdet::backend
