; histogram.ll: 64-bin byte histogram. Each block clears a shared-memory
; histogram (addrspace(3)), counts its grid-stride share of the input with
; shared atomics, then adds its bins to the global histogram with global
; atomics. Barriers separate the three phases.
; Dialect: modern NVVM IR (opaque `ptr`), for libNVVM -arch=compute_100a
; at -opt=0..3.
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@bins = internal addrspace(3) global [64 x i32] undef, align 4

define void @histogram(ptr addrspace(1) %data, ptr addrspace(1) %hist, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %gdim = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %owns_bin = icmp ult i32 %tid, 64
  %tid64 = zext i32 %tid to i64
  %my_bin = getelementptr inbounds [64 x i32], ptr addrspace(3) @bins, i64 0, i64 %tid64
  br i1 %owns_bin, label %clear, label %cleared

clear:
  store i32 0, ptr addrspace(3) %my_bin, align 4
  br label %cleared

cleared:
  call void @llvm.nvvm.barrier0()
  %base = mul i32 %bid, %bdim
  %first = add i32 %base, %tid
  %step = mul i32 %bdim, %gdim
  %any = icmp slt i32 %first, %n
  br i1 %any, label %count, label %counted

count:
  %i = phi i32 [ %first, %cleared ], [ %i_next, %count ]
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr addrspace(1) %data, i64 %i64
  %byte = load i8, ptr addrspace(1) %p, align 1
  %bin = lshr i8 %byte, 2
  %bin64 = zext i8 %bin to i64
  %slot = getelementptr inbounds [64 x i32], ptr addrspace(3) @bins, i64 0, i64 %bin64
  %old = atomicrmw add ptr addrspace(3) %slot, i32 1 monotonic, align 4
  %i_next = add i32 %i, %step
  %more = icmp slt i32 %i_next, %n
  br i1 %more, label %count, label %counted

counted:
  call void @llvm.nvvm.barrier0()
  br i1 %owns_bin, label %publish, label %exit

publish:
  %local = load i32, ptr addrspace(3) %my_bin, align 4
  %nonzero = icmp ne i32 %local, 0
  br i1 %nonzero, label %add_global, label %exit

add_global:
  %dst = getelementptr inbounds i32, ptr addrspace(1) %hist, i64 %tid64
  %prev = atomicrmw add ptr addrspace(1) %dst, i32 %local monotonic, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}

!0 = !{ptr @histogram, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
