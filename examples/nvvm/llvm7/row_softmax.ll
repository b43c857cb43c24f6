; row_softmax.ll: numerically stable softmax of each row of a rows x cols
; row-major float matrix, one thread per row: a max pass (llvm.nvvm.fmax.f),
; an exp-and-sum pass (exp(x) = ex2(x * log2(e)) via llvm.nvvm.ex2.approx.f)
; and a normalising pass (llvm.nvvm.rcp.rn.f). Rows whose sum is not positive
; are written as zeros. libdevice is not linked, so no __nv_* calls.
; Dialect: LLVM-7-style NVVM IR (typed pointers), for libNVVM
; -arch=compute_80 / compute_90a at -opt=0..3.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @row_softmax(float* %in, float* %out, i32 %rows, i32 %cols) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %row = add i32 %base, %tid
  %row_ok = icmp slt i32 %row, %rows
  %cols_ok = icmp sgt i32 %cols, 0
  %ok = and i1 %row_ok, %cols_ok
  br i1 %ok, label %setup, label %exit

setup:
  %start = mul i32 %row, %cols
  %start64 = sext i32 %start to i64
  %src_row = getelementptr inbounds float, float* %in, i64 %start64
  %dst_row = getelementptr inbounds float, float* %out, i64 %start64
  br label %max_loop

max_loop:
  %i = phi i32 [ 0, %setup ], [ %i_next, %max_loop ]
  %m = phi float [ 0xFFF0000000000000, %setup ], [ %m_next, %max_loop ]
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds float, float* %src_row, i64 %i64
  %x = load float, float* %p, align 4
  %m_next = call float @llvm.nvvm.fmax.f(float %m, float %x)
  %i_next = add nuw nsw i32 %i, 1
  %max_more = icmp slt i32 %i_next, %cols
  br i1 %max_more, label %max_loop, label %exp_setup

exp_setup:
  %m_scaled = fmul float %m_next, 0x3FF7154760000000
  br label %exp_loop

exp_loop:
  %j = phi i32 [ 0, %exp_setup ], [ %j_next, %exp_loop ]
  %s = phi float [ 0.000000e+00, %exp_setup ], [ %s_next, %exp_loop ]
  %j64 = zext i32 %j to i64
  %q = getelementptr inbounds float, float* %src_row, i64 %j64
  %y = load float, float* %q, align 4
  %y_scaled = fmul float %y, 0x3FF7154760000000
  %arg = fsub float %y_scaled, %m_scaled
  %e = call float @llvm.nvvm.ex2.approx.f(float %arg)
  %d = getelementptr inbounds float, float* %dst_row, i64 %j64
  store float %e, float* %d, align 4
  %s_next = fadd float %s, %e
  %j_next = add nuw nsw i32 %j, 1
  %exp_more = icmp slt i32 %j_next, %cols
  br i1 %exp_more, label %exp_loop, label %check_sum

check_sum:
  %positive = fcmp ogt float %s_next, 0.000000e+00
  br i1 %positive, label %norm_setup, label %zero_loop

norm_setup:
  %inv = call float @llvm.nvvm.rcp.rn.f(float %s_next)
  br label %norm_loop

norm_loop:
  %k = phi i32 [ 0, %norm_setup ], [ %k_next, %norm_loop ]
  %k64 = zext i32 %k to i64
  %r = getelementptr inbounds float, float* %dst_row, i64 %k64
  %ek = load float, float* %r, align 4
  %scaled = fmul float %ek, %inv
  store float %scaled, float* %r, align 4
  %k_next = add nuw nsw i32 %k, 1
  %norm_more = icmp slt i32 %k_next, %cols
  br i1 %norm_more, label %norm_loop, label %exit

zero_loop:
  %z = phi i32 [ 0, %check_sum ], [ %z_next, %zero_loop ]
  %z64 = zext i32 %z to i64
  %zp = getelementptr inbounds float, float* %dst_row, i64 %z64
  store float 0.000000e+00, float* %zp, align 4
  %z_next = add nuw nsw i32 %z, 1
  %zero_more = icmp slt i32 %z_next, %cols
  br i1 %zero_more, label %zero_loop, label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare float @llvm.nvvm.fmax.f(float, float)
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.nvvm.rcp.rn.f(float)

!nvvm.annotations = !{!0}
!nvvmir.version = !{!1}

!0 = !{void (float*, float*, i32, i32)* @row_softmax, !"kernel", i32 1}
!1 = !{i32 2, i32 0}
