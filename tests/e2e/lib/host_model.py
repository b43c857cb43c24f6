#!/usr/bin/env python3
"""host_model.py: run a `kdet corpus` kernel on the CPU, as a model of its GPU launch.

    host_model.py KERNEL.ll RECIPE.toml GRID WORKDIR OUT.bin

The kernel's NVVM IR (LLVM 7 dialect) becomes host IR: the NVVM intrinsics become calls to C
functions (thread and block ids from thread-locals, __syncthreads a pthread barrier, ex2, rcp,
sqrt, fmin, fmax, fma from libm), shared memory becomes ordinary globals. clang-14 compiles it
with a driver written from the recipe: the buffers filled as `kdet impact` fills them (the same
seeded generator: floats uniform in [-1, 1), integers random words), GRID blocks run one after
another, each block's threads as pthreads. The output buffers' first GRID x block elements go to
OUT.bin, and one line per output buffer to stdout:

    out0: 512 finite, 0 nan, 0 inf, 0 zero

It answers on a machine without a GPU the questions a GPU launch would: whether a kernel's
outputs can show a difference at all (not NaN, not inf), and whether two IR variants give
different results. libm's exp2f and 1/x stand in for ex2.approx and rcp.rn, so values may differ
from the GPU's in the last bits; finiteness and the reach of a planted constant do not.
"""
import re
import subprocess
import sys
import tomllib

INTRINSICS = {
    "llvm.nvvm.read.ptx.sreg.tid.x": ("kd_tid", "i32 ()"),
    "llvm.nvvm.read.ptx.sreg.ctaid.x": ("kd_ctaid", "i32 ()"),
    "llvm.nvvm.read.ptx.sreg.ntid.x": ("kd_ntid", "i32 ()"),
    "llvm.nvvm.barrier0": ("kd_bar", "void ()"),
    "llvm.nvvm.ex2.approx.f": ("kd_ex2", "float (float)"),
    "llvm.nvvm.rcp.rn.f": ("kd_rcp", "float (float)"),
    "llvm.nvvm.sqrt.rn.f": ("kd_sqrt", "float (float)"),
    "llvm.nvvm.fmax.f": ("kd_fmax", "float (float, float)"),
    "llvm.nvvm.fmin.f": ("kd_fmin", "float (float, float)"),
    "llvm.nvvm.fma.rn.f": ("kd_fma", "float (float, float, float)"),
}

RUNTIME = r"""
#include <math.h>
#include <pthread.h>
__thread int t_tid, t_ctaid;
int g_ntid;
pthread_barrier_t g_bar;
int kd_tid(void) { return t_tid; }
int kd_ctaid(void) { return t_ctaid; }
int kd_ntid(void) { return g_ntid; }
void kd_bar(void) { pthread_barrier_wait(&g_bar); }
float kd_ex2(float x) { return exp2f(x); }
float kd_rcp(float x) { return 1.0f / x; }
float kd_sqrt(float x) { return sqrtf(x); }
float kd_fmax(float a, float b) { return fmaxf(a, b); }
float kd_fmin(float a, float b) { return fminf(a, b); }
float kd_fma(float a, float b, float c) { return fmaf(a, b, c); }
"""

C_TYPES = {"f32": "float", "f64": "double", "i32": "int", "i64": "long", "u8": "unsigned char"}


def to_host_ir(text):
    text = re.sub(r"^target (datalayout|triple) = .*\n", "", text, flags=re.M)
    text = text.replace(" addrspace(3)", "")
    for name, (host, _) in INTRINSICS.items():
        text = text.replace(f"@{name}(", f"@{host}(")
    text = re.sub(r"^declare [^\n]*@(kd_\w+|llvm\.nvvm\.[\w.]+)\(.*\n", "", text, flags=re.M)
    text = re.sub(r"^!.*\n", "", text, flags=re.M)
    text = re.sub(r", !\w+ !\d+", "", text)
    for host, sig in INTRINSICS.values():
        ret, params = sig.split(" ", 1)
        text += f"declare {ret} @{host}{params}\n"
    return text


