/*===- perturb/chaos/listing.c - the order of a folder's entries (LD_PRELOAD) ---===//
 *
 * The listing factor's library, libkdet_listing.so. It wraps readdir and readdir64: the first
 * call on a directory stream reads the whole folder through libc's own readdir, sorts the
 * entries by name and, under a seed, shuffles them; that call and the next return the entries in
 * that order. So a compiler that lists a folder (a glob, a plugin or include-folder scan, a build
 * script's os.listdir) sees the order KDET_LISTING says, not the file system's:
 *
 *   KDET_LISTING=sorted         by name (bytewise), the same on every file system
 *   KDET_LISTING=shuffle:SEED   a seeded shuffle, its own per folder (the seed mixed with the
 *                               folder's names), the same for one folder within one SEED
 *   unset or anything else      libc's order, untouched (no state, no allocation)
 *
 * The variable is read as each stream starts, so a worker that sets it per run (setenv) changes
 * the order from that run on. rewinddir starts the stream again; closedir forgets it. telldir and
 * seekdir are not wrapped (their positions are libc's), nor are calls that libc makes internally
 * (scandir, glob in libc read through its own entry points; a program's own calls are wrapped).
 * As reprotest varies it with disorderfs, without a FUSE mount.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KDET_EXPORT __attribute__((visibility("default")))

/* On the 64-bit targets kdet builds for, the two entry types are one layout. */
_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent and dirent64 differ");

typedef struct dirent64* (*ReadFn)(DIR*);

/* One stream in a listed order: its entries and the next to return. */
typedef struct Stream {
  DIR* dir;
  struct dirent64** entries;
  size_t count, next;
  struct Stream* link;
} Stream;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static Stream* g_streams;

static ReadFn real_readdir64(void) {
  static ReadFn fn;
  if (!fn) fn = (ReadFn)dlsym(RTLD_NEXT, "readdir64");
  return fn;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static int by_name(const void* a, const void* b) {
  return strcmp((*(struct dirent64* const*)a)->d_name, (*(struct dirent64* const*)b)->d_name);
}

/* 0: libc's order; 1: sorted; 2: shuffled under *seed. */
static int listing_mode(uint64_t* seed) {
  const char* v = getenv("KDET_LISTING");
  if (!v) return 0;
  if (strcmp(v, "sorted") == 0) return 1;
  if (strncmp(v, "shuffle:", 8) == 0) {
    char* end = NULL;
    *seed = strtoull(v + 8, &end, 0);
    return end && *end == 0 && end != v + 8 ? 2 : 0;
  }
  return 0;
}

static void forget(Stream* s) {
  for (size_t i = 0; i < s->count; ++i)
    free(s->entries[i]);
  free(s->entries);
  free(s);
}

/* Reads the rest of `dir` into a new stream in the listed order; NULL on no memory. */
static Stream* start(DIR* dir, int mode, uint64_t seed) {
  Stream* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->dir = dir;
  size_t cap = 0;
  for (struct dirent64* e; (e = real_readdir64()(dir)) != NULL;) {
    if (s->count == cap) {
      size_t n = cap ? cap * 2 : 64;
      struct dirent64** grown = realloc(s->entries, n * sizeof *grown);
      if (!grown) break;
      s->entries = grown;
      cap = n;
    }
    struct dirent64* copy = malloc(sizeof *copy);
    if (!copy) break;
    memset(copy, 0, sizeof *copy);
    memcpy(copy, e, offsetof(struct dirent64, d_name) + strlen(e->d_name) + 1);
    s->entries[s->count++] = copy;
  }
  if (s->count > 1) qsort(s->entries, s->count, sizeof *s->entries, by_name);
  if (mode == 2) {
    uint64_t r = seed;
    for (size_t i = 0; i < s->count; ++i) /* the folder's own seed: its names */
      for (const char* c = s->entries[i]->d_name; *c; ++c)
        r = splitmix64(r ^ (unsigned char)*c);
    for (size_t i = s->count; i > 1; --i) {
      r = splitmix64(r);
      size_t j = (size_t)(r % i);
      struct dirent64* t = s->entries[i - 1];
      s->entries[i - 1] = s->entries[j];
      s->entries[j] = t;
    }
  }
  s->link = g_streams;
  g_streams = s;
  return s;
}

static Stream* find(DIR* dir, Stream*** at) {
  for (Stream** p = &g_streams; *p; p = &(*p)->link)
    if ((*p)->dir == dir) {
      if (at) *at = p;
      return *p;
    }
  return NULL;
}

KDET_EXPORT struct dirent64* readdir64(DIR* dir) {
  if (!real_readdir64()) return NULL;
  pthread_mutex_lock(&g_mu);
  Stream* s = find(dir, NULL);
  uint64_t seed = 0;
  int mode = 0;
  if (!s && (mode = listing_mode(&seed)) != 0) s = start(dir, mode, seed);
  struct dirent64* e = NULL;
  if (!s)
    e = real_readdir64()(dir);
  else if (s->next < s->count)
    e = s->entries[s->next++];
  pthread_mutex_unlock(&g_mu);
  return e;
}

KDET_EXPORT struct dirent* readdir(DIR* dir) {
  return (struct dirent*)readdir64(dir);
}

/* Forgets the stream's listed order (a rewound stream lists the folder again). */
static void drop(DIR* dir) {
  pthread_mutex_lock(&g_mu);
  Stream** at = NULL;
  Stream* s = find(dir, &at);
  if (s) *at = s->link;
  pthread_mutex_unlock(&g_mu);
  if (s) forget(s);
}

KDET_EXPORT void rewinddir(DIR* dir) {
  static void (*real)(DIR*);
  if (!real) real = (void (*)(DIR*))dlsym(RTLD_NEXT, "rewinddir");
  drop(dir);
  if (real) real(dir);
}

KDET_EXPORT int closedir(DIR* dir) {
  static int (*real)(DIR*);
  if (!real) real = (int (*)(DIR*))dlsym(RTLD_NEXT, "closedir");
  drop(dir);
  return real ? real(dir) : -1;
}
