// backend/host_view: each field of a HostView, applied to this process (a forked copy of it, so
// that the test process keeps its folder, umask, environment, CPUs and namespaces) and to a child
// it starts, is what each then sees. Everything lives in a temp folder; the names and binds act
// only inside namespaces of the forked copy's own (root), and are skipped with a reason where
// this machine does not allow those.
#include "kdet/backend/host_view.hpp"
#include "kdet/backend/slot_namespace.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::backend;

namespace {

// Runs `body` in a forked copy of this process: "" when it returned "", else what it said.
std::string in_fork(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const std::string r = body();
    (void)write_all(fds[1], r);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return "the forked copy died: " + out;
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

// One field: how to set it, what this process then sees, and what a child prints.
struct Row {
  std::string field;
  std::function<std::string()> unavailable; // "" or why the row is skipped here
  std::function<std::string()> enter;       // namespaces the forked copy takes first ("" or why)
  std::function<void(HostView&)> set;
  std::function<std::string()> seen_here; // nullptr: a running process cannot take it (pid)
  std::string shell;                      // a child's /bin/sh -c script that prints what it sees
  std::string expected;
};

std::string no_reason() {
  return {};
}

std::vector<Row> rows(const std::string& dir) {
  const int cpu = perturb::affinity_cpus().empty() ? 0 : perturb::affinity_cpus().back();
  std::vector<Row> r;
  r.push_back({"env (a set)", no_reason, no_reason,
               [](HostView& v) { v.env = {"KDET_HV_SET=one"}; },
               [] {
                 const char* x = std::getenv("KDET_HV_SET");
                 return std::string(x ? x : "unset");
               },
               "printf %s \"${KDET_HV_SET-unset}\"", "one"});
  r.push_back({"env (an unset)", no_reason, no_reason,
               [](HostView& v) { v.env = {"KDET_HV_GONE"}; },
               [] {
                 const char* x = std::getenv("KDET_HV_GONE");
                 return std::string(x ? x : "unset");
               },
               "printf %s \"${KDET_HV_GONE-unset}\"", "unset"});
  r.push_back({"cwd", no_reason, no_reason, [dir](HostView& v) { v.cwd = dir; },
               [] {
                 char buf[4096];
                 return std::string(::getcwd(buf, sizeof buf) ? buf : "?");
               },
               "pwd -P", dir});
  r.push_back({"umask", no_reason, no_reason, [](HostView& v) { v.umask = 027; },
               [] {
                 mode_t m = ::umask(0);
                 ::umask(m);
                 return fmt::format("{:04o}", m);
               },
               "umask", "0027"});
  r.push_back({"cpus", no_reason, no_reason, [cpu](HostView& v) { v.cpus = {cpu}; },
               [] {
                 std::string s;
                 for (int c : perturb::affinity_cpus())
                   s += (s.empty() ? "" : ",") + std::to_string(c);
                 return s;
               },
               "sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status",
               std::to_string(cpu)});
  r.push_back({"hostname, domainname", private_uts_unavailable, enter_private_uts,
               [](HostView& v) {
                 v.hostname = "kdet-hv-host";
                 v.domainname = "kdet-hv-domain";
               },
               [] {
                 struct utsname u {};
                 ::uname(&u);
                 return std::string(u.nodename) + " " + u.domainname;
               },
               "printf '%s %s' \"$(uname -n)\" \"$(cat /proc/sys/kernel/domainname)\"",
               "kdet-hv-host kdet-hv-domain"});
  r.push_back({"binds", private_mounts_unavailable, enter_private_mounts,
               [dir](HostView& v) {
                 v.binds = {{dir + "/copy", dir + "/named"}};
               },
               [dir] { return read_file(dir + "/named"); }, "cat " + dir + "/named", "copy"});
  r.push_back({"pid_namespace", [] { return perturb::pid_namespace_available().why(); }, no_reason,
               [](HostView& v) { v.pid_namespace = true; }, nullptr, "echo $$", "2"});
  return r;
}

} // namespace

TEST(HostView, EachFieldReachesThisProcessAndAChild) {
  char tmpl[] = "/tmp/kdet-host-view-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  char real[4096];
  ASSERT_NE(::realpath(tmpl, real), nullptr);
  const std::string dir = real;
  write_file_atomic(dir + "/named", "named");
  write_file_atomic(dir + "/copy", "copy");
  ::setenv("KDET_HV_GONE", "here", 1);
  std::vector<std::string> skipped;
  for (const Row& row : rows(dir)) {
    if (std::string why = row.unavailable(); !why.empty()) {
      skipped.push_back(row.field + " (" + why + ")");
      continue;
    }
    HostView v;
    row.set(v);
    if (row.seen_here) {
      // This process: the whole view, as a library worker takes it.
      std::string got = in_fork([&] {
        if (std::string why = row.enter(); !why.empty()) return "namespace: " + why;
        if (std::string why = apply_host_view(v, HostScope::whole); !why.empty())
          return "apply: " + why;
        std::string seen = row.seen_here();
        end_host_view(v);
        return seen == row.expected ? std::string() : "saw '" + seen + "'";
      });
      EXPECT_EQ(got, "") << row.field << " in this process";
    }
    // A child: what it shares with this process (shared) and what it is started with (child),
    // as an exec compiler gets them; nothing applied to this process whole.
    std::string got = in_fork([&] {
      if (std::string why = row.enter(); !why.empty()) return "namespace: " + why;
      if (std::string why = apply_host_view(v, HostScope::shared); !why.empty())
        return "apply: " + why;
      SpawnOptions o;
      o.argv = {"/bin/sh", "-c", row.shell};
      if (std::string why = apply_host_view(v, HostScope::child, &o); !why.empty())
        return "apply: " + why;
      CapturedRun run = run_captured(o, std::chrono::seconds(20));
      end_host_view(v);
      std::string seen = trimmed(run.out);
      return seen == row.expected ? std::string()
                                  : "printed '" + seen + "' (" + run.status.describe() + ")";
    });
    EXPECT_EQ(got, "") << row.field << " in a child";
  }
  ::unsetenv("KDET_HV_GONE");
  remove_tree(dir);
  for (const auto& s : skipped)
    std::cout << "host view field skipped here: " << s << "\n";
}
