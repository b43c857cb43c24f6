/*===- perturb/chaos/chaos.c - the chaos allocator (LD_PRELOAD) -------------===//
 *
 * Replaces the malloc family (glibc supports this by symbol interposition) and
 * forwards every request to glibc's own entry points __libc_malloc,
 * __libc_calloc, __libc_realloc, __libc_memalign and __libc_free. Those are
 * plain exported functions, so there is no dlsym bootstrap (dlsym may itself
 * call calloc) and no recursion into this library.
 *
 * Each chaos block is a glibc block with a random pad in front:
 *
 *   base (from glibc)                        p (returned)
 *   |<----- random pad ----->|<- header 32 ->|<- size bytes ->|
 *
 * The pad is a multiple of 16 (or of the requested alignment) drawn from a
 * per-thread RNG seeded by KDET_CHAOS_SEED and the thread's index. The header
 * holds the requested size, the offset back to base and a check word. The check
 * word sits at p-8, where a block that glibc handed out directly has its chunk
 * size field; a chunk size never has the top bits of k_tag, so a pointer
 * without the tag is a plain glibc block (allocated while chaos was disabled, or
 * by ld.so through libc before this library could see it) and goes straight to
 * __libc_free / __libc_realloc.
 *
 * Decoys: with a seeded probability an allocation also toggles one of
 * k_decoy_slots slots: an empty slot gets a decoy block of random size, a full
 * one is freed. The holes this leaves make consecutive blocks land out of order.
 * Decoys live in one global table behind a try-lock: a thread that finds it
 * busy skips the decoy, so no thread ever waits (and a child forked while the
 * lock was held simply has no decoys).
 *
 * No stdio, no locks that wait, no calls back into the malloc family.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "kdet_chaos.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define KDET_EXPORT __attribute__((visibility("default")))

/* glibc's own allocator, exported from libc.so.6 (GLIBC_2.2.5). */
extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t align, size_t size);
extern void __libc_free(void* p);

extern char** environ;

enum {
  k_header_size = 32,
  k_min_align = 16,
  k_decoy_slots = 64,
  k_decoy_max_size = 64 * 1024, /* so decoys stay below glibc's mmap threshold */
};
/* Top 20 bits of a check word; a glibc chunk size never reaches 2^44 (16 TiB). */
static const uint64_t k_tag = 0xC4A05ULL << 44;
static const uint64_t k_tag_mask = 0xFFFFFULL << 44;

/* Configuration read once from the environment (see docs/CHAOS.md). */
static _Atomic int g_config_state; /* 0 none, 1 defaults (no environ yet), 2 final */
static _Atomic int g_enabled = 1;
static _Atomic uint64_t g_seed = 1;
static _Atomic uint64_t g_epoch;
static size_t g_max_pad = 256;           /* KDET_CHAOS_MAX_PAD, bytes */
static unsigned g_decoy_per_mille = 100; /* KDET_CHAOS_DECOY_PERMILLE */
static unsigned g_hole_per_mille = 250;  /* KDET_CHAOS_HOLE_PERMILLE */
static size_t g_page_size = 4096;

static _Atomic uint64_t g_thread_counter;
static _Atomic uint64_t g_allocations;
static _Atomic uint64_t g_frees;
static _Atomic uint64_t g_foreign_frees;
static _Atomic uint64_t g_decoys_live;
static _Atomic uint64_t g_decoy_bytes_live;

static atomic_flag g_decoy_lock = ATOMIC_FLAG_INIT;
static void* g_decoys[k_decoy_slots];
static size_t g_decoy_sizes[k_decoy_slots];

/* Per-thread RNG; initial-exec TLS needs no allocation (library must be preloaded). */
typedef struct ThreadState {
  uint64_t rng;
  uint64_t epoch;
  uint64_t index;
  int ready;
} ThreadState;
static __thread ThreadState t_state __attribute__((tls_model("initial-exec")));

typedef struct Header {
  uint64_t size;   /* requested bytes */
  uint64_t offset; /* p - base */
  uint64_t align;  /* alignment the block was made with */
  uint64_t check;  /* k_tag | mix(p, size, offset); read at p-8 */
} Header;

