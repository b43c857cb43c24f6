// stencil_1d.cu: 1-D weighted stencil of radius R with the halo staged in
// shared memory. A template parameter sets the radius; two extern "C"
// instantiations give stable, unmangled entry points.
// For NVRTC: -arch=sm_90 (PTX and cubin) and -arch=compute_90 (PTX only).
// No #include: NVRTC provides the built-in CUDA declarations it needs.

constexpr int k_block = 128;

template <int R>
__device__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n,
                        const float* __restrict__ weights) {
  __shared__ float window[k_block + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  window[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    int left = g - R;
    int right = g + k_block;
    window[l - R] = left >= 0 && left < n ? in[left] : 0.0f;
    window[l + k_block] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g >= n) {
    return;
  }
  float acc = 0.0f;
#pragma unroll
  for (int k = -R; k <= R; ++k) {
    acc = fmaf(weights[k + R], window[l + k], acc);
  }
  out[g] = acc;
}

extern "C" __global__ void __launch_bounds__(k_block)
stencil_r3(const float* in, float* out, int n, const float* weights) {
  stencil<3>(in, out, n, weights);
}

extern "C" __global__ void __launch_bounds__(k_block)
stencil_r8(const float* in, float* out, int n, const float* weights) {
  stencil<8>(in, out, n, weights);
}
