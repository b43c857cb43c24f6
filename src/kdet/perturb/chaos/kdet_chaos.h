/*===- perturb/chaos/kdet_chaos.h - control API of libkdet_chaos.so ---------===//
 *
 * libkdet_chaos.so is an LD_PRELOAD allocator that moves heap blocks around
 * under a seed (random padding before each block, random decoy blocks between
 * blocks) so that compiler output that depends on heap addresses varies from
 * run to run. These functions are exported by the library for the in-process
 * hook (`--process same`): a worker started with the library preloaded finds
 * them with dlsym(RTLD_DEFAULT, "kdet_chaos_reseed") and reseeds between runs.
 * Plain C so that the C library and the C++ worker share one declaration.
 * docs/CHAOS.md describes the environment variables and the design.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KDET_PERTURB_CHAOS_KDET_CHAOS_H
#define KDET_PERTURB_CHAOS_KDET_CHAOS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this API; bumped when a function or KdetChaosStats changes. */
#define KDET_CHAOS_ABI_VERSION 1

/* Counters of one process; every field is a snapshot of a relaxed atomic. */
typedef struct KdetChaosStats {
  unsigned long long seed;             /* current seed (KDET_CHAOS_SEED or last reseed) */
  unsigned long long epoch;            /* number of reseeds so far */
  unsigned long long allocations;      /* blocks handed out with a chaos header */
  unsigned long long frees;            /* chaos blocks freed */
  unsigned long long foreign_frees;    /* frees of plain glibc blocks (passed through) */
  unsigned long long decoys_live;      /* decoy blocks held now */
  unsigned long long decoy_bytes_live; /* their requested bytes (bounded, see CHAOS.md) */
  unsigned long long threads;          /* threads that have allocated through the library */
  int enabled;                         /* 1 if new allocations are perturbed */
} KdetChaosStats;

/* Returns KDET_CHAOS_ABI_VERSION of the loaded library. */
int kdet_chaos_abi_version(void);

/* Sets the global seed; each thread restarts its random stream from (seed,
 * thread index) at its next allocation, so the same seed replays the same pads. */
void kdet_chaos_reseed(unsigned long long seed);

/* Number of blocks handed out with a chaos header so far (proves the library is active). */
unsigned long long kdet_chaos_allocations(void);

/* Fills *out with the current counters; out must not be NULL. */
void kdet_chaos_get_stats(KdetChaosStats* out);

/* Turns perturbation of new allocations on (1) or off (0); returns the previous
 * state. Blocks already handed out stay valid either way. */
int kdet_chaos_set_enabled(int enabled);

/* Frees every decoy block now (e.g. between in-process runs); returns how many. */
unsigned long long kdet_chaos_release_decoys(void);

/* Distance in bytes from the start of the real glibc block to p if p is a
 * chaos block, else 0 (p from glibc directly, or NULL). For tests. */
unsigned long long kdet_chaos_block_offset(const void* p);

#ifdef __cplusplus
}
#endif

#endif /* KDET_PERTURB_CHAOS_KDET_CHAOS_H */
