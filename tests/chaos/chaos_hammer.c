/*===- tests/chaos/chaos_hammer.c - every malloc entry point from 8 threads -===//
 *
 * Run with LD_PRELOAD=libkdet_chaos.so (CTest does). Eight threads call every
 * entry point of the malloc family in a seeded random mix and check what a
 * program relies on: alignment, zeroed calloc memory, contents kept across
 * realloc, malloc_usable_size >= the request, EINVAL/ENOMEM where POSIX says.
 * Usage: chaos_hammer [--plain | --expect-disabled]
 *   (default)          the library must be loaded and must have handed out blocks
 *   --plain            no library expected: checks the same rules against glibc
 *   --expect-disabled  library loaded with KDET_CHAOS=0: must hand out no chaos blocks
 * Exit 0 on success, 1 with a message naming the failed check.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "kdet_chaos.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { k_threads = 8, k_slots = 128, k_iterations = 40000 };

static atomic_int g_failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "chaos_hammer: %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);       \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      atomic_fetch_add(&g_failures, 1);                                                            \
    }                                                                                              \
  } while (0)

typedef struct Slot {
  unsigned char* p;
  size_t size;
  unsigned char fill; /* every byte of the block holds fill ^ (i & 0x7f) */
} Slot;

static uint64_t next(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Mostly small sizes like a compiler's, sometimes large ones (mmap'ed by glibc). */
static size_t random_size(uint64_t* s) {
  uint64_t r = next(s);
  switch (r % 16) {
  case 0:
    return 0;
  case 1:
    return (size_t)(r >> 8) % 300000;
  case 2:
  case 3:
    return (size_t)(r >> 8) % 8192;
  default:
    return (size_t)(r >> 8) % 256;
  }
}

static void fill(Slot* s, unsigned char f) {
  s->fill = f;
  for (size_t i = 0; i < s->size; ++i)
    s->p[i] = (unsigned char)(f ^ (i & 0x7f));
}

/* 1 if the first n bytes still hold the pattern. */
static int intact(const Slot* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (s->p[i] != (unsigned char)(s->fill ^ (i & 0x7f))) return 0;
  return 1;
}

static int is_aligned(const void* p, size_t a) {
  return ((uintptr_t)p & (a - 1)) == 0;
}

/* One of the aligned entry points with an alignment in 16..4096. */
static void* aligned_any(uint64_t* st, size_t size, size_t* align_out) {
  uint64_t r = next(st);
  size_t align = (size_t)16 << (r % 9); /* 16 .. 4096 */
  void* p = NULL;
  switch ((r >> 8) % 5) {
  case 0:
    p = memalign(align, size);
    break;
  case 1: {
    int rc = posix_memalign(&p, align, size);
    CHECK(rc == 0, "posix_memalign(%zu, %zu) returned %d", align, size, rc);
    if (rc) p = NULL;
    break;
  }
  case 2:
    p = aligned_alloc(align, size);
    break;
  case 3:
    align = (size_t)sysconf(_SC_PAGESIZE);
    p = valloc(size);
    break;
  default:
    align = (size_t)sysconf(_SC_PAGESIZE);
    p = pvalloc(size);
    CHECK(p == NULL || malloc_usable_size(p) >= (size ? size : 1), "pvalloc usable size");
    break;
  }
  *align_out = align;
  return p;
}

static void* worker(void* arg) {
  uint64_t st = 0x9E3779B97F4A7C15ULL * ((uintptr_t)arg + 1);
  Slot slots[k_slots];
  memset(slots, 0, sizeof slots);
  for (int it = 0; it < k_iterations; ++it) {
    Slot* s = &slots[next(&st) % k_slots];
    uint64_t op = next(&st) % 10;
    if (s->p && op < 3) { /* realloc: grow or shrink, prefix must survive */
      CHECK(intact(s, s->size), "block of %zu bytes corrupted before realloc", s->size);
      size_t n = random_size(&st);
      if (n == 0) n = 1; /* realloc(p, 0) frees; covered separately */
      unsigned char* q = (next(&st) & 1) ? realloc(s->p, n) : reallocarray(s->p, 1, n);
      CHECK(q != NULL, "realloc to %zu failed", n);
      if (!q) continue;
      s->p = q;
      size_t keep = n < s->size ? n : s->size;
      s->size = keep;
      CHECK(intact(s, keep), "realloc lost contents (kept %zu bytes)", keep);
      CHECK(is_aligned(q, 16), "realloc result %p not 16-aligned", (void*)q);
      s->size = n;
      fill(s, (unsigned char)next(&st));
      continue;
    }
    if (s->p) {
      CHECK(intact(s, s->size), "block of %zu bytes corrupted before free", s->size);
      CHECK(malloc_usable_size(s->p) >= s->size, "usable %zu < requested %zu",
            malloc_usable_size(s->p), s->size);
      free(s->p);
      s->p = NULL;
      continue;
    }
    size_t n = random_size(&st);
    size_t align = 16;
    if (op < 5) {
      s->p = malloc(n);
    } else if (op < 7) {
      size_t count = n / 8 + 1;
      s->p = calloc(count, 8);
      n = count * 8;
      int zero = 1;
      for (size_t i = 0; s->p && i < n; ++i)
        zero &= s->p[i] == 0;
      CHECK(zero, "calloc(%zu, 8) not zeroed", count);
    } else {
      s->p = aligned_any(&st, n, &align);
    }
    CHECK(s->p != NULL, "allocation of %zu bytes failed", n);
    if (!s->p) continue;
    CHECK(is_aligned(s->p, align), "%p not aligned to %zu", (void*)s->p, align);
    CHECK(malloc_usable_size(s->p) >= n, "usable %zu < requested %zu", malloc_usable_size(s->p), n);
    s->size = n;
    fill(s, (unsigned char)next(&st));
  }
  for (int i = 0; i < k_slots; ++i) {
    if (!slots[i].p) continue;
    CHECK(intact(&slots[i], slots[i].size), "block corrupted at the end");
    free(slots[i].p);
  }
  return NULL;
}

