#include "kdet/perturb/presets.hpp"

#include "kdet/perturb/factors.hpp"

#include <fmt/format.h>

namespace kdet::perturb {

std::vector<std::string> fixed_environment(std::string_view factor) {
  if (factor == "locale") return {"LC_ALL=C", "LANG=C"};
  // POSIX form: no tzdata needed, read the same way on every machine (and by libfaketime).
  if (factor == "tz") return {"TZ=UTC0"};
  if (factor == "home") return {"HOME=/nonexistent/kdet-home"}; // never created, never written
  // Read by libkdet_listing.so (perturb/chaos/listing.c), preloaded beside it.
  if (factor == "listing") return {"KDET_LISTING=sorted"};
  if (factor == "threadvars") {
    std::vector<std::string> v;
    for (const auto& name : thread_count_variables())
      v.push_back(name + "=1");
    return v;
  }
  if (factor == "time")
    // Read as seconds (FAKETIME_FMT=%s): libfaketime reads its "@YYYY-MM-DD hh:mm:ss" form in
    // local time, which under another TZ is another instant. NO_FAKE_STAT: files' times as they
    // are, since libfaketime would shift them by an offset that moves with each start.
    return {fmt::format("FAKETIME=@{}", k_fixed_epoch), "FAKETIME_FMT=%s", "FAKETIME_NO_CACHE=1",
            "DONT_FAKE_MONOTONIC=1", "NO_FAKE_STAT=1"};
  return {};
}

} // namespace kdet::perturb
