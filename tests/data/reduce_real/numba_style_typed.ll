target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
@"_ZN6cudapy4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1__errcode__" = global i32 0
@".const.msg; %not @a name" = internal addrspace(1) constant [17 x i8] c"index; %d @ {x}\0A\00"
@"kdet.table" = internal addrspace(1) global [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 4
define internal i32 @"_ZN4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1"(float* noalias nocapture %".out", float* noalias nocapture readonly %"arg.x", i32 %"arg.n", float %"arg.a") #0 !dbg !10
{
entry:
  %".tid" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"(), !dbg !20, !range !30
  %".ctaid" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"(), !dbg !20
  %".ntid" = call i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"(), !dbg !20
  %".base" = mul i32 %".ctaid", %".ntid", !dbg !21
  %".i" = add i32 %".base", %".tid", !dbg !21
  %".inb" = icmp slt i32 %".i", %"arg.n", !dbg !22
  br i1 %".inb", label %"B.body", label %"B.exit", !dbg !22
"B.body":
  %".i64" = sext i32 %".i" to i64, !dbg !23
  %".p0" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !23
  %".x0" = load float, float* %".p0", align 4, !dbg !23
  %".t0" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 0, !dbg !23
  %".c0" = load float, float addrspace(1)* %".t0", align 4, !dbg !23
  %".m0" = fmul float %".x0", %".c0", !dbg !23
  %".s0" = fadd float %"arg.a", %".m0", !dbg !23
  %".p1" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !24
  %".x1" = load float, float* %".p1", align 4, !dbg !24
  %".t1" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 1, !dbg !24
  %".c1" = load float, float addrspace(1)* %".t1", align 4, !dbg !24
  %".m1" = fmul float %".x1", %".c1", !dbg !24
  %".s1" = fadd float %".s0", %".m1", !dbg !24
  %".p2" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !25
  %".x2" = load float, float* %".p2", align 4, !dbg !25
  %".t2" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 2, !dbg !25
  %".c2" = load float, float addrspace(1)* %".t2", align 4, !dbg !25
  %".m2" = fmul float %".x2", %".c2", !dbg !25
  %".s2" = fadd float %".s1", %".m2", !dbg !25
  %".p3" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !26
  %".x3" = load float, float* %".p3", align 4, !dbg !26
  %".t3" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 3, !dbg !26
  %".c3" = load float, float addrspace(1)* %".t3", align 4, !dbg !26
  %".m3" = fmul float %".x3", %".c3", !dbg !26
  %".s3" = fadd float %".s2", %".m3", !dbg !26
  %".p4" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !23
  %".x4" = load float, float* %".p4", align 4, !dbg !23
  %".t4" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 0, !dbg !23
  %".c4" = load float, float addrspace(1)* %".t4", align 4, !dbg !23
  %".m4" = fmul float %".x4", %".c4", !dbg !23
  %".s4" = fadd float %".s3", %".m4", !dbg !23
  %".p5" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !24
  %".x5" = load float, float* %".p5", align 4, !dbg !24
  %".t5" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 1, !dbg !24
  %".c5" = load float, float addrspace(1)* %".t5", align 4, !dbg !24
  %".m5" = fmul float %".x5", %".c5", !dbg !24
  %".s5" = fadd float %".s4", %".m5", !dbg !24
  %".p6" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !25
  %".x6" = load float, float* %".p6", align 4, !dbg !25
  %".t6" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 2, !dbg !25
  %".c6" = load float, float addrspace(1)* %".t6", align 4, !dbg !25
  %".m6" = fmul float %".x6", %".c6", !dbg !25
  %".s6" = fadd float %".s5", %".m6", !dbg !25
  %".p7" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !26
  %".x7" = load float, float* %".p7", align 4, !dbg !26
  %".t7" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 3, !dbg !26
  %".c7" = load float, float addrspace(1)* %".t7", align 4, !dbg !26
  %".m7" = fmul float %".x7", %".c7", !dbg !26
  %".s7" = fadd float %".s6", %".m7", !dbg !26
  %".p8" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !23
  %".x8" = load float, float* %".p8", align 4, !dbg !23
  %".t8" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 0, !dbg !23
  %".c8" = load float, float addrspace(1)* %".t8", align 4, !dbg !23
  %".m8" = fmul float %".x8", %".c8", !dbg !23
  %".s8" = fadd float %".s7", %".m8", !dbg !23
  %".p9" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !24
  %".x9" = load float, float* %".p9", align 4, !dbg !24
  %".t9" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 1, !dbg !24
  %".c9" = load float, float addrspace(1)* %".t9", align 4, !dbg !24
  %".m9" = fmul float %".x9", %".c9", !dbg !24
  %".s9" = fadd float %".s8", %".m9", !dbg !24
  %".p10" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !25
  %".x10" = load float, float* %".p10", align 4, !dbg !25
  %".t10" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 2, !dbg !25
  %".c10" = load float, float addrspace(1)* %".t10", align 4, !dbg !25
  %".m10" = fmul float %".x10", %".c10", !dbg !25
  %".s10" = fadd float %".s9", %".m10", !dbg !25
  %".p11" = getelementptr inbounds float, float* %"arg.x", i64 %".i64", !dbg !26
  %".x11" = load float, float* %".p11", align 4, !dbg !26
  %".t11" = getelementptr [4 x float], [4 x float] addrspace(1)* @"kdet.table", i64 0, i64 3, !dbg !26
  %".c11" = load float, float addrspace(1)* %".t11", align 4, !dbg !26
  %".m11" = fmul float %".x11", %".c11", !dbg !26
  %".s11" = fadd float %".s10", %".m11", !dbg !26
  %".sel" = and i32 %".i", 3, !dbg !27
  switch i32 %".sel", label %"B.store" [
    i32 0, label %"B.zero"
    i32 1, label %"B.one"
  ], !dbg !27
"B.zero":
  %".z" = fmul float %".s11", 5.000000e-01, !dbg !28
  br label %"B.store", !dbg !28
"B.one":
  %".o" = fadd float %".s11", 1.000000e+00, !dbg !28
  br label %"B.store", !dbg !28
"B.store":
  %".v" = phi float [ %".s11", %"B.body" ], [ %".z", %"B.zero" ], [ %".o", %"B.one" ]
  %".q" = getelementptr inbounds float, float* %".out", i64 %".i64", !dbg !29
  store float %".v", float* %".q", align 4, !dbg !29
  br label %"B.exit", !dbg !29
"B.exit":
  ret i32 0, !dbg !29
}
define void @"_ZN6cudapy4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1"(float* %".1", float* %".2", i32 %".3", float %".4") #1 !dbg !40
{
".24":
  %".5" = call i32 @"_ZN4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1"(float* %".1", float* %".2", i32 %".3", float %".4"), !dbg !41
  %".6" = icmp eq i32 %".5", 0, !dbg !41
  br i1 %".6", label %".25", label %".26", !dbg !41
".25":
  ret void, !dbg !41
".26":
  store i32 %".5", i32* @"_ZN6cudapy4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1__errcode__", !dbg !41
  ret void, !dbg !41
}
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"() #2
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"() #2
declare i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"() #2
attributes #0 = { alwaysinline nounwind "no-frame-pointer-elim"="false" "no-infs-fp-math"="false" "no-nans-fp-math"="false" "unsafe-fp-math"="false" "use-soft-float"="false" }
attributes #1 = { nounwind "nvptx-f32ftz"="false" "target-features"="+ptx60" }
attributes #2 = { nounwind readnone }
!nvvmir.version = !{ !0 }
!llvm.dbg.cu = !{ !2 }
!llvm.module.flags = !{ !4, !5 }
!nvvm.annotations = !{ !6 }
!0 = !{ i32 2, i32 0, i32 3, i32 0 }
!1 = !DIFile(directory: "/srv/app", filename: "demo.py")
!2 = distinct !DICompileUnit(emissionKind: FullDebug, file: !1, isOptimized: true, language: DW_LANG_C_plus_plus, producer: "clang (Numba)", runtimeVersion: 0)
!3 = !DISubroutineType(types: !7)
!4 = !{ i32 2, !"Dwarf Version", i32 4 }
!5 = !{ i32 2, !"Debug Info Version", i32 3 }
!6 = !{ void (float*, float*, i32, float)* @"_ZN6cudapy4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1", !"kernel", i32 1 }
!7 = !{ }
!10 = distinct !DISubprogram(file: !1, isDefinition: true, isLocal: false, isOptimized: true, line: 10, linkageName: "_ZN4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1", name: "kernel", scope: !1, scopeLine: 10, type: !3, unit: !2)
!20 = !DILocation(column: 1, line: 11, scope: !10)
!21 = !DILocation(column: 2, line: 12, scope: !10)
!22 = !DILocation(column: 3, line: 13, scope: !10)
!23 = !DILocation(column: 4, line: 14, scope: !10)
!24 = !DILocation(column: 5, line: 15, scope: !10)
!25 = !DILocation(column: 6, line: 16, scope: !10)
!26 = !DILocation(column: 7, line: 17, scope: !10)
!27 = !DILocation(column: 8, line: 18, scope: !10)
!28 = !DILocation(column: 9, line: 19, scope: !10)
!29 = !DILocation(column: 10, line: 20, scope: !10)
!30 = !{ i32 0, i32 1024 }
!40 = distinct !DISubprogram(file: !1, isDefinition: true, isLocal: false, isOptimized: true, line: 10, linkageName: "_ZN6cudapy4demo6kernel_ZN5numba4demo12scale_addIfLi128EE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEB2v1", name: "kernel", scope: !1, scopeLine: 10, type: !3, unit: !2)
!41 = !DILocation(column: 1, line: 10, scope: !40)
