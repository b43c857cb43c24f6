/* fake_core.h: the core the fake compilers share (fake_cc, libfakenvvm): a
 * growable buffer, "N: line" echo output, and the heap-order table that makes
 * output depend on heap addresses as a pointer-keyed hash map in a compiler
 * would. One copy, so that both fakes order lines the same way.
 *
 * Header-only (static inline): each fake is one C file, built on its own.
 */
#ifndef KDET_TESTS_FAKES_FAKE_CORE_H
#define KDET_TESTS_FAKES_FAKE_CORE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { k_fake_buckets = 16 };

/* A growable byte buffer; `failed` latches an allocation failure (then
 * appends do nothing), so that the caller decides what running out means. */
typedef struct {
  char* data;
  size_t size;
  size_t capacity;
  int failed;
} Buffer;

static inline void buffer_append(Buffer* b, const void* bytes, size_t n) {
  if (b->failed) {
    return;
  }
  if (b->size + n > b->capacity) {
    size_t cap = b->capacity ? b->capacity : 256;
    while (cap < b->size + n) {
      cap *= 2;
    }
    char* grown = realloc(b->data, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->capacity = cap;
  }
  memcpy(b->data + b->size, bytes, n);
  b->size += n;
}

/* Appends "NUMBER: LINE\n". */
static inline void buffer_append_line(Buffer* b, unsigned number, const char* line, size_t len) {
  char prefix[32];
  int n = snprintf(prefix, sizeof prefix, "%u: ", number);
  buffer_append(b, prefix, (size_t)n);
  buffer_append(b, line, len);
  buffer_append(b, "\n", 1);
}

/* Calls fn(ctx, number, line, len) for each line of text (1-based). */
typedef void (*LineFn)(void* ctx, unsigned number, const char* line, size_t len);

static inline void for_each_line(const char* text, size_t size, LineFn fn, void* ctx) {
  size_t start = 0;
  unsigned number = 1;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || text[i] == '\n') {
      if (i > start || i < size) {
        fn(ctx, number++, text + start, i - start);
      }
      start = i + 1;
    }
  }
}

/* A LineFn: appends the line to the Buffer ctx as "N: line". */
static inline void echo_line(void* ctx, unsigned number, const char* line, size_t len) {
  buffer_append_line((Buffer*)ctx, number, line, len);
}

/* One input line in the address-keyed table; allocated with a size of
 * 24..200 bytes that varies with the line's length. */
typedef struct FakeNode {
  struct FakeNode* next;
  const char* line;
  unsigned number;
  unsigned len;
} FakeNode;

typedef struct {
  FakeNode* head[k_fake_buckets];
  FakeNode* tail[k_fake_buckets];
  int failed;
} FakeTable;

static inline void heap_insert(void* ctx, unsigned number, const char* line, size_t len) {
  FakeTable* t = ctx;
  size_t bytes = 24 + len % 177; /* 24..200 */
  FakeNode* node = malloc(bytes < sizeof(FakeNode) ? sizeof(FakeNode) : bytes);
  if (!node) {
    t->failed = 1;
    return;
  }
  node->next = NULL;
  node->line = line;
  node->number = number;
  node->len = (unsigned)len;
  uintptr_t p = (uintptr_t)node;
  unsigned bucket = (unsigned)(((p >> 4) ^ (p >> 12)) % k_fake_buckets);
  if (t->tail[bucket]) {
    t->tail[bucket]->next = node;
  } else {
    t->head[bucket] = node;
  }
  t->tail[bucket] = node;
}

/* Appends the echo lines of text to out in the order a pointer-keyed hash map
 * would visit them: bucket by bucket of the nodes' heap addresses. Call it
 * before allocating the output buffer, so that only the nodes' addresses
 * decide the order. An allocation failure sets out->failed. */
static inline void heaporder_lines(const char* text, size_t size, Buffer* out) {
  FakeTable table;
  memset(&table, 0, sizeof table);
  for_each_line(text, size, heap_insert, &table);
  for (int b = 0; b < k_fake_buckets; ++b) {
    for (FakeNode* n = table.head[b]; n; n = n->next) {
      buffer_append_line(out, n->number, n->line, n->len);
    }
  }
  for (int b = 0; b < k_fake_buckets; ++b) {
    FakeNode* n = table.head[b];
    while (n) {
      FakeNode* next = n->next;
      free(n);
      n = next;
    }
  }
  if (table.failed) {
    out->failed = 1;
  }
}

#endif
