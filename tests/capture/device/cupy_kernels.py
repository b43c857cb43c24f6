"""CuPy pipeline for kdet capture --builds: RawKernels and elementwise kernels (NVRTC)."""
import cupy as cp

saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}''', "saxpy")
scale = cp.RawKernel(r'''
extern "C" __global__ void scale2(double* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0;
}''', "scale2")
n = 1 << 16
x = cp.arange(n, dtype=cp.float32)
y = cp.ones(n, dtype=cp.float32)
saxpy((n // 256,), (256,), (cp.float32(2), x, y, cp.int32(n)))
d = cp.arange(n, dtype=cp.float64)
scale((n // 256,), (256,), (d, cp.int32(n)))
z = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a * b + 1", "fma1")(x, y)
cp.cuda.Device().synchronize()
print("cupy: ok", float(z[3]))