/* ---- random numbers ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* The calling thread's state, rederived when the global seed changed. */
static ThreadState* thread_state(void) {
  ThreadState* t = &t_state;
  if (!t->ready) {
    t->index = atomic_fetch_add_explicit(&g_thread_counter, 1, memory_order_relaxed);
    t->ready = 1;
    t->epoch = UINT64_MAX; /* forces the derivation below */
  }
  uint64_t epoch = atomic_load_explicit(&g_epoch, memory_order_acquire);
  if (t->epoch != epoch) {
    uint64_t seed = atomic_load_explicit(&g_seed, memory_order_relaxed);
    t->rng = splitmix64(seed ^ splitmix64(t->index * 0xD1B54A32D192ED03ULL + 1));
    t->epoch = epoch;
  }
  return t;
}

/* xorshift64* step; never returns the same stream for two (seed, thread) pairs in practice. */
static uint64_t next_random(ThreadState* t) {
  uint64_t x = t->rng;
  if (x == 0) x = 0x2545F4914F6CDD1DULL;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  t->rng = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* ---- configuration -------------------------------------------------------- */

static const char* env_value(const char* name) {
  char** env = environ;
  if (!env) return NULL;
  size_t len = strlen(name);
  for (; *env; ++env)
    if (strncmp(*env, name, len) == 0 && (*env)[len] == '=') return *env + len + 1;
  return NULL;
}

/* Parses decimal or 0x-hex into *out; 0 on any junk or overflow. */
static int parse_u64(const char* s, uint64_t* out) {
  if (!s || !*s) return 0;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
    if (!*s) return 0;
  }
  uint64_t v = 0;
  for (; *s; ++s) {
    int d;
    if (*s >= '0' && *s <= '9')
      d = *s - '0';
    else if (base == 16 && *s >= 'a' && *s <= 'f')
      d = *s - 'a' + 10;
    else if (base == 16 && *s >= 'A' && *s <= 'F')
      d = *s - 'A' + 10;
    else
      return 0;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return 0;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out = v;
  return 1;
}

static void write_str(const char* s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

static void write_u64(uint64_t v) {
  char buf[24];
  int i = (int)sizeof buf;
  buf[--i] = '\0';
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  write_str(buf + i);
}

/* Reads one numeric variable; 0 if unset or junk. */
static int read_env_u64(const char* name, uint64_t* out) {
  const char* s = env_value(name);
  return s && parse_u64(s, out);
}

/* Reads the environment once it exists; before that (ld.so's first calls) uses defaults. */
static void configure(void) {
  if (atomic_load_explicit(&g_config_state, memory_order_acquire) == 2) return;
  if (!environ) {
    int expected = 0;
    atomic_compare_exchange_strong(&g_config_state, &expected, 1);
    return;
  }
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0) g_page_size = (size_t)page;
  uint64_t v;
  const char* enabled = env_value("KDET_CHAOS");
  if (enabled && strcmp(enabled, "0") == 0) atomic_store(&g_enabled, 0);
  if (read_env_u64("KDET_CHAOS_SEED", &v)) atomic_store(&g_seed, v);
  if (read_env_u64("KDET_CHAOS_MAX_PAD", &v)) g_max_pad = v > (1u << 20) ? (1u << 20) : (size_t)v;
  if (read_env_u64("KDET_CHAOS_DECOY_PERMILLE", &v))
    g_decoy_per_mille = v > 1000 ? 1000u : (unsigned)v;
  if (read_env_u64("KDET_CHAOS_HOLE_PERMILLE", &v))
    g_hole_per_mille = v > 1000 ? 1000u : (unsigned)v;
  atomic_fetch_add(&g_epoch, 1); /* threads rederive from the configured seed */
  atomic_store_explicit(&g_config_state, 2, memory_order_release);
}

/* Complains (write(2) only) about a numeric variable that is set but not a number. */
static void warn_if_invalid(const char* name) {
  const char* s = env_value(name);
  uint64_t v;
  if (!s || parse_u64(s, &v)) return;
  write_str("kdet-chaos: ignoring invalid ");
  write_str(name);
  write_str("=");
  write_str(s);
  write_str(" (expected a decimal or 0x-hex number)\n");
}

__attribute__((constructor(101))) static void chaos_init(void) {
  configure();
  warn_if_invalid("KDET_CHAOS_SEED");
  warn_if_invalid("KDET_CHAOS_MAX_PAD");
  warn_if_invalid("KDET_CHAOS_DECOY_PERMILLE");
  const char* verbose = env_value("KDET_CHAOS_VERBOSE");
  if (verbose && strcmp(verbose, "1") == 0) {
    write_str("kdet-chaos: enabled=");
    write_u64((uint64_t)atomic_load(&g_enabled));
    write_str(" seed=");
    write_u64(atomic_load(&g_seed));
    write_str(" max_pad=");
    write_u64(g_max_pad);
    write_str(" decoy_permille=");
    write_u64(g_decoy_per_mille);
    write_str("\n");
  }
}

/* With KDET_CHAOS_VERBOSE=1, one line of counters at exit (proof that a tool ran under it). */
__attribute__((destructor)) static void chaos_report(void) {
  const char* verbose = env_value("KDET_CHAOS_VERBOSE");
  if (!verbose || strcmp(verbose, "1") != 0) return;
  write_str("kdet-chaos: exit pid=");
  write_u64((uint64_t)getpid());
  write_str(" chaos_blocks=");
  write_u64(atomic_load(&g_allocations));
  write_str(" frees=");
  write_u64(atomic_load(&g_frees));
  write_str(" foreign_frees=");
  write_u64(atomic_load(&g_foreign_frees));
  write_str(" decoys_live=");
  write_u64(atomic_load(&g_decoys_live));
  write_str(" threads=");
  write_u64(atomic_load(&g_thread_counter));
  write_str("\n");
}

static inline int chaos_active(void) {
  if (__builtin_expect(atomic_load_explicit(&g_config_state, memory_order_acquire) != 2, 0))
    configure();
  return atomic_load_explicit(&g_enabled, memory_order_relaxed);
}

/* ---- headers -------------------------------------------------------------- */

static uint64_t check_word(const void* p, uint64_t size, uint64_t offset) {
  uint64_t h = splitmix64((uint64_t)(uintptr_t)p ^ splitmix64(size ^ (offset << 40)));
  return k_tag | (h & ~k_tag_mask);
}

static Header* header_of(const void* p) {
  return (Header*)((char*)(uintptr_t)p - k_header_size);
}

/* 1 if p carries a valid chaos header (p non-NULL). */
static int is_chaos_block(const void* p) {
  const uint64_t check = ((const uint64_t*)p)[-1];
  if ((check & k_tag_mask) != k_tag) return 0;
  const Header* h = header_of(p);
  return h->check == check_word(p, h->size, h->offset);
}

static void* finish_block(void* base, size_t offset, size_t size, size_t align) {
  char* p = (char*)base + offset;
  Header* h = header_of(p);
  h->size = size;
  h->offset = offset;
  h->align = align;
  h->check = check_word(p, size, offset);
  atomic_fetch_add_explicit(&g_allocations, 1, memory_order_relaxed);
  return p;
}

/* ---- decoys --------------------------------------------------------------- */

/* With the configured probability, fills or frees one random decoy slot. Always
 * draws the same number of random values whatever the slot held, so that a seed
 * replays the same pads. */
static void maybe_decoy(ThreadState* t) {
  if (g_decoy_per_mille == 0) return;
  uint64_t r = next_random(t);
  if ((r % 1000) >= g_decoy_per_mille) return;
  uint64_t r2 = next_random(t);
  if (atomic_flag_test_and_set_explicit(&g_decoy_lock, memory_order_acquire)) return;
  unsigned slot = (unsigned)((r >> 20) % k_decoy_slots);
  if (g_decoys[slot]) {
    __libc_free(g_decoys[slot]);
    atomic_fetch_sub_explicit(&g_decoys_live, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&g_decoy_bytes_live, g_decoy_sizes[slot], memory_order_relaxed);
    g_decoys[slot] = NULL;
  } else {
    /* log-uniform size 16 B .. 64 KiB: small ones land in tcache/fastbins next to real blocks */
    size_t low = (size_t)16 << (r2 % 12);
    size_t size = low + (size_t)((r2 >> 8) % low);
    if (size > k_decoy_max_size) size = k_decoy_max_size;
    void* d = __libc_malloc(size);
    if (d) {
      g_decoys[slot] = d;
      g_decoy_sizes[slot] = size;
      atomic_fetch_add_explicit(&g_decoys_live, 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&g_decoy_bytes_live, size, memory_order_relaxed);
    }
  }
  atomic_flag_clear_explicit(&g_decoy_lock, memory_order_release);
}

/* ---- allocation core ------------------------------------------------------ */

/* A chaos block of size bytes aligned to align (a power of two); zeroed if zero. */
static void* chaos_alloc(size_t size, size_t align, int zero) {
  ThreadState* t = thread_state();
  maybe_decoy(t);
  uint64_t r = next_random(t);
  size_t offset;
  void* base;
  size_t body = size ? size : 1;
  if (align <= k_min_align) {
    size_t units = g_max_pad / k_min_align + 1;
    offset = k_header_size + (size_t)(r % units) * k_min_align;
    if (body > SIZE_MAX - offset) goto nomem;
    /* Random placement: sometimes take a same-sized hole first and free it
     * after, so the next block of this size lands below this one. Blocks
     * allocated one after another then come out of address order, which is
     * what code that compares or sorts pointers is sensitive to. */
    void* hole = NULL;
    if (g_hole_per_mille && ((r >> 32) % 1000) < g_hole_per_mille)
      hole = __libc_malloc(offset + body);
    base = zero ? __libc_calloc(1, offset + body) : __libc_malloc(offset + body);
    if (hole) __libc_free(hole);
    align = k_min_align;
  } else {
    /* k >= 1 units of align in front; the first unit holds the header (align >= 32). */
    size_t units = g_max_pad / align + 1;
    if (units < 2 && align <= g_page_size) units = 2;
    offset = align * (1 + (size_t)(r % units));
    if (body > SIZE_MAX - offset) goto nomem;
    base = __libc_memalign(align, offset + body);
    if (base && zero) memset((char*)base + offset, 0, body);
  }
  if (!base) goto nomem;
  return finish_block(base, offset, size, align);
nomem:
  errno = ENOMEM;
  return NULL;
}

static void chaos_free(void* p) {
  if (!p) return;
  if (!is_chaos_block(p)) {
    atomic_fetch_add_explicit(&g_foreign_frees, 1, memory_order_relaxed);
    __libc_free(p);
    return;
  }
  Header* h = header_of(p);
  void* base = (char*)p - h->offset;
  h->check = 0; /* a second free of p then reaches glibc, which reports it */
  atomic_fetch_add_explicit(&g_frees, 1, memory_order_relaxed);
  __libc_free(base);
}

/* Normalizes an alignment as glibc's memalign does: rounds up to a power of two. */
static int normalize_align(size_t* align) {
  size_t a = *align;
  if (a > SIZE_MAX / 2 + 1) return 0;
  if (a < k_min_align) a = k_min_align;
  if (a & (a - 1)) {
    size_t p = k_min_align;
    while (p < a)
      p <<= 1;
    a = p;
  }
  *align = a;
  return 1;
}

static void* chaos_memalign(size_t align, size_t size) {
  if (!normalize_align(&align)) {
    errno = EINVAL;
    return NULL;
  }
  if (!chaos_active()) return __libc_memalign(align, size);
  return chaos_alloc(size, align, 0);
}

/* ---- the interposed entry points ----------------------------------------- */

static void* chaos_malloc(size_t size) {
  if (!chaos_active()) return __libc_malloc(size);
  return chaos_alloc(size, k_min_align, 0);
}

KDET_EXPORT void* malloc(size_t size) {
  return chaos_malloc(size);
}

KDET_EXPORT void free(void* p) {
  chaos_free(p);
}

KDET_EXPORT void* calloc(size_t n, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  if (!chaos_active()) return __libc_calloc(n, size);
  return chaos_alloc(total, k_min_align, 1);
}

KDET_EXPORT void* realloc(void* p, size_t size) {
  if (!p) return chaos_malloc(size);
  if (size == 0) { /* glibc frees and returns NULL */
    chaos_free(p);
    return NULL;
  }
  if (!is_chaos_block(p)) return __libc_realloc(p, size);
  Header* h = header_of(p);
  const size_t old_size = h->size;
  const size_t offset = h->offset;
  const size_t old_align = h->align;
  /* Now and then move the block to a fresh random place (small blocks only). */
  if (chaos_active() && size <= k_decoy_max_size && g_decoy_per_mille &&
      (next_random(thread_state()) % 1000) < g_decoy_per_mille) {
    void* q = chaos_alloc(size, k_min_align, 0);
    if (!q) return NULL;
    memcpy(q, p, old_size < size ? old_size : size);
    chaos_free(p);
    return q;
  }
  if (size > SIZE_MAX - offset) {
    errno = ENOMEM;
    return NULL;
  }
  void* base = (char*)p - offset;
  h->check = 0; /* invalid while glibc may move it */
  void* nbase = __libc_realloc(base, offset + size);
  if (!nbase) { /* old block untouched: restore its header */
    h->check = check_word(p, old_size, offset);
    return NULL;
  }
  atomic_fetch_sub_explicit(&g_allocations, 1, memory_order_relaxed); /* counted again below */
  /* glibc's realloc keeps only its own 16-byte alignment when it moves a block */
  return finish_block(nbase, offset, size, nbase == base ? old_align : k_min_align);
}

KDET_EXPORT void* reallocarray(void* p, size_t n, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(p, total);
}

KDET_EXPORT void* memalign(size_t align, size_t size) {
  return chaos_memalign(align, size);
}

KDET_EXPORT void* aligned_alloc(size_t align, size_t size) {
  /* glibc 2.36 (this host) treats aligned_alloc like memalign; so do we. */
  return chaos_memalign(align, size);
}

KDET_EXPORT int posix_memalign(void** out, size_t align, size_t size) {
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0 || align == 0) return EINVAL;
  int saved = errno;
  void* p = chaos_memalign(align, size);
  if (!p) {
    int e = errno;
    errno = saved;
    return e ? e : ENOMEM;
  }
  *out = p;
  return 0;
}

