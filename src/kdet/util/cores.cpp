#include "kdet/util/cores.hpp"

#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sched.h>
#include <sstream>
#include <thread>
#include <vector>

namespace kdet {

namespace {

// The affinity mask's CPU count; 0 when it cannot be read.
unsigned affinity_cores() {
  // Grown until the kernel's mask fits (machines with more than 1,024 CPUs).
  for (size_t n = 1024; n <= (size_t{1} << 20); n *= 2) {
    std::vector<unsigned char> storage(CPU_ALLOC_SIZE(n));
    auto* set = reinterpret_cast<cpu_set_t*>(storage.data());
    if (::sched_getaffinity(0, storage.size(), set) == 0)
      return static_cast<unsigned>(CPU_COUNT_S(storage.size(), set));
    if (errno != EINVAL) return 0;
  }
  return 0;
}

// The cgroup v2 path in /proc/self/cgroup's text ("0::/a/b"), or nullopt.
std::optional<std::string> v2_cgroup(const std::string& proc_cgroup) {
  for (const auto& line : split(proc_cgroup, '\n'))
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return std::nullopt;
}

// The cgroup v1 path of the cpu controller ("4:cpu,cpuacct:/a/b"), or nullopt.
std::optional<std::string> v1_cpu_cgroup(const std::string& proc_cgroup) {
  for (const auto& line : split(proc_cgroup, '\n')) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    for (const auto& c : split(std::string_view(line).substr(first + 1, second - first - 1), ','))
      if (c == "cpu") return line.substr(second + 1);
  }
  return std::nullopt;
}

// A small file's text; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  return text.str();
}

bool parse_count(std::string_view s, uint64_t& v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() && v > 0;
}

// A quota of `quota` microseconds of CPU time per `period`, in CPUs, rounded up.
std::optional<unsigned> quota_cores(std::string_view quota, std::string_view period) {
  uint64_t q = 0, p = 0;
  if (!parse_count(quota, q) || !parse_count(period, p)) return std::nullopt;
  const uint64_t cores = q / p + (q % p != 0); // rounded up, at least 1 (q > 0)
  return static_cast<unsigned>(std::min<uint64_t>(cores, std::numeric_limits<unsigned>::max()));
}

} // namespace

std::optional<unsigned> cores_from_cpu_max(std::string_view text) {
  const std::string kept = trim(text);
  const std::string_view line = kept;
  const auto space = line.find(' ');
  if (space == std::string_view::npos || line.substr(0, space) == "max") return std::nullopt;
  return quota_cores(line.substr(0, space), line.substr(space + 1));
}

unsigned count_usable_cores(const std::string& cgroup_root, const std::string& proc_cgroup) {
  unsigned n = affinity_cores();
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  // A quota anywhere from the process's cgroup up to the root bounds it: cgroup v2's cpu.max,
  // or v1's cpu.cfs_quota_us over cpu.cfs_period_us (-1: none) under ROOT/cpu.
  auto bound_by = [&](const std::filesystem::path& top, const std::string& cgroup, bool v2) {
    std::filesystem::path rel = std::filesystem::path(cgroup).relative_path();
    // A cgroup above this cgroup namespace's root reads as "/../..": not under `top`.
    for (const auto& part : rel)
      if (part == "..") return;
    for (;;) {
      const auto dir = top / rel;
      std::optional<unsigned> q;
      if (v2) {
        q = cores_from_cpu_max(read_text(dir / "cpu.max"));
      } else {
        const std::string quota = read_text(dir / "cpu.cfs_quota_us"),
                          period = read_text(dir / "cpu.cfs_period_us");
        q = quota_cores(trim(quota), trim(period));
      }
      if (q) n = std::min(n, *q);
      if (rel.empty()) break;
      rel = rel.parent_path();
    }
  };
  if (auto path = v2_cgroup(proc_cgroup)) bound_by(cgroup_root, *path, true);
  if (auto path = v1_cpu_cgroup(proc_cgroup))
    bound_by(std::filesystem::path(cgroup_root) / "cpu", *path, false);
  return std::max(1u, n);
}

unsigned usable_cores() {
  static const unsigned n = [] {
    return count_usable_cores("/sys/fs/cgroup", read_text("/proc/self/cgroup"));
  }();
  return n;
}

} // namespace kdet