/* Error paths that a program may rely on; single-threaded. */
static void check_edges(void) {
  void* p = (void*)0x1;
  CHECK(posix_memalign(&p, 3, 64) == EINVAL, "posix_memalign alignment 3 must be EINVAL");
  CHECK(posix_memalign(&p, 24, 64) == EINVAL, "posix_memalign alignment 24 must be EINVAL");
  CHECK(posix_memalign(&p, 0, 64) == EINVAL, "posix_memalign alignment 0 must be EINVAL");
  CHECK(posix_memalign(&p, 4, 64) == EINVAL, "posix_memalign alignment 4 < sizeof(void*)");
  CHECK(p == (void*)0x1, "posix_memalign changed *memptr on failure");
  CHECK(posix_memalign(&p, 8, 0) == 0 && p != NULL, "posix_memalign(8, 0) must succeed");
  free(p);

  volatile size_t huge = SIZE_MAX / 2; /* volatile: keep the compiler from judging the calls */
  errno = 0;
  CHECK(calloc(huge, 4) == NULL && errno == ENOMEM, "calloc overflow must be ENOMEM");
  errno = 0;
  CHECK(malloc(huge * 2 - 7) == NULL && errno == ENOMEM, "malloc(SIZE_MAX-8) must be ENOMEM");
  void* q = malloc(16);
  errno = 0;
  CHECK(reallocarray(q, huge, 4) == NULL && errno == ENOMEM, "reallocarray overflow");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free" /* q is still valid: reallocarray failed */
  q = realloc(q, 0);                              /* glibc: frees, returns NULL */
#pragma GCC diagnostic pop
  CHECK(q == NULL, "realloc(p, 0) returns NULL on glibc");
  CHECK(malloc_usable_size(NULL) == 0, "malloc_usable_size(NULL)");
  free(NULL);

  void* z1 = malloc(0);
  void* z2 = malloc(0);
  CHECK(z1 && z2 && z1 != z2, "malloc(0) must give distinct pointers");
  free(z1);
  free(z2);

  void* a = aligned_alloc(4096, 100);
  CHECK(a && is_aligned(a, 4096), "aligned_alloc(4096)");
  memset(a, 0xab, 100);
  a = realloc(a, 50000);
  CHECK(a && ((unsigned char*)a)[99] == 0xab, "realloc of an aligned block kept contents");
  free(a);

  char* big = calloc(1, 64 << 20); /* mmap'ed by glibc */
  CHECK(big && big[0] == 0 && big[(64 << 20) - 1] == 0, "big calloc zeroed");
  free(big);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int plain = strcmp(mode, "--plain") == 0;
  int expect_disabled = strcmp(mode, "--expect-disabled") == 0;
  unsigned long long (*allocations)(void) =
      (unsigned long long (*)(void))dlsym(RTLD_DEFAULT, "kdet_chaos_allocations");
  void (*get_stats)(KdetChaosStats*) =
      (void (*)(KdetChaosStats*))dlsym(RTLD_DEFAULT, "kdet_chaos_get_stats");
  if (plain) {
    CHECK(allocations == NULL, "--plain but libkdet_chaos.so is loaded");
  } else if (!allocations || !get_stats) {
    fprintf(stderr, "chaos_hammer: libkdet_chaos.so is not preloaded (set LD_PRELOAD)\n");
    return 1;
  }
  unsigned long long before = allocations ? allocations() : 0;

  check_edges();
  pthread_t threads[k_threads];
  for (uintptr_t i = 0; i < k_threads; ++i)
    CHECK(pthread_create(&threads[i], NULL, worker, (void*)i) == 0, "pthread_create");
  for (int i = 0; i < k_threads; ++i)
    pthread_join(threads[i], NULL);

  if (get_stats) {
    KdetChaosStats st;
    get_stats(&st);
    unsigned long long made = st.allocations - before;
    printf("chaos_hammer: chaos blocks %llu, frees %llu, foreign frees %llu, threads %llu, "
           "decoys live %llu (%llu bytes)\n",
           made, st.frees, st.foreign_frees, st.threads, st.decoys_live, st.decoy_bytes_live);
    if (expect_disabled) {
      CHECK(st.enabled == 0, "KDET_CHAOS=0 must disable the library");
      CHECK(made == 0, "disabled library handed out %llu chaos blocks", made);
    } else {
      /* each thread allocates at least k_iterations / 4 times */
      CHECK(made >= (unsigned long long)k_threads * k_iterations / 4,
            "only %llu chaos blocks for %d threads", made, k_threads);
      CHECK(st.threads >= k_threads + 1, "only %llu threads seen", st.threads);
      CHECK(st.decoy_bytes_live <= 64ull * 64 * 1024, "decoy bytes %llu over the bound",
            st.decoy_bytes_live);
    }
  }
  int failures = atomic_load(&g_failures);
  if (failures) {
    fprintf(stderr, "chaos_hammer: %d check(s) failed\n", failures);
    return 1;
  }
  printf("chaos_hammer: all checks passed (%s)\n", plain ? "glibc" : "preloaded");
  return 0;
}
