// Two kernels that call a device function defined here and one defined elsewhere.
// calls.ptx is `nvcc -arch=sm_90 -rdc=true -ptx calls.cu -o calls.ptx` (CUDA 13.0). Assembled
// with `ptxas -c` (what nvcc -rdc does) the cubin has EIATTR_EXTERNS (ext_scale) and a .text
// of its own for `twice`, a device function, not a kernel.
extern __device__ float ext_scale(float x);
__device__ __noinline__ float twice(float x) { return x * 2.0f; }
extern "C" __global__ void first(float* p) { p[threadIdx.x] = twice(ext_scale(p[threadIdx.x])); }
extern "C" __global__ void second(float* p, float* q) {
  q[threadIdx.x] = ext_scale(twice(p[threadIdx.x]));
}