def driver(recipe, grid, out_path):
    kernel, block, args = recipe["kernel"], recipe["block"], recipe["arg"]
    protos, statics, fills, calls, outputs = [], [], [], [], []
    for i, a in enumerate(args):
        if "buffer" in a:
            ctype = C_TYPES[a["buffer"]]
            n = a["elements"]
            protos.append(ctype + "*")
            statics.append(f"static {ctype} b{i}[{n}];")
            if a.get("init") == "random":
                seed = a.get("seed", 0)
                if ctype == "float":
                    fills.append(f"for (long j = 0; j < {n}; ++j) "
                                 f"b{i}[j] = (float)(mix({seed}u, j) >> 40) * 0x1p-23f - 1.0f;")
                elif ctype == "double":
                    fills.append(f"for (long j = 0; j < {n}; ++j) "
                                 f"b{i}[j] = (double)(mix({seed}u, j) >> 11) * 0x1p-52 - 1.0;")
                else:
                    fills.append(f"for (long j = 0; j < {n}; ++j) "
                                 f"{{ uint64_t r = mix({seed}u, j); memcpy(&b{i}[j], &r, sizeof b{i}[j]); }}")
            calls.append(f"b{i}")
            if a.get("output"):
                outputs.append((a["name"], i, ctype, n))
        else:
            ctype = C_TYPES[a["scalar"]]
            protos.append(ctype)
            calls.append(f"{a['value']}f" if ctype == "float" else str(a["value"]))
    count = grid * block
    report = []
    for name, i, ctype, n in outputs:
        m = min(count, n)
        if ctype in ("float", "double"):
            report.append(f'classify("{name}", b{i}, {m});')
        report.append(f"fwrite(b{i}, sizeof b{i}[0], {m}, f);")
    return f"""#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern __thread int t_tid, t_ctaid;
extern int g_ntid;
extern pthread_barrier_t g_bar;
void {kernel}({", ".join(protos)});
{chr(10).join(statics)}
/* kdet's mix_seed (util/hash.cpp): element j of a buffer seeded s is mix(s, j). */
static uint64_t mix(uint64_t seed, uint64_t index) {{
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}}
static int g_block;
static void* thread_main(void* p) {{
  t_tid = (int)(intptr_t)p;
  t_ctaid = g_block;
  {kernel}({", ".join(calls)});
  return 0;
}}
static void classify(const char* name, const float* b, long n) {{
  long nan = 0, inf = 0, zero = 0, finite = 0;
  for (long j = 0; j < n; ++j) {{
    if (isnan(b[j])) ++nan;
    else if (isinf(b[j])) ++inf;
    else if (b[j] == 0) ++zero;
    else ++finite;
  }}
  printf("%s: %ld finite, %ld nan, %ld inf, %ld zero\\n", name, finite, nan, inf, zero);
}}
int main(void) {{
  {chr(10).join(fills)}
  g_ntid = {block};
  pthread_barrier_init(&g_bar, 0, {block});
  for (g_block = 0; g_block < {grid}; ++g_block) {{
    pthread_t t[{block}];
    for (int i = 0; i < {block}; ++i) pthread_create(&t[i], 0, thread_main, (void*)(intptr_t)i);
    for (int i = 0; i < {block}; ++i) pthread_join(t[i], 0);
  }}
  FILE* f = fopen("{out_path}", "wb");
  if (!f) return 3;
  {chr(10).join(report)}
  return fclose(f) != 0;
}}
"""


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.split("\n\n")[1])
    ll, recipe_path, grid, work, out = sys.argv[1:]
    with open(recipe_path, "rb") as f:
        recipe = tomllib.load(f)
    with open(ll) as f:
        host = to_host_ir(f.read())
    with open(f"{work}/kernel.ll", "w") as f:
        f.write(host)
    with open(f"{work}/runtime.c", "w") as f:
        f.write(RUNTIME)
    with open(f"{work}/driver.c", "w") as f:
        f.write(driver(recipe, int(grid), out))
    subprocess.run(["clang-14", "-O1", "-w", "-o", f"{work}/model", f"{work}/driver.c",
                    f"{work}/runtime.c", f"{work}/kernel.ll", "-lm", "-lpthread"], check=True)
    sys.exit(subprocess.run([f"{work}/model"], timeout=300).returncode)


if __name__ == "__main__":
    main()
