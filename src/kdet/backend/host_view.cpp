//===- backend/host_view.cpp - the host as a compiler sees it ----------------===//
#include "kdet/backend/host_view.hpp"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

// This process has a UTS namespace of its own: only then may it set the names.
bool g_private_uts = false;

} // namespace

std::string enter_private_uts() {
  if (g_private_uts) return {};
  if (::unshare(CLONE_NEWUTS) != 0) return std::string("UTS namespace: ") + std::strerror(errno);
  g_private_uts = true;
  return {};
}

std::string private_uts_unavailable() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(::unshare(CLONE_NEWUTS) == 0 ? 0 : 1);
    int st = 0;
    if (pid < 0) {
      reason = std::string("fork: ") + std::strerror(errno);
      return;
    }
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
      reason = "no UTS namespace for this user here (root only)";
  });
  return reason;
}

std::string set_host_names(const std::string& host, const std::string& domain) {
  if (!g_private_uts)
    return "no UTS namespace of its own in this worker: the host name is left as it is";
  if (::sethostname(host.data(), host.size()) != 0 ||
      ::setdomainname(domain.data(), domain.size()) != 0)
    return std::string("cannot set the host name: ") + std::strerror(errno);
  return {};
}

std::string set_cpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0)
    return std::string("cannot set the CPU affinity: ") + std::strerror(errno);
  return {};
}

} // namespace kdet::backend