KDET_EXPORT void* valloc(size_t size) {
  chaos_active(); /* make sure g_page_size is read */
  return chaos_memalign(g_page_size, size);
}

KDET_EXPORT void* pvalloc(size_t size) {
  chaos_active();
  size_t page = g_page_size;
  size_t rounded = size ? size : 1;
  if (rounded > SIZE_MAX - page) {
    errno = ENOMEM;
    return NULL;
  }
  rounded = (rounded + page - 1) & ~(page - 1);
  return chaos_memalign(page, rounded);
}

KDET_EXPORT size_t malloc_usable_size(void* p) {
  if (!p) return 0;
  if (is_chaos_block(p)) return header_of(p)->size;
  /* A plain glibc block: ask glibc. dlsym may call calloc, which is harmless here. */
  static size_t (*_Atomic real_usable)(void*);
  size_t (*fn)(void*) = atomic_load(&real_usable);
  if (!fn) {
    fn = (size_t(*)(void*))dlsym(RTLD_NEXT, "malloc_usable_size");
    if (!fn) return 0;
    atomic_store(&real_usable, fn);
  }
  return fn(p);
}

/* ---- control API (kdet_chaos.h) ------------------------------------------ */

KDET_EXPORT int kdet_chaos_abi_version(void) {
  return KDET_CHAOS_ABI_VERSION;
}

