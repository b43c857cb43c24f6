#include "kdet/util/sysinfo.hpp"

#include "kdet/util/cores.hpp"
#include "kdet/util/strings.hpp"

#include <fstream>
#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace kdet {

namespace {
std::string os_release() {
  std::ifstream f("/etc/os-release");
  std::string line;
  while (std::getline(f, line)) {
    if (starts_with(line, "PRETTY_NAME=")) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "unknown";
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (starts_with(line, "model name")) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown";
}

std::string read_first_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return trim(line);
}
} // namespace

namespace {
std::string g_command_line;
} // namespace

void set_command_line(std::string line) {
  g_command_line = std::move(line);
}
const std::string& command_line() {
  return g_command_line;
}

nlohmann::json system_info() {
  utsname u{};
  ::uname(&u);
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return {
      {"os", os_release()},
      {"kernel", std::string(u.sysname) + " " + u.release},
      {"arch", u.machine},
      {"hostname", u.nodename},
      {"glibc", gnu_get_libc_version()},
      {"cpu", cpu_model()},
      {"cores", std::thread::hardware_concurrency()},
      {"usable_cores", usable_cores()},
      {"memory_bytes", static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)},
      {"randomize_va_space", read_first_line("/proc/sys/kernel/randomize_va_space")},
  };
}

} // namespace kdet
