; block_reduce.ll: per-block sum of a float array via shared memory.
; Each block of up to 256 threads loads one element per thread into shared
; memory (addrspace(3)), halves the active range with a barrier per step and
; thread 0 writes the block's partial sum to out[blockIdx.x].
; Dialect: LLVM-7-style NVVM IR (typed pointers), for libNVVM
; -arch=compute_80 / compute_90a at -opt=0..3.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@partial = internal addrspace(3) global [256 x float] undef, align 4

define void @block_reduce(float* %in, float* %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %gid = add i32 %base, %tid
  %inside = icmp slt i32 %gid, %n
  br i1 %inside, label %load, label %store_shared

load:
  %gid64 = sext i32 %gid to i64
  %src = getelementptr inbounds float, float* %in, i64 %gid64
  %loaded = load float, float* %src, align 4
  br label %store_shared

store_shared:
  %value = phi float [ %loaded, %load ], [ 0.000000e+00, %entry ]
  %tid64 = zext i32 %tid to i64
  %slot = getelementptr inbounds [256 x float], [256 x float] addrspace(3)* @partial, i64 0, i64 %tid64
  store float %value, float addrspace(3)* %slot, align 4
  call void @llvm.nvvm.barrier0()
  %half0 = lshr i32 %bdim, 1
  br label %loop_head

loop_head:
  %stride = phi i32 [ %half0, %store_shared ], [ %next_stride, %loop_sync ]
  %more = icmp ne i32 %stride, 0
  br i1 %more, label %loop_body, label %finish

loop_body:
  %active = icmp ult i32 %tid, %stride
  br i1 %active, label %accumulate, label %loop_sync

accumulate:
  %other = add i32 %tid, %stride
  %other64 = zext i32 %other to i64
  %other_slot = getelementptr inbounds [256 x float], [256 x float] addrspace(3)* @partial, i64 0, i64 %other64
  %mine = load float, float addrspace(3)* %slot, align 4
  %theirs = load float, float addrspace(3)* %other_slot, align 4
  %sum = fadd float %mine, %theirs
  store float %sum, float addrspace(3)* %slot, align 4
  br label %loop_sync

loop_sync:
  call void @llvm.nvvm.barrier0()
  %next_stride = lshr i32 %stride, 1
  br label %loop_head

finish:
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %write, label %exit

write:
  %first = getelementptr inbounds [256 x float], [256 x float] addrspace(3)* @partial, i64 0, i64 0
  %total = load float, float addrspace(3)* %first, align 4
  %bid64 = zext i32 %bid to i64
  %dst = getelementptr inbounds float, float* %out, i64 %bid64
  store float %total, float* %dst, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1}
!nvvmir.version = !{!2}

!0 = !{void (float*, float*, i32)* @block_reduce, !"kernel", i32 1}
!1 = !{void (float*, float*, i32)* @block_reduce, !"maxntidx", i32 256}
!2 = !{i32 2, i32 0}
