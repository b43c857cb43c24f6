; two_kernels.ll: test input for the diff tests: two kernels and a noinline
; device function (so the PTX has a .func), with a module-level constant.
; Dialect: LLVM-7-style NVVM IR for libNVVM -arch=compute_90a.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@scale = internal addrspace(4) constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 4

define internal float @poly(float %x, float %c) #0 {
entry:
  %0 = fmul float %x, %x
  %1 = fmul float %0, %c
  %2 = fadd float %1, 3.500000e+00
  %3 = fdiv float %2, %x
  ret float %3
}

define void @scale_add(float* %out, float* %in, i32 %n) {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = icmp slt i32 %0, %n
  br i1 %1, label %body, label %exit

body:
  %2 = sext i32 %0 to i64
  %3 = getelementptr inbounds float, float* %in, i64 %2
  %4 = load float, float* %3, align 4
  %5 = and i32 %0, 3
  %6 = zext i32 %5 to i64
  %7 = getelementptr inbounds [4 x float], [4 x float] addrspace(4)* @scale, i64 0, i64 %6
  %8 = load float, float addrspace(4)* %7, align 4
  %9 = call float @poly(float %4, float %8)
  %10 = getelementptr inbounds float, float* %out, i64 %2
  store float %9, float* %10, align 4
  br label %exit

exit:
  ret void
}

define void @mix(float* %out, float* %a, float* %b, i32 %n) {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %2 = mul i32 %1, 256
  %3 = add i32 %2, %0
  %4 = icmp slt i32 %3, %n
  br i1 %4, label %body, label %exit

body:
  %5 = sext i32 %3 to i64
  %6 = getelementptr inbounds float, float* %a, i64 %5
  %7 = load float, float* %6, align 4
  %8 = getelementptr inbounds float, float* %b, i64 %5
  %9 = load float, float* %8, align 4
  %10 = call float @poly(float %7, float %9)
  %11 = fmul float %10, 1.250000e-01
  %12 = getelementptr inbounds float, float* %out, i64 %5
  store float %11, float* %12, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

attributes #0 = { noinline }

!nvvm.annotations = !{!0, !1}
!nvvmir.version = !{!2}

!0 = !{void (float*, float*, i32)* @scale_add, !"kernel", i32 1}
!1 = !{void (float*, float*, float*, i32)* @mix, !"kernel", i32 1}
!2 = !{i32 2, i32 0}
