/*===- tests/capture/driver_client.c - a pipeline that loads modules --------===//
 *
 * Usage: driver_client LIBCUDA LIBNVVM. Compiles one module with LIBNVVM (the fake
 * libNVVM, echo mode: its PTX names the kernel k_seen), then opens LIBCUDA by path, as the
 * CUDA runtime and frameworks do, and hands the driver:
 *   (a) that PTX, with cuModuleLoadData found by dlsym (made by a compile kdet saw);
 *   (b) PTX of kernel k_unseen that no compile made, with cuModuleLoadDataEx; with
 *       DRIVER_VARY set it carries this process's id, so it differs from build to build;
 *   (c) PTX of kernel k_proc through cuGetProcAddress_v2's cuLibraryLoadData (how the
 *       runtime 12+ reaches the driver);
 *   (d) a fatbin holding the PTX of (a), with cuModuleLoadFatBinary;
 *   (e) a fatbin of kernel k_shipped registered as the CUDA runtime registers the fatbin
 *       a program or library ships (__cudaRegisterFatBinary on a static wrapper), found in
 *       the global scope, where the capture preload comes first, as a library's call is.
 * Exit 0 when every call succeeded.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void* need(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "driver_client: %s missing\n", name);
    exit(3);
  }
  return p;
}

static const char k_module[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry k_seen()\n{\n ret;\n}\n";

/* The fake libNVVM's PTX for k_module. */
static char* compile(const char* path) {
  void* nvvm = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!nvvm) {
    fprintf(stderr, "driver_client: %s\n", dlerror());
    exit(3);
  }
  int (*create)(void**) = (int (*)(void**))need(nvvm, "nvvmCreateProgram");
  int (*add)(void*, const char*, size_t, const char*) =
      (int (*)(void*, const char*, size_t, const char*))need(nvvm, "nvvmAddModuleToProgram");
  int (*comp)(void*, int, const char**) =
      (int (*)(void*, int, const char**))need(nvvm, "nvvmCompileProgram");
  int (*size)(void*, size_t*) = (int (*)(void*, size_t*))need(nvvm, "nvvmGetCompiledResultSize");
  int (*get)(void*, char*) = (int (*)(void*, char*))need(nvvm, "nvvmGetCompiledResult");
  void* prog = 0;
  size_t n = 0;
  const char* opts[] = {"-fake-mode=echo"};
  if (create(&prog) || add(prog, k_module, sizeof k_module - 1, "k") || comp(prog, 1, opts) ||
      size(prog, &n))
    exit(1);
  char* ptx = malloc(n + 1);
  if (!ptx || get(prog, ptx)) exit(1);
  ptx[n] = 0;
  return ptx;
}

/* The runtime's fatbin wrapper, static data of the program that ships the fatbin. */
static struct {
  int magic;
  int version;
  const void* data;
  void* filename_or_fatbins;
} g_wrapper = {0x466243b1, 1, 0, 0};

/* A fatbin (header, one entry header, the payload padded to 8) holding `ptx` plainly. */
static unsigned char* fatbin(const char* ptx, size_t* total) {
  size_t n = strlen(ptx) + 1, padded = (n + 7) / 8 * 8;
  *total = 16 + 64 + padded;
  unsigned char* f = calloc(1, *total);
  if (!f) exit(1);
  uint32_t magic = 0xba55ed50, header = 64, arch = 90;
  uint16_t version = 1, fh = 16, kind = 1;
  uint64_t fat = 64 + padded, payload = padded;
  memcpy(f, &magic, 4);
  memcpy(f + 4, &version, 2);
  memcpy(f + 6, &fh, 2);
  memcpy(f + 8, &fat, 8);
  memcpy(f + 16, &kind, 2);
  memcpy(f + 18, &version, 2);
  memcpy(f + 20, &header, 4);
  memcpy(f + 24, &payload, 8);
  memcpy(f + 16 + 28, &arch, 4);
  memcpy(f + 80, ptx, n);
  return f;
}

typedef int (*LoadData)(void**, const void*);
typedef int (*LoadDataEx)(void**, const void*, unsigned, int*, void**);
typedef int (*LibraryLoadData)(void**, const void*, int*, void**, unsigned, int*, void**, unsigned);
typedef int (*GetProc)(const char*, void**, int, uint64_t, int*);

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: driver_client LIBCUDA LIBNVVM\n");
    return 2;
  }
  char* ptx = compile(argv[2]);
  void* cuda = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    fprintf(stderr, "driver_client: %s\n", dlerror());
    return 3;
  }
  void* m = 0;
  int rc = ((int (*)(unsigned))need(cuda, "cuInit"))(0);
  rc |= ((LoadData)need(cuda, "cuModuleLoadData"))(&m, ptx);

  char unseen[256];
  snprintf(unseen, sizeof unseen,
           ".version 8.0\n.target sm_90\n.address_size 64\n// %ld\n"
           ".visible .entry k_unseen()\n{\n ret;\n}\n",
           getenv("DRIVER_VARY") ? (long)getpid() : 0L);
  rc |= ((LoadDataEx)need(cuda, "cuModuleLoadDataEx"))(&m, unseen, 0, 0, 0);

  GetProc get_proc = (GetProc)need(cuda, "cuGetProcAddress_v2");
  void* fn = 0;
  int status = 0;
  rc |= get_proc("cuLibraryLoadData", &fn, 13000, 0, &status);
  static const char k_proc[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry k_proc()\n{\n ret;\n}\n";
  rc |= fn ? ((LibraryLoadData)fn)(&m, k_proc, 0, 0, 0, 0, 0, 0) : 1;

  size_t size = 0;
  unsigned char* fat = fatbin(ptx, &size);
  rc |= ((LoadData)need(cuda, "cuModuleLoadFatBinary"))(&m, fat);

  static const char k_shipped[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                  ".visible .entry k_shipped()\n{\n ret;\n}\n";
  g_wrapper.data = fatbin(k_shipped, &size);
  void** (*reg)(void*) = (void** (*)(void*))dlsym(RTLD_DEFAULT, "__cudaRegisterFatBinary");
  if (!reg) reg = (void** (*)(void*))need(cuda, "__cudaRegisterFatBinary");
  rc |= reg(&g_wrapper) ? 0 : 1;
  if (rc) fprintf(stderr, "driver_client: a load failed\n");
  return rc ? 1 : 0;
}
