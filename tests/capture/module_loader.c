/*===- tests/capture/module_loader.c - loads linked_module RTLD_LOCAL -------===//
 *
 * Usage: module_loader MODULE MODE TIMES. dlopen(MODULE, RTLD_LOCAL) and calls
 * its capture_linked_compile (see linked_module.c). Exit 0 when it succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: module_loader MODULE MODE TIMES\n");
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "module_loader: %s\n", dlerror());
    return 3;
  }
  int (*compile)(const char*, int) = (int (*)(const char*, int))dlsym(h, "capture_linked_compile");
  if (!compile) return 3;
  int rc = compile(argv[2], atoi(argv[3]));
  if (rc) fprintf(stderr, "module_loader: a compile failed\n");
  return rc;
}
