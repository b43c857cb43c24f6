; tiled_matmul.ll: C = A * B for square row-major n x n float matrices,
; 16x16 thread blocks, 16x16 tiles of A and B staged in shared memory.
; Two nested loops (over tiles, and over k inside a tile) with barriers.
; Dialect: LLVM-7-style NVVM IR (typed pointers), for libNVVM
; -arch=compute_80 / compute_90a at -opt=0..3.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile_a = internal addrspace(3) global [16 x [16 x float]] undef, align 4
@tile_b = internal addrspace(3) global [16 x [16 x float]] undef, align 4

; Loads m[row * n + col], or 0.0 when (row, col) lies outside the matrix.
define internal float @load_or_zero(float* %m, i32 %n, i32 %row, i32 %col) {
entry:
  %row_ok = icmp slt i32 %row, %n
  %col_ok = icmp slt i32 %col, %n
  %ok = and i1 %row_ok, %col_ok
  br i1 %ok, label %load, label %done

load:
  %rown = mul i32 %row, %n
  %idx = add i32 %rown, %col
  %idx64 = sext i32 %idx to i64
  %ptr = getelementptr inbounds float, float* %m, i64 %idx64
  %v = load float, float* %ptr, align 4
  br label %done

done:
  %r = phi float [ %v, %load ], [ 0.000000e+00, %entry ]
  ret float %r
}

define void @tiled_matmul(float* %a, float* %b, float* %c, i32 %n) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %bx16 = shl i32 %bx, 4
  %by16 = shl i32 %by, 4
  %col = add i32 %bx16, %tx
  %row = add i32 %by16, %ty
  %n15 = add i32 %n, 15
  %tiles = sdiv i32 %n15, 16
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %a_slot = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile_a, i64 0, i64 %ty64, i64 %tx64
  %b_slot = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile_b, i64 0, i64 %ty64, i64 %tx64
  br label %tile_head

tile_head:
  %t = phi i32 [ 0, %entry ], [ %t_next, %tile_end ]
  %acc = phi float [ 0.000000e+00, %entry ], [ %acc_tile, %tile_end ]
  %tile_more = icmp slt i32 %t, %tiles
  br i1 %tile_more, label %tile_load, label %store

tile_load:
  %t16 = shl i32 %t, 4
  %a_col = add i32 %t16, %tx
  %b_row = add i32 %t16, %ty
  %a_val = call float @load_or_zero(float* %a, i32 %n, i32 %row, i32 %a_col)
  %b_val = call float @load_or_zero(float* %b, i32 %n, i32 %b_row, i32 %col)
  store float %a_val, float addrspace(3)* %a_slot, align 4
  store float %b_val, float addrspace(3)* %b_slot, align 4
  call void @llvm.nvvm.barrier0()
  br label %k_head

k_head:
  %k = phi i32 [ 0, %tile_load ], [ %k_next, %k_body ]
  %acc_k = phi float [ %acc, %tile_load ], [ %acc_next, %k_body ]
  %k_more = icmp slt i32 %k, 16
  br i1 %k_more, label %k_body, label %tile_end

k_body:
  %k64 = zext i32 %k to i64
  %a_ptr = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile_a, i64 0, i64 %ty64, i64 %k64
  %b_ptr = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile_b, i64 0, i64 %k64, i64 %tx64
  %a_k = load float, float addrspace(3)* %a_ptr, align 4
  %b_k = load float, float addrspace(3)* %b_ptr, align 4
  %prod = fmul float %a_k, %b_k
  %acc_next = fadd float %acc_k, %prod
  %k_next = add nuw nsw i32 %k, 1
  br label %k_head

tile_end:
  %acc_tile = phi float [ %acc_k, %k_head ]
  call void @llvm.nvvm.barrier0()
  %t_next = add nsw i32 %t, 1
  br label %tile_head

store:
  %row_ok = icmp slt i32 %row, %n
  %col_ok = icmp slt i32 %col, %n
  %ok = and i1 %row_ok, %col_ok
  br i1 %ok, label %write, label %exit

write:
  %rown = mul i32 %row, %n
  %idx = add i32 %rown, %col
  %idx64 = sext i32 %idx to i64
  %dst = getelementptr inbounds float, float* %c, i64 %idx64
  store float %acc, float* %dst, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1, !2}
!nvvmir.version = !{!3}

!0 = !{void (float*, float*, float*, i32)* @tiled_matmul, !"kernel", i32 1}
!1 = !{void (float*, float*, float*, i32)* @tiled_matmul, !"maxntidx", i32 16}
!2 = !{void (float*, float*, float*, i32)* @tiled_matmul, !"maxntidy", i32 16}
!3 = !{i32 2, i32 0}
