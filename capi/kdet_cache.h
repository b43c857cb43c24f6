/* kdet_cache.h - kdet's verifying compile cache, for any language with a C FFI.
 *
 * A Python compiler stack (CuTe DSL, Triton, ...) caches its own compile
 * function's output here: it builds a key from the parts that decide the
 * output, looks it up, compiles on a miss and stores the result. On a sampled
 * fraction of hits (the verify rate) the lookup asks the caller to recompile
 * and store again with verification=1; a different result is kept as another
 * variant (never over the first) and reported. Same folder layout as
 * `kdet cache` (docs/CACHE.md), so `kdet cache report/stats/gc` work on it.
 *
 * Errors: functions return a KDET_CACHE_* code; KDET_CACHE_ERROR means
 * kdet_cache_last_error() (per thread) says why. A handle may be used by one
 * thread at a time; several processes may share one cache folder.
 */
#ifndef KDET_CACHE_H
#define KDET_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KDET_CACHE_OK 0       /* hit served / stored / verified: the same */
#define KDET_CACHE_MISS 1     /* no usable entry: compile and store */
#define KDET_CACHE_MISMATCH 2 /* verification: the recompile differs; both variants kept */
#define KDET_CACHE_REFUSED 3  /* the key holds several variants and the policy is fail */
#define KDET_CACHE_ERROR (-1) /* see kdet_cache_last_error() */

#define KDET_CACHE_POLICY_SERVE_FIRST 0
#define KDET_CACHE_POLICY_FAIL 1

typedef struct kdet_cache kdet_cache;
typedef struct kdet_cache_buffer kdet_cache_buffer;

/* Opens the cache in `dir` (NULL or "": $KDET_CACHE_DIR, else ~/.cache/kdet). NULL on error. */
kdet_cache* kdet_cache_open(const char* dir);
/* Closes a handle (NULL is fine). */
void kdet_cache_close(kdet_cache* cache);
/* Why the last call on this thread returned KDET_CACHE_ERROR (or NULL from open). */
const char* kdet_cache_last_error(void);
/* Warnings of the last lookup/store on this handle, one per line ("" when none). */
const char* kdet_cache_last_warning(kdet_cache* cache);

/* Fraction of hits to verify, 0..1 (default 1/32; 1 = every hit). */
int kdet_cache_set_verify_rate(kdet_cache* cache, double rate);
/* KDET_CACHE_POLICY_SERVE_FIRST (default) or KDET_CACHE_POLICY_FAIL. */
int kdet_cache_set_policy(kdet_cache* cache, int policy);

/* Content hash (32 hex digits + NUL) of a file, e.g. the compiler library, for compiler_id. */
int kdet_cache_file_hash(const char* path, char out[33]);

/* The key (32 hex digits + NUL) of: input bytes, a compiler identity string (include the
 * compiler's content hash and version), options in order, and "NAME=VALUE" environment
 * entries that decide the output (order does not matter). `cache` may be NULL; when given,
 * it remembers the parts so that a later store records them in the entry's key.json. */
int kdet_cache_make_key(kdet_cache* cache, const void* input, size_t input_size,
                        const char* compiler_id, const char* const* options, size_t n_options,
                        const char* const* env, size_t n_env, char key_out[33]);

/* Names what a key (from kdet_cache_make_key on this handle) was made from, for `kdet cache
 * report`: the input's name (a file name) and the compiler's (e.g. "libNVVM 2.0"). Recorded
 * with the entry, not part of the key; either may be NULL. KDET_CACHE_OK, or KDET_CACHE_ERROR
 * for a key this handle did not make. */
int kdet_cache_name_key(kdet_cache* cache, const char* key, const char* input_name,
                        const char* compiler_name);

/* Looks a key up. KDET_CACHE_OK: *data (free with kdet_cache_free) and *size hold the first
 * stored variant, hash-checked, and *verify is 1 when this hit was sampled for verification
 * (recompile, then kdet_cache_store(..., 1)). KDET_CACHE_MISS: compile and store.
 * KDET_CACHE_REFUSED: several variants and the fail policy. A damaged entry is a miss
 * with a warning. */
int kdet_cache_lookup(kdet_cache* cache, const char* key, void** data, size_t* size, int* verify);

/* Stores a compile result. verification = 0 after a miss: KDET_CACHE_OK (also when another
 * process stored the same bytes first; a different first variant gives KDET_CACHE_MISMATCH).
 * verification = 1 after a sampled hit: KDET_CACHE_OK when it matches the served variant,
 * KDET_CACHE_MISMATCH when not (kept as another variant; the warning says how they differ). */
int kdet_cache_store(kdet_cache* cache, const char* key, const void* data, size_t size,
                     int verification);

/* Number of variants stored under a key (0 when none), or KDET_CACHE_ERROR. */
int kdet_cache_variants(kdet_cache* cache, const char* key);

/* Frees a buffer returned by this library. */
void kdet_cache_free(void* data);

/* Compile callback for kdet_cache_get_or_compile: put the output with kdet_cache_buffer_set
 * and return 0, or return non-zero for a failed compile (nothing is stored). */
typedef int (*kdet_cache_compile_fn)(void* user, kdet_cache_buffer* out);
int kdet_cache_buffer_set(kdet_cache_buffer* out, const void* data, size_t size);

/* lookup, compile on a miss or a sampled hit, store. Returns the lookup/store code;
 * *data and *size hold what to use (free with kdet_cache_free). A failed compile on a miss
 * returns KDET_CACHE_ERROR. */
int kdet_cache_get_or_compile(kdet_cache* cache, const char* key, kdet_cache_compile_fn compile,
                              void* user, void** data, size_t* size);

#ifdef __cplusplus
}
#endif

#endif /* KDET_CACHE_H */
