//===- cli/cache_stats.cpp - `kdet cache stats`: as ccache -s ------------------===//
#include "kdet/cli/cache_stats.hpp"

#include "kdet/cache/key.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/util/strings.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace kdet::cli {

namespace {

std::string percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? ""
                    : fmt::format(" ({:.2f} %)",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

} // namespace

int cache_stats_command(const std::string& dir, const OutputArgs& args, bool zero) {
  cache::Store store(cache::resolve_cache_dir(dir));
  auto j = cache::cache_stats(store);
  if (zero) {
    cache::zero_counters(store);
    for (const auto& w : store.take_warnings())
      fmt::print(stderr, "kdet: warning: {}\n", w);
    fmt::print("Statistics zeroed\n");
    return 0;
  }
  Output output(args);
  output.write_json(j);
  if (output.json_to_stdout()) return 0;
  const auto& c = j["counters"];
  uint64_t hits = c["hit"].get<uint64_t>(), misses = c["miss"].get<uint64_t>();
  uint64_t uncacheable = c["uncacheable"].get<uint64_t>();
  uint64_t lookups = hits + misses;
  fmt::print("cache       {}\n", j["cache"].get<std::string>());
  fmt::print("calls       {} cacheable, {} uncacheable (run without the cache)\n", lookups,
             uncacheable);
  fmt::print("hits        {} / {}{}\n", hits, lookups, percent(hits, lookups));
  fmt::print("misses      {} / {}{}\n", misses, lookups, percent(misses, lookups));
  fmt::print("failed      {} (the compiler failed; nothing cached), {} refused\n",
             c["failed"].get<uint64_t>(), c["refused"].get<uint64_t>());
  fmt::print("checked     {} verified deterministic, {} found varying (hits recompiled)\n",
             c["verified_match"].get<uint64_t>(), c["verified_mismatch"].get<uint64_t>());
  uint64_t bytes = j["bytes"].get<uint64_t>();
  if (j["limit"].is_null())
    fmt::print("size        {} (no limit: `kdet cache gc --max-size SIZE` sets one)\n",
               human_bytes(bytes));
  else
    fmt::print("size        {} / {}{}\n", human_bytes(bytes),
               human_bytes(j["limit"].get<uint64_t>()), percent(bytes, j["limit"].get<uint64_t>()));
  fmt::print("keys        {}\n", j["keys"].get<uint64_t>());
  fmt::print("variants    {} ({} key{} with more than one)\n", j["variants"].get<uint64_t>(),
             j["keys_with_variants"].get<uint64_t>(),
             j["keys_with_variants"].get<uint64_t>() == 1 ? "" : "s");
  fmt::print("entries     {}\n", human_bytes(j["entry_bytes"].get<uint64_t>()));
  fmt::print("logged      {} verifications matched, {} mismatched (all time, in the keys' logs)\n",
             j["verifications"]["match"].get<uint64_t>(),
             j["verifications"]["mismatch"].get<uint64_t>());
  fmt::print("damaged     {} set aside in damaged/\n", j["damaged"].get<uint64_t>());
  fmt::print("staging     {} in tmp/ (stale ones are removed by gc)\n",
             j["staging"].get<uint64_t>());
  return 0;
}

} // namespace kdet::cli
