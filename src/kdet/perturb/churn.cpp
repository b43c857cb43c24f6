#include "kdet/perturb/churn.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

namespace kdet::perturb {

namespace {

constexpr int k_blocks_per_churn = 256;
constexpr int k_generations_kept = 8;

// splitmix64: small, seedable, no allocation.
uint64_t next(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t random_size(uint64_t& s) {
  // log-uniform between 2^4 and 2^16 bytes
  double e = 4.0 + 12.0 * static_cast<double>(next(s) >> 11) / static_cast<double>(1ULL << 53);
  return static_cast<size_t>(std::exp2(e));
}

void* g_kept[k_generations_kept][k_blocks_per_churn / 2];
int g_generation = 0;

// Every pool thread's blocks, reachable for as long as the process lives (a leak checker then
// sees a live pool's memory, not a leak). Slots are handed out in thread start order.
constexpr int k_max_pool_threads = 256;
void* g_pool_blocks[k_max_pool_threads][64];
std::atomic<int> g_pool_next{0};

void* thread_body(void* arg) {
  uint64_t s = reinterpret_cast<uintptr_t>(arg);
  void** blocks = g_pool_blocks[g_pool_next.fetch_add(1) % k_max_pool_threads];
  for (int i = 0; i < 64; ++i) {
    size_t n = random_size(s);
    blocks[i] = std::malloc(n);
    if (blocks[i]) std::memset(blocks[i], 0xA5, n);
  }
  // Stay alive like a pool thread; the blocks stay allocated.
  for (;;)
    ::pause();
  return nullptr;
}

} // namespace

void heap_churn(uint64_t seed) {
  uint64_t s = seed;
  int slot = g_generation % k_generations_kept;
  for (auto& p : g_kept[slot]) {
    std::free(p);
    p = nullptr;
  }
  int kept = 0;
  for (int i = 0; i < k_blocks_per_churn; ++i) {
    size_t n = random_size(s);
    void* p = std::malloc(n);
    if (p) static_cast<volatile char*>(p)[0] = 1; // touch, so the block is real
    if (i % 2 == 0)
      std::free(p);
    else
      g_kept[slot][kept++] = p;
  }
  ++g_generation;
}

void start_allocating_threads(int count, uint64_t seed) {
  for (int i = 0; i < count; ++i) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    uint64_t s = seed + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + 1);
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the seed rides in the pointer, never dereferenced
    pthread_create(&t, &attr, thread_body, reinterpret_cast<void*>(static_cast<uintptr_t>(s)));
    pthread_attr_destroy(&attr);
  }
}

} // namespace kdet::perturb
