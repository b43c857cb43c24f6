//===- backend/host_view.cpp - the host as a compiler sees it ----------------===//
#include "kdet/backend/host_view.hpp"

#include "kdet/backend/slot_namespace.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

// This process has a UTS namespace of its own: only then may it set the names.
bool g_private_uts = false;

// A copy of "NAME=value" for putenv, outside the heap, or nullptr when the arena is full.
// setenv's own copy is a heap block as long as the value: a varied PATH or TMPDIR would then
// move a library compiler's heap blocks, and seem to act on a compiler whose output follows
// heap addresses. The arena is one mapping, made at the first run (the same in every process).
char* env_copy(const std::string& e) {
  static char* base = nullptr;
  static size_t used = 0;
  constexpr size_t cap = size_t{64} << 20;
  if (!base) {
    void* p = ::mmap(nullptr, cap, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    base = static_cast<char*>(p);
  }
  if (cap - used < e.size() + 1) return nullptr;
  char* s = base + used;
  std::memcpy(s, e.data(), e.size());
  s[e.size()] = 0;
  used += e.size() + 1;
  return s;
}

// The environment changes, folder and umask, on this process.
std::string apply_to_self(const HostView& v) {
  for (const auto& e : v.env) {
    auto eq = e.find('=');
    if (eq == std::string::npos)
      ::unsetenv(e.c_str());
    else if (char* copy = env_copy(e))
      ::putenv(copy);
    else
      ::setenv(e.substr(0, eq).c_str(), e.c_str() + eq + 1, 1);
  }
  // A run must never go on in the previous run's folder.
  if (!v.cwd.empty() && ::chdir(v.cwd.c_str()) != 0)
    return "cannot enter the run's working folder " + v.cwd + ": " + std::strerror(errno);
  if (v.umask >= 0) ::umask(static_cast<mode_t>(v.umask));
  return {};
}

// The CPUs, names and binds, on this process (a child started later inherits them all; one
// running shares the names and binds).
std::string apply_shared(const HostView& v) {
  if (!v.cpus.empty())
    if (std::string why = set_cpus(v.cpus); !why.empty()) return why;
  if (!v.hostname.empty())
    if (std::string why = set_host_names(v.hostname, v.domainname); !why.empty()) return why;
  return v.binds.empty() ? std::string() : bind_files(v.binds);
}

} // namespace

std::string apply_host_view(const HostView& v, HostScope scope, SpawnOptions* child) {
  switch (scope) {
  case HostScope::whole:
    if (std::string why = apply_to_self(v); !why.empty()) return why;
    return apply_shared(v);
  case HostScope::shared:
    return apply_shared(v);
  case HostScope::child:
    break;
  }
  if (child == nullptr) return "no child to start";
  if (!v.env.empty())
    child->env = with_env_changes(child->env ? *child->env : current_environment(), v.env);
  if (!v.cwd.empty()) child->cwd = v.cwd;
  if (v.umask >= 0) child->umask = static_cast<unsigned>(v.umask);
  child->new_pid_namespace = v.pid_namespace;
  return {};
}

void end_host_view(const HostView& v) {
  unbind_files(v.binds);
}

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
