; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

; Function Attrs: mustprogress nofree norecurse nounwind willreturn
define void @add_kernel_0d1d2d3de(ptr addrspace(1) %0, ptr addrspace(1) %1, ptr addrspace(1) %2, i32 %3) local_unnamed_addr #0 !dbg !7 {
  %5 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !10
  %6 = shl i32 %5, 10, !dbg !11
  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !12
  %8 = shl i32 %7, 2, !dbg !13
  %9 = and i32 %8, 508, !dbg !14
  %10 = or i32 %6, %9, !dbg !15
  %11 = icmp slt i32 %10, %3, !dbg !16
  %12 = sext i32 %10 to i64, !dbg !17
  %13 = getelementptr float, ptr addrspace(1) %0, i64 %12, !dbg !18
  %14 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r0", "=r,l,b"(ptr addrspace(1) %13, i1 %11) #2, !dbg !19
  %15 = bitcast i32 %14 to float, !dbg !20
  %16 = getelementptr float, ptr addrspace(1) %1, i64 %12, !dbg !21
  %17 = load float, ptr addrspace(1) %16, align 4, !dbg !22, !tbaa !5
  %18 = fadd float %15, %17, !dbg !23
  %19 = getelementptr float, ptr addrspace(1) %2, i64 %12, !dbg !24
  store float %18, ptr addrspace(1) %19, align 4, !dbg !25
  %20 = shl i32 %7, 3, !dbg !26
  %21 = and i32 %20, 509, !dbg !27
  %22 = or i32 %6, %21, !dbg !28
  %23 = icmp slt i32 %22, %3, !dbg !29
  %24 = sext i32 %22 to i64, !dbg !30
  %25 = getelementptr float, ptr addrspace(1) %0, i64 %24, !dbg !31
  %26 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r1", "=r,l,b"(ptr addrspace(1) %25, i1 %23) #2, !dbg !32
  %27 = bitcast i32 %26 to float, !dbg !33
  %28 = getelementptr float, ptr addrspace(1) %1, i64 %24, !dbg !34
  %29 = load float, ptr addrspace(1) %28, align 4, !dbg !35, !tbaa !5
  %30 = fadd float %27, %29, !dbg !36
  %31 = getelementptr float, ptr addrspace(1) %2, i64 %24, !dbg !37
  store float %30, ptr addrspace(1) %31, align 4, !dbg !38
  %32 = shl i32 %7, 2, !dbg !39
  %33 = and i32 %32, 510, !dbg !40
  %34 = or i32 %6, %33, !dbg !41
  %35 = icmp slt i32 %34, %3, !dbg !42
  %36 = sext i32 %34 to i64, !dbg !43
  %37 = getelementptr float, ptr addrspace(1) %0, i64 %36, !dbg !44
  %38 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r2", "=r,l,b"(ptr addrspace(1) %37, i1 %35) #2, !dbg !45
  %39 = bitcast i32 %38 to float, !dbg !46
  %40 = getelementptr float, ptr addrspace(1) %1, i64 %36, !dbg !47
  %41 = load float, ptr addrspace(1) %40, align 4, !dbg !48, !tbaa !5
  %42 = fadd float %39, %41, !dbg !49
  %43 = getelementptr float, ptr addrspace(1) %2, i64 %36, !dbg !50
  store float %42, ptr addrspace(1) %43, align 4, !dbg !51
  %44 = shl i32 %7, 3, !dbg !52
  %45 = and i32 %44, 511, !dbg !53
  %46 = or i32 %6, %45, !dbg !54
  %47 = icmp slt i32 %46, %3, !dbg !55
  %48 = sext i32 %46 to i64, !dbg !56
  %49 = getelementptr float, ptr addrspace(1) %0, i64 %48, !dbg !57
  %50 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r3", "=r,l,b"(ptr addrspace(1) %49, i1 %47) #2, !dbg !58
  %51 = bitcast i32 %50 to float, !dbg !59
  %52 = getelementptr float, ptr addrspace(1) %1, i64 %48, !dbg !60
  %53 = load float, ptr addrspace(1) %52, align 4, !dbg !61, !tbaa !5
  %54 = fadd float %51, %53, !dbg !62
  %55 = getelementptr float, ptr addrspace(1) %2, i64 %48, !dbg !63
  store float %54, ptr addrspace(1) %55, align 4, !dbg !64
  %56 = shl i32 %7, 2, !dbg !65
  %57 = and i32 %56, 512, !dbg !66
  %58 = or i32 %6, %57, !dbg !67
  %59 = icmp slt i32 %58, %3, !dbg !68
  %60 = sext i32 %58 to i64, !dbg !69
  %61 = getelementptr float, ptr addrspace(1) %0, i64 %60, !dbg !70
  %62 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r4", "=r,l,b"(ptr addrspace(1) %61, i1 %59) #2, !dbg !71
  %63 = bitcast i32 %62 to float, !dbg !72
  %64 = getelementptr float, ptr addrspace(1) %1, i64 %60, !dbg !73
  %65 = load float, ptr addrspace(1) %64, align 4, !dbg !74, !tbaa !5
  %66 = fadd float %63, %65, !dbg !75
  %67 = getelementptr float, ptr addrspace(1) %2, i64 %60, !dbg !76
  store float %66, ptr addrspace(1) %67, align 4, !dbg !77
  %68 = shl i32 %7, 3, !dbg !78
  %69 = and i32 %68, 513, !dbg !79
  %70 = or i32 %6, %69, !dbg !80
  %71 = icmp slt i32 %70, %3, !dbg !81
  %72 = sext i32 %70 to i64, !dbg !82
  %73 = getelementptr float, ptr addrspace(1) %0, i64 %72, !dbg !83
  %74 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ]; // %r5", "=r,l,b"(ptr addrspace(1) %73, i1 %71) #2, !dbg !84
  %75 = bitcast i32 %74 to float, !dbg !85
  %76 = getelementptr float, ptr addrspace(1) %1, i64 %72, !dbg !86
  %77 = load float, ptr addrspace(1) %76, align 4, !dbg !87, !tbaa !5
  %78 = fadd float %75, %77, !dbg !88
  %79 = getelementptr float, ptr addrspace(1) %2, i64 %72, !dbg !89
  store float %78, ptr addrspace(1) %79, align 4, !dbg !90
  %80 = icmp sgt i32 %3, 0, !dbg !91
  br i1 %80, label %81, label %90, !dbg !92

