// warp_scan.cu: inclusive prefix sum of each 1024-element block of an int
// array: a warp-level scan with __shfl_up_sync, warp totals combined through
// shared memory, and a second warp scan over the totals.
// For NVRTC: -arch=sm_90 (PTX and cubin) and -arch=compute_90 (PTX only).
// No #include: NVRTC provides the built-in CUDA declarations it needs.

__device__ __forceinline__ int warp_inclusive_scan(int value) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, value, offset);
    if (lane >= static_cast<unsigned>(offset)) {
      value += up;
    }
  }
  return value;
}

extern "C" __global__ void __launch_bounds__(1024)
block_scan(const int* in, int* out, int n) {
  __shared__ int warp_totals[32];
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  int value = warp_inclusive_scan(g < n ? in[g] : 0);
  if (lane == 31u) {
    warp_totals[warp] = value;
  }
  __syncthreads();
  if (warp == 0) {
    const unsigned warps = (blockDim.x + 31u) >> 5;
    int total = lane < warps ? warp_totals[lane] : 0;
    warp_totals[lane] = warp_inclusive_scan(total);
  }
  __syncthreads();
  if (warp > 0) {
    value += warp_totals[warp - 1];
  }
  if (g < n) {
    out[g] = value;
  }
}
