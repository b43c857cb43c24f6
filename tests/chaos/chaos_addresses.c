/*===- tests/chaos/chaos_addresses.c - the seed decides where blocks land ---===//
 *
 * Run with LD_PRELOAD=libkdet_chaos.so (CTest does).
 *   chaos_addresses reproducible  re-executes itself with ASLR off
 *       (personality(ADDR_NO_RANDOMIZE)) and checks: the same seed gives the
 *       same addresses in a fresh process, two seeds give different addresses,
 *       a few seeds give different address *orders* (what ASLR cannot do), and
 *       with KDET_CHAOS=0 neither changes. Exits 77 if ASLR cannot be turned off.
 *   chaos_addresses reseed  in one process: kdet_chaos_reseed replays the same
 *       pads, kdet_chaos_set_enabled(0) hands out plain glibc blocks that free and
 *       malloc_usable_size still handle, kdet_chaos_release_decoys empties the table.
 *   chaos_addresses child   (internal) prints hashes of one allocation sequence.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "kdet_chaos.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

enum { k_blocks = 2000 };

static int g_failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "chaos_addresses: line %d: check failed: %s: ", __LINE__, #cond);            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

static uint64_t fnv(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
  return h;
}

static int by_address(const void* a, const void* b) {
  uintptr_t x = *(const uintptr_t*)a, y = *(const uintptr_t*)b; /* first of (address, index) */
  return x < y ? -1 : x > y;
}

/* A fixed allocation sequence (a compiler's mix of small blocks and frees). Prints
 * "addr=H order=H": a hash of every address, and of the order of the live blocks
 * when sorted by address (pointer-keyed sets iterate in that order). */
static int child(void) {
  static void* blocks[k_blocks];
  uint64_t s = 88172645463325252ULL, addr_hash = 0xcbf29ce484222325ULL;
  for (int i = 0; i < k_blocks; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    blocks[i] = malloc(16 + s % 200);
    addr_hash = fnv(addr_hash, (uintptr_t)blocks[i]);
    if (i % 3 == 2) { /* free an older one now and then, as a compiler does */
      int victim = (int)((s >> 32) % (uint64_t)i);
      free(blocks[victim]);
      blocks[victim] = NULL;
    }
  }
  /* rank of each live block by address, packed as (address, index) pairs */
  static uintptr_t pairs[k_blocks][2];
  int n = 0;
  for (int i = 0; i < k_blocks; ++i)
    if (blocks[i]) pairs[n][0] = (uintptr_t)blocks[i], pairs[n][1] = (uintptr_t)i, ++n;
  qsort(pairs, (size_t)n, sizeof pairs[0], by_address);
  uint64_t order_hash = 0xcbf29ce484222325ULL;
  for (int i = 0; i < n; ++i)
    order_hash = fnv(order_hash, pairs[i][1]);
  printf("addr=%016llx order=%016llx\n", (unsigned long long)addr_hash,
         (unsigned long long)order_hash);
  return 0;
}

typedef struct Hashes {
  char addr[17];
  char order[17];
} Hashes;

/* Runs this program as "child" with ASLR off and KDET_CHAOS/KDET_CHAOS_SEED set. */
static int run_child(const char* chaos, const char* seed, Hashes* out) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    if (personality(ADDR_NO_RANDOMIZE) == -1) _exit(3);
    setenv("KDET_CHAOS", chaos, 1);
    setenv("KDET_CHAOS_SEED", seed, 1);
    execl("/proc/self/exe", "chaos_addresses", "child", (char*)NULL);
    _exit(4);
  }
  close(fds[1]);
  char buf[128] = {0};
  ssize_t got = 0, r;
  while (got < (ssize_t)sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
    got += r;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return sscanf(buf, "addr=%16s order=%16s", out->addr, out->order) == 2;
}

static int reproducible(void) {
  Hashes a, b;
  if (!run_child("0", "1", &a) || !run_child("0", "1", &b)) {
    printf("chaos_addresses: SKIP: cannot run a child with personality(ADDR_NO_RANDOMIZE)\n");
    return 77;
  }
  if (strcmp(a.addr, b.addr) != 0) {
    printf("chaos_addresses: SKIP: addresses differ with ASLR off and chaos off (%s vs %s); "
           "ASLR cannot be disabled here\n",
           a.addr, b.addr);
    return 77;
  }
  Hashes off2;
  CHECK(run_child("0", "2", &off2), "child failed");
  CHECK(strcmp(a.addr, off2.addr) == 0 && strcmp(a.order, off2.order) == 0,
        "with KDET_CHAOS=0 the seed must not matter (%s vs %s)", a.addr, off2.addr);

  Hashes s1, s1again, s2;
  CHECK(run_child("1", "1", &s1) && run_child("1", "1", &s1again) && run_child("1", "2", &s2),
        "child failed");
  CHECK(strcmp(s1.addr, s1again.addr) == 0, "same seed, different addresses: %s vs %s", s1.addr,
        s1again.addr);
  CHECK(strcmp(s1.addr, s2.addr) != 0, "seeds 1 and 2 gave the same addresses %s", s1.addr);
  CHECK(strcmp(s1.addr, a.addr) != 0, "chaos on and off gave the same addresses %s", s1.addr);

  /* Address order: glibc alone keeps it fixed; chaos must change it within a few seeds. */
  int distinct_orders = 1;
  char first[17];
  strcpy(first, s1.order);
  for (int seed = 2; seed <= 6; ++seed) {
    char text[8];
    snprintf(text, sizeof text, "%d", seed);
    Hashes h;
    CHECK(run_child("1", text, &h), "child failed");
    if (strcmp(h.order, first) != 0) ++distinct_orders;
  }
  CHECK(distinct_orders >= 2, "6 seeds gave one address order only");
  printf("chaos_addresses: same seed same addresses (%s), seed 2 %s, chaos off %s; "
         "%d of 6 seeds changed the address order\n",
         s1.addr, s2.addr, a.addr, distinct_orders - 1);
  return g_failures ? 1 : 0;
}