81:                                                ; preds = %4, %81
  %82 = phi i32 [ 0, %4 ], [ %88, %81 ]
  %83 = phi float [ 0.000000e+00, %4 ], [ %87, %81 ]
  %84 = zext i32 %82 to i64, !dbg !93
  %85 = getelementptr float, ptr addrspace(3) @global_smem, i64 %84, !dbg !94
  %86 = load float, ptr addrspace(3) %85, align 4, !dbg !95
  %87 = fadd float %83, %86, !dbg !96
  tail call void @llvm.nvvm.barrier0(), !dbg !97
  %88 = add nuw nsw i32 %82, 1, !dbg !98
  %89 = icmp slt i32 %88, %3, !dbg !99
  br i1 %89, label %81, label %90, !dbg !100

90:                                                ; preds = %81, %4
  %91 = phi float [ 0.000000e+00, %4 ], [ %87, %81 ]
  store float %91, ptr addrspace(3) @global_smem, align 4, !dbg !101
  ret void, !dbg !102
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #3

attributes #0 = { mustprogress nofree norecurse nounwind willreturn "nvvm.reqntid"="128" "target-cpu"="sm_100a" "target-features"="+ptx86,+sm_100a" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { convergent nocallback nounwind }

!llvm.module.flags = !{!0, !1}
!llvm.dbg.cu = !{!2}
!nvvm.annotations = !{!4, !6}
!nvvmir.version = !{!9}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!2 = distinct !DICompileUnit(language: DW_LANG_C, file: !3, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!3 = !DIFile(filename: "add_kernel.py", directory: "/home/user/triton; tests")
!4 = !{ptr @add_kernel_0d1d2d3de, !"kernel", i32 1}
!5 = !{!"float", !8, i64 0}
!6 = !{ptr @add_kernel_0d1d2d3de, !"maxntidx", i32 128}
!7 = distinct !DISubprogram(name: "add_kernel_0d1d2d3de", linkageName: "add_kernel_0d1d2d3de", scope: !3, file: !3, line: 19, type: !103, scopeLine: 19, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2)
!8 = !{!"omnipotent char", !105, i64 0}
!9 = !{i32 2, i32 0}
!103 = !DISubroutineType(cc: DW_CC_normal, types: !104)
!104 = !{}
!105 = !{!"Simple C/C++ TBAA"}
!10 = !DILocation(line: 23, column: 11, scope: !7)
!11 = !DILocation(line: 23, column: 12, scope: !7)
!12 = !DILocation(line: 24, column: 13, scope: !7)
!13 = !DILocation(line: 24, column: 14, scope: !7)
!14 = !DILocation(line: 24, column: 15, scope: !7)
!15 = !DILocation(line: 25, column: 16, scope: !7)
!16 = !DILocation(line: 25, column: 17, scope: !7)
!17 = !DILocation(line: 25, column: 18, scope: !7)
!18 = !DILocation(line: 26, column: 19, scope: !7)
!19 = !DILocation(line: 26, column: 20, scope: !7)
!20 = !DILocation(line: 26, column: 21, scope: !7)
!21 = !DILocation(line: 27, column: 22, scope: !7)
!22 = !DILocation(line: 27, column: 23, scope: !7)
!23 = !DILocation(line: 27, column: 24, scope: !7)
!24 = !DILocation(line: 28, column: 25, scope: !7)
!25 = !DILocation(line: 28, column: 26, scope: !7)
!26 = !DILocation(line: 28, column: 27, scope: !7)
!27 = !DILocation(line: 29, column: 28, scope: !7)
!28 = !DILocation(line: 29, column: 29, scope: !7)
!29 = !DILocation(line: 29, column: 30, scope: !7)
!30 = !DILocation(line: 30, column: 31, scope: !7)
!31 = !DILocation(line: 30, column: 32, scope: !7)
!32 = !DILocation(line: 30, column: 33, scope: !7)
!33 = !DILocation(line: 31, column: 34, scope: !7)
!34 = !DILocation(line: 31, column: 35, scope: !7)
!35 = !DILocation(line: 31, column: 36, scope: !7)
!36 = !DILocation(line: 32, column: 37, scope: !7)
!37 = !DILocation(line: 32, column: 38, scope: !7)
!38 = !DILocation(line: 32, column: 39, scope: !7)
!39 = !DILocation(line: 33, column: 40, scope: !7)
!40 = !DILocation(line: 33, column: 1, scope: !7)
!41 = !DILocation(line: 33, column: 2, scope: !7)
!42 = !DILocation(line: 34, column: 3, scope: !7)
!43 = !DILocation(line: 34, column: 4, scope: !7)
!44 = !DILocation(line: 34, column: 5, scope: !7)
!45 = !DILocation(line: 35, column: 6, scope: !7)
!46 = !DILocation(line: 35, column: 7, scope: !7)
!47 = !DILocation(line: 35, column: 8, scope: !7)
!48 = !DILocation(line: 36, column: 9, scope: !7)
!49 = !DILocation(line: 36, column: 10, scope: !7)
!50 = !DILocation(line: 36, column: 11, scope: !7)
!51 = !DILocation(line: 37, column: 12, scope: !7)
!52 = !DILocation(line: 37, column: 13, scope: !7)
!53 = !DILocation(line: 37, column: 14, scope: !7)
!54 = !DILocation(line: 38, column: 15, scope: !7)
!55 = !DILocation(line: 38, column: 16, scope: !7)
!56 = !DILocation(line: 38, column: 17, scope: !7)
!57 = !DILocation(line: 39, column: 18, scope: !7)
!58 = !DILocation(line: 39, column: 19, scope: !7)
!59 = !DILocation(line: 39, column: 20, scope: !7)
!60 = !DILocation(line: 40, column: 21, scope: !7)
!61 = !DILocation(line: 40, column: 22, scope: !7)
!62 = !DILocation(line: 40, column: 23, scope: !7)
!63 = !DILocation(line: 41, column: 24, scope: !7)
!64 = !DILocation(line: 41, column: 25, scope: !7)
!65 = !DILocation(line: 41, column: 26, scope: !7)
!66 = !DILocation(line: 42, column: 27, scope: !7)
!67 = !DILocation(line: 42, column: 28, scope: !7)
!68 = !DILocation(line: 42, column: 29, scope: !7)
!69 = !DILocation(line: 43, column: 30, scope: !7)
!70 = !DILocation(line: 43, column: 31, scope: !7)
!71 = !DILocation(line: 43, column: 32, scope: !7)
!72 = !DILocation(line: 44, column: 33, scope: !7)
!73 = !DILocation(line: 44, column: 34, scope: !7)
!74 = !DILocation(line: 44, column: 35, scope: !7)
!75 = !DILocation(line: 45, column: 36, scope: !7)
!76 = !DILocation(line: 45, column: 37, scope: !7)
!77 = !DILocation(line: 45, column: 38, scope: !7)
!78 = !DILocation(line: 46, column: 39, scope: !7)
!79 = !DILocation(line: 46, column: 40, scope: !7)
!80 = !DILocation(line: 46, column: 1, scope: !7)
!81 = !DILocation(line: 47, column: 2, scope: !7)
!82 = !DILocation(line: 47, column: 3, scope: !7)
!83 = !DILocation(line: 47, column: 4, scope: !7)
!84 = !DILocation(line: 48, column: 5, scope: !7)
!85 = !DILocation(line: 48, column: 6, scope: !7)
!86 = !DILocation(line: 48, column: 7, scope: !7)
!87 = !DILocation(line: 49, column: 8, scope: !7)
!88 = !DILocation(line: 49, column: 9, scope: !7)
!89 = !DILocation(line: 49, column: 10, scope: !7)
!90 = !DILocation(line: 50, column: 11, scope: !7)
!91 = !DILocation(line: 50, column: 12, scope: !7)
!92 = !DILocation(line: 50, column: 13, scope: !7)
!93 = !DILocation(line: 51, column: 14, scope: !7)
!94 = !DILocation(line: 51, column: 15, scope: !7)
!95 = !DILocation(line: 51, column: 16, scope: !7)
!96 = !DILocation(line: 52, column: 17, scope: !7)
!97 = !DILocation(line: 52, column: 18, scope: !7)
!98 = !DILocation(line: 52, column: 19, scope: !7)
!99 = !DILocation(line: 53, column: 20, scope: !7)
!100 = !DILocation(line: 53, column: 21, scope: !7)
!101 = !DILocation(line: 53, column: 22, scope: !7)
!102 = !DILocation(line: 54, column: 23, scope: !7)
