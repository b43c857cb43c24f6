; vector_fma.ll: out[i] = fma(a[i], b[i], c) with a grid-stride loop.
; Dialect: modern NVVM IR (opaque `ptr`, global pointers in addrspace(1)),
; for libNVVM -arch=compute_100a at -opt=0..3.
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @vector_fma(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, float %c, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %gdim = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %base = mul i32 %bid, %bdim
  %first = add i32 %base, %tid
  %step = mul i32 %bdim, %gdim
  %any = icmp slt i32 %first, %n
  br i1 %any, label %loop, label %exit

loop:
  %i = phi i32 [ %first, %entry ], [ %i_next, %loop ]
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  %vb = load float, ptr addrspace(1) %pb, align 4
  %r = call float @llvm.fma.f32(float %va, float %vb, float %c)
  store float %r, ptr addrspace(1) %po, align 4
  %i_next = add i32 %i, %step
  %more = icmp slt i32 %i_next, %n
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare float @llvm.fma.f32(float, float, float)

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}

!0 = !{ptr @vector_fma, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
