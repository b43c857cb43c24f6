; saxpy.ll: y[i] = a * x[i] + y[i] for i < n, one element per thread.
; Dialect: LLVM-7-style NVVM IR (typed pointers, values numbered in order),
; for libNVVM -arch=compute_80 / compute_90a at -opt=0..3.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @saxpy(i32 %n, float %a, float* %x, float* %y) {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %2 = mul i32 %0, %1
  %3 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = add i32 %2, %3
  %5 = icmp slt i32 %4, %n
  br i1 %5, label %body, label %exit

body:
  %6 = sext i32 %4 to i64
  %7 = getelementptr inbounds float, float* %x, i64 %6
  %8 = load float, float* %7, align 4
  %9 = getelementptr inbounds float, float* %y, i64 %6
  %10 = load float, float* %9, align 4
  %11 = fmul float %a, %8
  %12 = fadd float %11, %10
  store float %12, float* %9, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}

!0 = !{void (i32, float, float*, float*)* @saxpy, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
