/*===- tests/capture/linked_client.c - libNVVM linked at build time ---------===//
 *
 * Calls nvvm* directly (resolved by the dynamic linker from DT_NEEDED, here the
 * fake libNVVM), the path a statically configured C or C++ pipeline takes.
 * Usage: linked_client MODE TIMES: compiles one fixed module TIMES times with
 * -fake-mode=MODE. Exit 0 when every compile succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <nvvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: linked_client MODE TIMES\n");
    return 2;
  }
  static const char k_module[] = "define void @k() {\n  ret void\n}\n";
  char mode[64];
  snprintf(mode, sizeof mode, "-fake-mode=%s", argv[1]);
  const char* opts[] = {mode};
  for (int i = 0; i < atoi(argv[2]); ++i) {
    nvvmProgram prog;
    size_t n = 0;
    if (nvvmCreateProgram(&prog) != NVVM_SUCCESS ||
        nvvmAddModuleToProgram(prog, k_module, strlen(k_module), "k.ll") != NVVM_SUCCESS ||
        nvvmCompileProgram(prog, 1, opts) != NVVM_SUCCESS ||
        nvvmGetCompiledResultSize(prog, &n) != NVVM_SUCCESS)
      return 1;
    char* out = malloc(n);
    if (!out || nvvmGetCompiledResult(prog, out) != NVVM_SUCCESS) return 1;
    free(out);
    nvvmDestroyProgram(&prog);
  }
  return 0;
}
