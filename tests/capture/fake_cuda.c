/*===- tests/capture/fake_cuda.c - a CUDA driver with no GPU behind it -----===//
 *
 * The driver's load entry points as libcuda exports them, for the load seam's tests
 * (tests/e2e/capture_loads.sh): each load takes an image that starts with a byte other
 * than NUL and hands back a made-up handle; cuGetProcAddress(_v2) hands out functions of
 * its own that are not its exports, as the real driver's internal entry points are not.
 * No GPU is touched, none is needed.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <string.h>

enum { k_success = 0, k_invalid_image = 200, k_not_found = 500 };

static int g_handles;

static int take(void** out, const void* image) {
  if (!out || !image || *(const unsigned char*)image == 0) return k_invalid_image;
  *out = (void*)(intptr_t)++g_handles;
  return k_success;
}

int cuInit(unsigned flags) {
  (void)flags;
  return k_success;
}
int cuModuleLoadData(void** m, const void* image) {
  return take(m, image);
}
int cuModuleLoadDataEx(void** m, const void* image, unsigned n, int* o, void** v) {
  (void)n, (void)o, (void)v;
  return take(m, image);
}
int cuModuleLoadFatBinary(void** m, const void* image) {
  return take(m, image);
}
int cuLibraryLoadData(void** l, const void* image, int* jo, void** jv, unsigned jn, int* lo,
                      void** lv, unsigned ln) {
  (void)jo, (void)jv, (void)jn, (void)lo, (void)lv, (void)ln;
  return take(l, image);
}
/* The runtime's registration of a program's fatbin (libcudart's, in the real stack). */
void** __cudaRegisterFatBinary(void* fat) { /* NOLINT(bugprone-reserved-identifier) */
  static void* handle;
  handle = fat;
  return &handle;
}
int cuModuleUnload(void* m) {
  (void)m;
  return k_success;
}

/* The "internal" entry points cuGetProcAddress hands out. */
static int internal_load_data(void** m, const void* image) {
  return take(m, image);
}
static int internal_load_data_ex(void** m, const void* image, unsigned n, int* o, void** v) {
  (void)n, (void)o, (void)v;
  return take(m, image);
}
static int internal_library_load_data(void** l, const void* image, int* jo, void** jv, unsigned jn,
                                      int* lo, void** lv, unsigned ln) {
  (void)jo, (void)jv, (void)jn, (void)lo, (void)lv, (void)ln;
  return take(l, image);
}

static void* lookup(const char* symbol) {
  if (!symbol) return 0;
  if (strcmp(symbol, "cuModuleLoadData") == 0) return (void*)&internal_load_data;
  if (strcmp(symbol, "cuModuleLoadDataEx") == 0) return (void*)&internal_load_data_ex;
  if (strcmp(symbol, "cuLibraryLoadData") == 0) return (void*)&internal_library_load_data;
  if (strcmp(symbol, "cuInit") == 0) return (void*)&cuInit;
  return 0;
}

int cuGetProcAddress(const char* symbol, void** pfn, int version, uint64_t flags) {
  (void)version, (void)flags;
  if (!pfn) return 1;
  *pfn = lookup(symbol);
  return *pfn ? k_success : k_not_found;
}
int cuGetProcAddress_v2(const char* symbol, void** pfn, int version, uint64_t flags, int* status) {
  int rc = cuGetProcAddress(symbol, pfn, version, flags);
  if (status) *status = rc == k_success ? 0 : 1;
  return rc;
}