/* Looks a control function up at run time, typed by its declaration in kdet_chaos.h. */
#define LOAD(var, sym) __typeof__(&sym) var = (__typeof__(&sym))dlsym(RTLD_DEFAULT, #sym)

static int reseed_test(void) {
  LOAD(fn_reseed, kdet_chaos_reseed);
  LOAD(fn_block_offset, kdet_chaos_block_offset);
  LOAD(fn_set_enabled, kdet_chaos_set_enabled);
  LOAD(fn_release_decoys, kdet_chaos_release_decoys);
  LOAD(fn_get_stats, kdet_chaos_get_stats);
  LOAD(fn_abi_version, kdet_chaos_abi_version);
  if (!fn_reseed || !fn_block_offset || !fn_set_enabled || !fn_release_decoys || !fn_get_stats ||
      !fn_abi_version) {
    fprintf(stderr, "chaos_addresses: libkdet_chaos.so is not preloaded (set LD_PRELOAD)\n");
    return 1;
  }
  CHECK(fn_abi_version() == KDET_CHAOS_ABI_VERSION, "ABI version %d", fn_abi_version());
  enum { n = 300 };
  static void* blocks[n];
  unsigned long long offsets[3][n];
  const unsigned long long seeds[3] = {7, 7, 8};
  for (int round = 0; round < 3; ++round) {
    fn_reseed(seeds[round]);
    for (int i = 0; i < n; ++i) {
      blocks[i] = malloc((size_t)(i * 37 % 500));
      offsets[round][i] = fn_block_offset(blocks[i]);
      CHECK(offsets[round][i] >= 32 && offsets[round][i] % 16 == 0, "offset %llu",
            offsets[round][i]);
    }
    for (int i = 0; i < n; ++i)
      free(blocks[i]);
  }
  CHECK(memcmp(offsets[0], offsets[1], sizeof offsets[0]) == 0, "reseed(7) twice: pads differ");
  CHECK(memcmp(offsets[0], offsets[2], sizeof offsets[0]) != 0, "seeds 7 and 8: same pads");
  int distinct = 0;
  for (int i = 1; i < n; ++i)
    distinct += offsets[0][i] != offsets[0][0];
  CHECK(distinct > n / 2, "pads barely vary: %d of %d differ from the first", distinct, n);

  KdetChaosStats st;
  fn_get_stats(&st);
  CHECK(st.seed == 8 && st.enabled == 1, "stats: seed %llu enabled %d", st.seed, st.enabled);
  unsigned long long foreign_before = st.foreign_frees;

  /* Disabled: plain glibc blocks, still freed and measured correctly. */
  CHECK(fn_set_enabled(0) == 1, "set_enabled(0) returns the previous state");
  char* plain = malloc(100);
  char* plain_aligned = memalign(256, 100);
  CHECK(plain && fn_block_offset(plain) == 0, "disabled malloc gave a chaos block");
  CHECK(plain_aligned && ((uintptr_t)plain_aligned & 255) == 0, "disabled memalign alignment");
  CHECK(malloc_usable_size(plain) >= 100, "usable size of a plain block");
  fn_set_enabled(1);
  plain = realloc(plain, 5000); /* plain block, chaos on again */
  CHECK(plain != NULL, "realloc of a plain block");
  free(plain);
  free(plain_aligned);
  fn_get_stats(&st);
  CHECK(st.foreign_frees >= foreign_before + 2, "plain blocks not freed as plain (%llu -> %llu)",
        foreign_before, st.foreign_frees);

  /* Decoys: make sure some exist, then release them all. */
  for (int i = 0; i < 2000; ++i)
    free(malloc(64));
  fn_get_stats(&st);
  CHECK(st.decoys_live > 0, "no decoys after 2000 allocations");
  unsigned long long released = fn_release_decoys();
  CHECK(released == st.decoys_live, "released %llu of %llu decoys", released, st.decoys_live);
  fn_get_stats(&st);
  CHECK(st.decoys_live == 0 && st.decoy_bytes_live == 0, "decoys left after release");
  printf("chaos_addresses: reseed replays pads; %d/%d pads differ from the first; "
         "released %llu decoys\n",
         distinct, n, released);
  return g_failures ? 1 : 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "child") == 0) return child();
  if (strcmp(mode, "reseed") == 0) return reseed_test();
  if (strcmp(mode, "reproducible") == 0) {
    if (!dlsym(RTLD_DEFAULT, "kdet_chaos_reseed")) {
      fprintf(stderr, "chaos_addresses: libkdet_chaos.so is not preloaded (set LD_PRELOAD)\n");
      return 1;
    }
    return reproducible();
  }
  fprintf(stderr, "usage: chaos_addresses reproducible|reseed\n");
  return 2;
}
