/*===- tests/capture/linked_module.c - libNVVM behind an RTLD_LOCAL module --===//
 *
 * A shared module linked at build time against the fake libNVVM, the way a
 * Python extension is linked against its own bundled compiler (CuPy and
 * NVRTC): loaded with dlopen(RTLD_LOCAL), its compiler is not in the global
 * scope, so a preload must find it through the calling module.
 * capture_linked_compile(MODE, TIMES): 0 when every compile succeeded.
 *
 *===----------------------------------------------------------------------===*/
#include <nvvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((visibility("default"))) int capture_linked_compile(const char* mode, int times) {
  static const char k_module[] = "define void @k() {\n  ret void\n}\n";
  char opt[64];
  snprintf(opt, sizeof opt, "-fake-mode=%s", mode);
  const char* opts[] = {opt};
  for (int i = 0; i < times; ++i) {
    nvvmProgram prog;
    size_t n = 0;
    if (nvvmCreateProgram(&prog) != NVVM_SUCCESS) return 1;
    if (nvvmAddModuleToProgram(prog, k_module, strlen(k_module), "k.ll") != NVVM_SUCCESS ||
        nvvmCompileProgram(prog, 1, opts) != NVVM_SUCCESS ||
        nvvmGetCompiledResultSize(prog, &n) != NVVM_SUCCESS)
      return 1;
    char* out = malloc(n);
    int bad = !out || nvvmGetCompiledResult(prog, out) != NVVM_SUCCESS;
    free(out);
    nvvmDestroyProgram(&prog);
    if (bad) return 1;
  }
  return 0;
}
