/*===- tests/capture/linked_jitlink.c - nvJitLink linked at build time ------===//
 *
 * Calls nvJitLink through its header, whose inline functions call the
 * versioned exports (__nvJitLinkCreate_13_0 ...), linked against the real
 * library: capture must see those names too. Links one LTO-IR file to a cubin.
 * Usage: linked_jitlink FILE.ltoir ARCH. Exit 0 on success.
 *
 *===----------------------------------------------------------------------===*/
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: linked_jitlink FILE.ltoir ARCH\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char buf[1 << 22];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  char arch[64];
  snprintf(arch, sizeof arch, "-arch=%s", argv[2]);
  const char* opts[] = {arch, "-lto"};
  nvJitLinkHandle h;
  if (nvJitLinkCreate(&h, 2, opts) != NVJITLINK_SUCCESS) return 1;
  int ok =
      nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, buf, n, "linked.ltoir") == NVJITLINK_SUCCESS &&
      nvJitLinkComplete(h) == NVJITLINK_SUCCESS;
  size_t size = 0;
  if (ok && nvJitLinkGetLinkedCubinSize(h, &size) == NVJITLINK_SUCCESS) {
    char* cubin = malloc(size);
    ok = cubin && nvJitLinkGetLinkedCubin(h, cubin) == NVJITLINK_SUCCESS;
    free(cubin);
  }
  nvJitLinkDestroy(&h);
  return ok ? 0 : 1;
}
