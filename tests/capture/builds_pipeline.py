"""A build of several kernels for `kdet capture --builds`, one status of each kind.

Usage: builds_pipeline.py WORK COUNTER NVVM NVRTC_SONAME PTXAS GEN_PTX

Each run is one build. COUNTER is a file outside the build that holds how many builds ran
before (the build number, from 1), standing in for what changes from one build to the next:
a generator's clock, a code generator's random choice. Kernels, with real compilers:

- saxpy: libNVVM (ctypes) compiles examples' saxpy IR; its PTX, written without the NUL
  libNVVM hands over, goes to ptxas. Same in every build.
- stamp_k: a PTX whose `.file` names a Python source the build writes into its Triton cache
  folder (fresh in every cold build) with a new modification time, as Inductor does. ptxas
  embeds the file's time in the cubin: same PTX, another cubin. Varies at ptxas.
- gen_k: GEN_PTX (a code generator captured with --exec) writes a PTX with a build stamp in a
  comment; ptxas assembles both to one cubin. Varies at the generator; the final artifact is
  the same.
- const_k: libNVVM compiles IR whose constant is the build number: the pipeline's own input
  differs (input-differs).
- nvrtc_k: NVRTC (ctypes) compiles a fixed source under a program name with a temporary
  folder in it, as CuPy names its programs: same in every build.
- extra_k: compiled in build 2 only (not-in-every-build).
"""
import ctypes
import os
import subprocess
import sys
import tempfile

WORK, COUNTER, NVVM, NVRTC, PTXAS, GEN_PTX = sys.argv[1:7]
HERE = os.path.dirname(os.path.abspath(__file__))
SAXPY = os.path.join(HERE, "..", "..", "examples", "nvvm", "llvm7", "saxpy.ll")

n = int(open(COUNTER).read().strip() or "0") + 1 if os.path.exists(COUNTER) else 1
with open(COUNTER, "w") as f:
    f.write(str(n))
os.makedirs(WORK, exist_ok=True)
nvvm = ctypes.CDLL(NVVM)


def nvvm_compile(ir, opts):
    prog = ctypes.c_void_p()
    assert nvvm.nvvmCreateProgram(ctypes.byref(prog)) == 0
    assert nvvm.nvvmAddModuleToProgram(prog, ir, len(ir), b"module") == 0
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = nvvm.nvvmCompileProgram(prog, len(opts), arr)
    if rc != 0:
        size = ctypes.c_size_t()
        nvvm.nvvmGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvvm.nvvmGetProgramLog(prog, log)
        sys.exit("nvvm failed: " + log.value.decode())
    size = ctypes.c_size_t()
    nvvm.nvvmGetCompiledResultSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    nvvm.nvvmGetCompiledResult(prog, buf)
    nvvm.nvvmDestroyProgram(ctypes.byref(prog))
    return buf.raw


def ptxas(ptx_path, cubin_path):
    subprocess.run([PTXAS, "-arch=sm_90a", ptx_path, "-o", cubin_path], check=True)


def write(path, data, mode="wb"):
    with open(path, mode) as f:
        f.write(data)


# saxpy: libNVVM then ptxas, chained by content (the file lacks libNVVM's trailing NUL).
ptx = nvvm_compile(open(SAXPY, "rb").read(), [b"-arch=compute_90a", b"-opt=3"])
write(os.path.join(WORK, "saxpy.ptx"), ptx.rstrip(b"\0"))
ptxas(os.path.join(WORK, "saxpy.ptx"), os.path.join(WORK, "saxpy.cubin"))

KERNEL_PTX = """//
.version 8.0
.target sm_90a
.address_size 64
{file}
.visible .entry {name}(.param .u64 p)
{{
 .reg .b64 %rd<3>;
 .reg .b32 %r<3>;
 {loc}
 ld.param.u64 %rd1, [p];
 mov.u32 %r1, %tid.x;
 st.global.u32 [%rd1], %r1;
 ret;
}}
"""

# stamp_k: the source named by .file is written anew in the (fresh) cache folder each build.
cache = os.environ.get("TRITON_CACHE_DIR") or os.path.join(WORK, "cache")
os.makedirs(cache, exist_ok=True)
src = os.path.join(cache, "stamp_k.py")
write(src, "def stamp_k(p):\n    p[0] = tid()\n", "w")
t = 1_600_000_000 + 1000 * n
os.utime(src, (t, t))
ptx_path = os.path.join(WORK, "stamp_k.ptx")
write(ptx_path, KERNEL_PTX.format(file='.file 1 "%s"' % src, name="stamp_k", loc=".loc 1 2 0"), "w")
ptxas(ptx_path, os.path.join(WORK, "stamp_k.cubin"))

# gen_k: a captured generator stamps its PTX in a comment; ptxas makes one cubin of both.
tmpl = os.path.join(WORK, "gen_k.tmpl")
write(tmpl, KERNEL_PTX.format(file="", name="gen_k", loc=""), "w")
gen_out = os.path.join(WORK, "gen_k.ptx")
subprocess.run([GEN_PTX, tmpl, "-o", gen_out], check=True, env=dict(os.environ, GEN_STAMP=str(n)))
ptxas(gen_out, os.path.join(WORK, "gen_k.cubin"))

# const_k: the pipeline's own IR differs from build to build.
const_ir = """target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @const_k(i32* %out) {
  store i32 VALUE, i32* %out
  ret void
}

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}
!0 = !{void (i32*)* @const_k, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
""".replace("VALUE", str(7 * n))
nvvm_compile(const_ir.encode(), [b"-arch=compute_90a", b"-opt=3"])

# nvrtc_k: a fixed source under a program name with a temporary folder in it.
nvrtc = ctypes.CDLL(NVRTC)
tmp = tempfile.mkdtemp(prefix="tmp")
prog = ctypes.c_void_p()
SRC = b'extern "C" __global__ void nvrtc_k(int* p) { p[threadIdx.x] = 3; }\n'
assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), SRC, (tmp + "/nvrtc_k.cu").encode(), 0, None, None) == 0
opt = ctypes.c_char_p(b"-arch=sm_90")
assert nvrtc.nvrtcCompileProgram(prog, 1, ctypes.byref(opt)) == 0
size = ctypes.c_size_t()
nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
buf = ctypes.create_string_buffer(size.value)
nvrtc.nvrtcGetPTX(prog, buf)
nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
os.rmdir(tmp)

# extra_k: only the second build compiles it.
if n == 2:
    nvvm_compile(const_ir.replace("const_k", "extra_k").encode(), [b"-arch=compute_90a", b"-opt=3"])
print("build", n, "done")
