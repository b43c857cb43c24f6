//===- bench/cache_hit.cpp - cache hit latency against a plain file read -------===//
//
// For artifacts of several sizes: the time of Store::lookup on a hit (list the
// key's variants, read meta.json, read the artifact, check its hash, touch the
// log for gc) against read_file() of the same artifact file. Prints one table
// row per size: median and p90 latency, hits/s, GB/s, and the ratio.
// Usage: cache_hit [iterations=2000] [dir]  (dir defaults to a fresh temp folder)
//
//===----------------------------------------------------------------------===//
#include "kdet/cache/key.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <random>
#include <vector>

using namespace kdet;
using clk = std::chrono::steady_clock;

namespace {

template <typename F> std::vector<double> time_it(int iterations, F&& f) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    auto t0 = clk::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t;
}

double pct(const std::vector<double>& t, double p) {
  return t[static_cast<size_t>(p * (t.size() - 1))];
}

} // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::string dir = argc > 2 ? argv[2] : make_temp_dir("kdet-cache-bench");
  cache::Store store(dir);
  std::mt19937_64 rng(42);
  fmt::print("{:>9} | {:>22} | {:>22} | {:>12} | {:>8}\n", "artifact", "hit median/p90 (us)",
             "read median/p90 (us)", "hit GB/s", "ratio");
  for (size_t size :
       {size_t{1} << 10, size_t{16} << 10, size_t{256} << 10, size_t{4} << 20, size_t{32} << 20}) {
    std::string data(size, '\0');
    for (auto& c : data)
      c = static_cast<char>("0123456789abcdef\n"[rng() % 17]);
    cache::KeyMaterial m;
    m.backend = "capi";
    m.compiler.content_hash = "bench";
    m.input_hash = hash_bytes(std::to_string(size));
    std::string key = cache::compute_key(m);
    auto put = store.put(key, cache::to_json(m), "", {{"ptx", data}}, cache::Origin{});
    std::string file = store.entry_dir(key) + "/variants/" + put.variant + "/a0";
    int n = size >= (4u << 20) ? std::max(20, iterations / 50) : iterations;
    size_t sink = 0;
    auto hit = time_it(n, [&] {
      auto l = store.lookup(key);
      if (!l.hit) std::abort();
      sink += l.first.artifacts[0].data.size();
    });
    auto plain = time_it(n, [&] { sink += read_file(file).size(); });
    double med = pct(hit, 0.5), rmed = pct(plain, 0.5);
    fmt::print("{:>9} | {:>10.1f} / {:>9.1f} | {:>10.1f} / {:>9.1f} | {:>12.2f} | {:>7.2f}x\n",
               size >= (1u << 20) ? fmt::format("{} MiB", size >> 20)
                                  : fmt::format("{} KiB", size >> 10),
               med, pct(hit, 0.9), rmed, pct(plain, 0.9), static_cast<double>(size) / med / 1e3,
               med / rmed);
    if (sink == 0) return 1;
  }
  if (argc <= 2) remove_tree(dir);
  return 0;
}
