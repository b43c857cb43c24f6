; expf_libdevice.ll: y[i] = expf(x[i]) through libdevice's __nv_expf, which the
; program gets only when libdevice is added (lazily, as numba does).
; Dialect: LLVM-7-style NVVM IR (typed pointers), for libNVVM -arch=compute_90a.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @expf_kernel(float* %x, float* %y) {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = sext i32 %0 to i64
  %2 = getelementptr inbounds float, float* %x, i64 %1
  %3 = load float, float* %2, align 4
  %4 = call float @__nv_expf(float %3)
  %5 = getelementptr inbounds float, float* %y, i64 %1
  store float %4, float* %5, align 4
  ret void
}

declare float @__nv_expf(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}

!0 = !{void (float*, float*)* @expf_kernel, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
