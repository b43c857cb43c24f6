/* nvvm_fake.c: a minimal libNVVM for adversary_truth.sh, the mode picked by -adv=MODE:
 * counter (whether this process compiled before: history inside one process only),
 * loadaddr2 (the address of a function of this library: ASLR, across processes only),
 * mallocaddr (a malloc'd block: heap layout and ASLR), time (seconds), det (nothing). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef int nvvmResult;
typedef struct P {
  char out[512];
  size_t n;
} * nvvmProgram;
static int calls;
const char* nvvmGetErrorString(nvvmResult r) {
  return r ? "ADV_ERROR" : "ADV_SUCCESS";
}
nvvmResult nvvmVersion(int* a, int* b) {
  *a = 2;
  *b = 0;
  return 0;
}
nvvmResult nvvmIRVersion(int* a, int* b, int* c, int* d) {
  *a = 2;
  *b = 0;
  *c = 3;
  *d = 2;
  return 0;
}
nvvmResult nvvmCreateProgram(nvvmProgram* p) {
  *p = calloc(1, sizeof **p);
  return 0;
}
nvvmResult nvvmDestroyProgram(nvvmProgram* p) {
  free(*p);
  *p = 0;
  return 0;
}
nvvmResult nvvmAddModuleToProgram(nvvmProgram p, const char* b, size_t s, const char* n) {
  return 0;
}
static void marker(void) {}
nvvmResult nvvmCompileProgram(nvvmProgram p, int n, const char** o) {
  const char* mode = "det";
  for (int i = 0; i < n; ++i)
    if (!strncmp(o[i], "-adv=", 5)) mode = o[i] + 5;
  ++calls;
  if (!strcmp(mode, "counter"))
    p->n = snprintf(p->out, sizeof p->out, "// calls %d\n", calls > 1);
  else if (!strcmp(mode, "loadaddr2"))
    p->n = snprintf(p->out, sizeof p->out, "// at %p\n", (void*)&marker);
  else if (!strcmp(mode, "mallocaddr")) {
    void* m = malloc(1000);
    p->n = snprintf(p->out, sizeof p->out, "// m %p\n", m);
  } else if (!strcmp(mode, "time"))
    p->n = snprintf(p->out, sizeof p->out, "// t %ld\n", (long)time(0));
  else
    p->n = snprintf(p->out, sizeof p->out, "// det\n");
  return 0;
}
nvvmResult nvvmGetCompiledResultSize(nvvmProgram p, size_t* s) {
  *s = p->n + 1;
  return 0;
}
nvvmResult nvvmGetCompiledResult(nvvmProgram p, char* b) {
  memcpy(b, p->out, p->n + 1);
  return 0;
}
nvvmResult nvvmGetProgramLogSize(nvvmProgram p, size_t* s) {
  *s = 1;
  return 0;
}
nvvmResult nvvmGetProgramLog(nvvmProgram p, char* b) {
  b[0] = 0;
  return 0;
}