KDET_EXPORT void kdet_chaos_reseed(unsigned long long seed) {
  chaos_active();
  atomic_store(&g_seed, (uint64_t)seed);
  atomic_fetch_add_explicit(&g_epoch, 1, memory_order_release);
}

KDET_EXPORT unsigned long long kdet_chaos_allocations(void) {
  return atomic_load_explicit(&g_allocations, memory_order_relaxed);
}

KDET_EXPORT void kdet_chaos_get_stats(KdetChaosStats* out) {
  chaos_active();
  out->seed = atomic_load(&g_seed);
  out->epoch = atomic_load(&g_epoch);
  out->allocations = atomic_load(&g_allocations);
  out->frees = atomic_load(&g_frees);
  out->foreign_frees = atomic_load(&g_foreign_frees);
  out->decoys_live = atomic_load(&g_decoys_live);
  out->decoy_bytes_live = atomic_load(&g_decoy_bytes_live);
  out->threads = atomic_load(&g_thread_counter);
  out->enabled = atomic_load(&g_enabled);
}

KDET_EXPORT int kdet_chaos_set_enabled(int enabled) {
  chaos_active();
  return atomic_exchange(&g_enabled, enabled ? 1 : 0);
}

KDET_EXPORT unsigned long long kdet_chaos_release_decoys(void) {
  /* Waits for the lock here only: this is called by the worker, never from malloc. */
  while (atomic_flag_test_and_set_explicit(&g_decoy_lock, memory_order_acquire))
    sched_yield();
  unsigned long long n = 0;
  for (int i = 0; i < k_decoy_slots; ++i) {
    if (!g_decoys[i]) continue;
    __libc_free(g_decoys[i]);
    g_decoys[i] = NULL;
    g_decoy_sizes[i] = 0;
    ++n;
  }
  atomic_store(&g_decoys_live, 0);
  atomic_store(&g_decoy_bytes_live, 0);
  atomic_flag_clear_explicit(&g_decoy_lock, memory_order_release);
  return n;
}

KDET_EXPORT unsigned long long kdet_chaos_block_offset(const void* p) {
  if (!p || !is_chaos_block(p)) return 0;
  return header_of(p)->offset;
}
