//===- cli/capture_vary.cpp - kdet's factors varied from build to build ------===//
//
// `kdet capture --builds N --vary-builds aslr,umask,...`: cold builds vary only the
// caches (and what the machine varies by itself). With this, each named factor takes
// one level in odd builds and another in even ones, so that a kernel that differs
// across builds can be traced to a factor without leaving the command: compare the
// odd builds with each other, then with the even ones (docs/CAPTURE.md).
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/capture_pipeline.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::cli {

namespace {

// One row per factor: its name, what it is in odd and in even builds, and how it is applied.
struct VaryRow {
  const char* name;
  const char* odd;
  const char* even;
  void (*apply)(bool even, int build, BuildVary& v);
};

const VaryRow k_rows[] = {
    {"aslr", "on", "off (personality ADDR_NO_RANDOMIZE)",
     [](bool even, int, BuildVary& v) {
       if (even) v.disable_aslr = true;
     }},
    {"umask", "022", "077", [](bool even, int, BuildVary& v) { v.umask = even ? 077 : 022; }},
    {"locale", "LC_ALL=C", "LC_ALL=C.UTF-8",
     [](bool even, int, BuildVary& v) { v.env.push_back(even ? "LC_ALL=C.UTF-8" : "LC_ALL=C"); }},
    {"tz", "TZ=UTC", "TZ=Asia/Kolkata",
     [](bool even, int, BuildVary& v) { v.env.push_back(even ? "TZ=Asia/Kolkata" : "TZ=UTC"); }},
    {"threads", "thread variables 1", "thread variables 4",
     [](bool even, int, BuildVary& v) {
       for (const auto& t : perturb::thread_count_variables())
         v.env.push_back(t + (even ? "=4" : "=1"));
     }},
    {"env", "KDET_VARY_PAD of 64 bytes per build number", "(the same)",
     [](bool, int build, BuildVary& v) {
       // A variable whose length grows with the build moves the environment and stack.
       v.env.push_back("KDET_VARY_PAD=" + std::string(static_cast<size_t>(64 * build), 'x'));
     }},
};

} // namespace

std::vector<std::string> check_vary(const std::vector<std::string>& factors) {
  std::vector<std::string> out;
  for (const auto& f : factors) {
    auto row = std::find_if(std::begin(k_rows), std::end(k_rows),
                            [&](const VaryRow& r) { return f == r.name; });
    if (row == std::end(k_rows)) {
      std::string names;
      for (const auto& r : k_rows)
        names += (names.empty() ? "" : ", ") + std::string(r.name);
      throw Error::format("--vary-builds: '{}' is not a factor kdet varies between builds; use "
                          "any of {}",
                          f, names);
    }
    if (std::find(out.begin(), out.end(), f) == out.end())
      out.push_back(
          fmt::format("{} ({} in odd builds, {} in even)", row->name, row->odd, row->even));
  }
  return out;
}

BuildVary vary_for(const std::vector<std::string>& factors, int build) {
  BuildVary v;
  for (const auto& f : factors)
    for (const auto& r : k_rows)
      if (f == r.name) r.apply(build % 2 == 0, build, v);
  return v;
}

} // namespace kdet::cli
