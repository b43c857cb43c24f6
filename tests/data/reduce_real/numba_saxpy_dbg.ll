target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

@"_ZN08NumbaEnv8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE" = common global i8* null
define weak_odr i32 @"_ZN8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE"(i8** %".ret", float %"arg.a", i8* %"arg.x.0", i8* %"arg.x.1", i64 %"arg.x.2", i64 %"arg.x.3", float* %"arg.x.4", i64 %"arg.x.5.0", i64 %"arg.x.6.0", i8* %"arg.y.0", i8* %"arg.y.1", i64 %"arg.y.2", i64 %"arg.y.3", float* %"arg.y.4", i64 %"arg.y.5.0", i64 %"arg.y.6.0", i8* %"arg.out.0", i8* %"arg.out.1", i64 %"arg.out.2", i64 %"arg.out.3", float* %"arg.out.4", i64 %"arg.out.5.0", i64 %"arg.out.6.0") noinline !dbg !74
{
entry:
  %"inserted.meminfo" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %"arg.x.0", 0
  %"inserted.parent" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo", i8* %"arg.x.1", 1
  %"inserted.nitems" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent", i64 %"arg.x.2", 2
  %"inserted.itemsize" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems", i64 %"arg.x.3", 3
  %"inserted.data" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize", float* %"arg.x.4", 4
  %".25" = insertvalue [1 x i64] undef, i64 %"arg.x.5.0", 0
  %"inserted.shape" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data", [1 x i64] %".25", 5
  %".26" = insertvalue [1 x i64] undef, i64 %"arg.x.6.0", 0
  %"inserted.strides" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape", [1 x i64] %".26", 6
  %"inserted.meminfo.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %"arg.y.0", 0
  %"inserted.parent.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo.1", i8* %"arg.y.1", 1
  %"inserted.nitems.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent.1", i64 %"arg.y.2", 2
  %"inserted.itemsize.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems.1", i64 %"arg.y.3", 3
  %"inserted.data.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize.1", float* %"arg.y.4", 4
  %".27" = insertvalue [1 x i64] undef, i64 %"arg.y.5.0", 0
  %"inserted.shape.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data.1", [1 x i64] %".27", 5
  %".28" = insertvalue [1 x i64] undef, i64 %"arg.y.6.0", 0
  %"inserted.strides.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape.1", [1 x i64] %".28", 6
  %"inserted.meminfo.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %"arg.out.0", 0
  %"inserted.parent.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo.2", i8* %"arg.out.1", 1
  %"inserted.nitems.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent.2", i64 %"arg.out.2", 2
  %"inserted.itemsize.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems.2", i64 %"arg.out.3", 3
  %"inserted.data.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize.2", float* %"arg.out.4", 4
  %".29" = insertvalue [1 x i64] undef, i64 %"arg.out.5.0", 0
  %"inserted.shape.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data.2", [1 x i64] %".29", 5
  %".30" = insertvalue [1 x i64] undef, i64 %"arg.out.6.0", 0
  %"inserted.strides.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape.2", [1 x i64] %".30", 6
  %"a" = alloca float
  store float 0.0, float* %"a"
  %"x" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x"
  %"y" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y"
  %"out" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out"
  %"$4load_global.0" = alloca i8*
  store i8* null, i8** %"$4load_global.0"
  %"$16load_attr.2" = alloca i8*
  store i8* null, i8** %"$16load_attr.2"
  %"$const26.3" = alloca i64
  store i64 0, i64* %"$const26.3"
  %"i" = alloca i32
  store i32 0, i32* %"i"
  %".71" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".71"
  %"$48load_attr.7" = alloca i64
  store i64 0, i64* %"$48load_attr.7"
  %"$58compare_op.8" = alloca i1
  store i1 0, i1* %"$58compare_op.8"
  %"bool64" = alloca i8*
  store i8* null, i8** %"bool64"
  %"$64pred" = alloca i1
  store i1 0, i1* %"$64pred"
  %".108" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108"
  %"$72binary_subscr.3" = alloca float
  store float 0.0, float* %"$72binary_subscr.3"
  %"$binop_mul82.4" = alloca float
  store float 0.0, float* %"$binop_mul82.4"
  %".156" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156"
  %"$90binary_subscr.7" = alloca float
  store float 0.0, float* %"$90binary_subscr.7"
  %"$binop_add100.8" = alloca float
  store float 0.0, float* %"$binop_add100.8"
  %".205" = alloca {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205"
  %"$const112.11" = alloca i8*
  store i8* null, i8** %"$const112.11"
  %"$114return_value.12" = alloca i8*
  store i8* null, i8** %"$114return_value.12"
  %"$const116.0" = alloca i8*
  store i8* null, i8** %"$const116.0"
  %"$118return_value.1" = alloca i8*
  store i8* null, i8** %"$118return_value.1"
  br label %"B0"
B0:
  store float %"arg.a", float* %"a"
  call void @"llvm.dbg.declare"(metadata float* %"a", metadata !77, metadata !78), !dbg !75
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x"
  call void @"llvm.dbg.declare"(metadata {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x", metadata !100, metadata !78), !dbg !75
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y"
  call void @"llvm.dbg.declare"(metadata {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y", metadata !122, metadata !78), !dbg !75
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out"
  call void @"llvm.dbg.declare"(metadata {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out", metadata !144, metadata !78), !dbg !75
  %".44" = load i8*, i8** %"$4load_global.0", !dbg !145
  store i8* null, i8** %"$4load_global.0", !dbg !145
  %".46" = load i8*, i8** %"$4load_global.0", !dbg !145
  %".48" = load i8*, i8** %"$16load_attr.2", !dbg !145
  store i8* null, i8** %"$16load_attr.2", !dbg !145
  %".50" = load i8*, i8** %"$4load_global.0", !dbg !145
  store i8* null, i8** %"$4load_global.0", !dbg !145
  %".53" = load i64, i64* %"$const26.3", !dbg !145
  store i64 1, i64* %"$const26.3", !dbg !145
  %".55" = load i64, i64* %"$const26.3", !dbg !145
  %".56" = trunc i64 1 to i32 , !dbg !145
  %".57" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"(), !dbg !145
  %".58" = call i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"(), !dbg !145
  %".59" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"(), !dbg !145
  %".60" = mul i32 %".58", %".59", !dbg !145
  %".61" = add i32 %".60", %".57", !dbg !145
  call void @"llvm.dbg.declare"(metadata i32* %"i", metadata !147, metadata !78), !dbg !145
  %".64" = load i32, i32* %"i", !dbg !145
  store i32 %".61", i32* %"i", !dbg !145
  %".66" = load i64, i64* %"$const26.3", !dbg !145
  store i64 0, i64* %"$const26.3", !dbg !145
  %".68" = load i8*, i8** %"$16load_attr.2", !dbg !145
  store i8* null, i8** %"$16load_attr.2", !dbg !145
  %".70" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out"
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".71"
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %".70", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".71", !dbg !148
  %".75" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".71", i32 0, i32 2 , !dbg !148
  %".76" = load i64, i64* %".75", !dbg !148
  %".78" = load i64, i64* %"$48load_attr.7", !dbg !148
  store i64 %".76", i64* %"$48load_attr.7", !dbg !148
  %".80" = load i32, i32* %"i", !dbg !148
  %".81" = load i64, i64* %"$48load_attr.7", !dbg !148
  %".82" = sext i32 %".80" to i64 , !dbg !148
  %".83" = icmp slt i64 %".82", %".81" , !dbg !148
  %".85" = load i1, i1* %"$58compare_op.8", !dbg !148
  store i1 %".83", i1* %"$58compare_op.8", !dbg !148
  %".87" = load i64, i64* %"$48load_attr.7", !dbg !148
  store i64 0, i64* %"$48load_attr.7", !dbg !148
  call void @"llvm.dbg.declare"(metadata i8** %"bool64", metadata !151, metadata !78), !dbg !148
  %".91" = load i8*, i8** %"bool64", !dbg !148
  store i8* null, i8** %"bool64", !dbg !148
  %".93" = load i1, i1* %"$58compare_op.8", !dbg !148
  %".95" = load i1, i1* %"$64pred", !dbg !148
  store i1 %".93", i1* %"$64pred", !dbg !148
  %".97" = load i8*, i8** %"bool64", !dbg !148
  store i8* null, i8** %"bool64", !dbg !148
  %".99" = load i1, i1* %"$58compare_op.8", !dbg !148
  store i1 0, i1* %"$58compare_op.8", !dbg !148
  %".101" = load i1, i1* %"$64pred", !dbg !148
  br i1 %".101", label %"B66", label %"B116", !dbg !148
B66:
  %".103" = load i1, i1* %"$64pred", !dbg !152
  store i1 0, i1* %"$64pred", !dbg !152
  %".105" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x"
  %".106" = load i32, i32* %"i", !dbg !152
  %".107" = sext i32 %".106" to i64 , !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108"
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %".105", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", !dbg !152
  %".112" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", i32 0, i32 5 , !dbg !152
  %".113" = getelementptr inbounds [1 x i64], [1 x i64]* %".112", i32 0, i32 0 , !dbg !152
  %".114" = load i64, i64* %".113", !dbg !152, !range !153
  %".115" = insertvalue [1 x i64] undef, i64 %".114", 0 , !dbg !152
  %".116" = extractvalue [1 x i64] %".115", 0 , !dbg !152
  %".117" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", i32 0, i32 6 , !dbg !152
  %".118" = load [1 x i64], [1 x i64]* %".117", !dbg !152
  %".119" = extractvalue [1 x i64] %".118", 0 , !dbg !152
  %".120" = icmp slt i64 %".107", 0 , !dbg !152
  %".121" = add i64 %".107", %".116", !dbg !152
  %".122" = select  i1 %".120", i64 %".121", i64 %".107" , !dbg !152
  %".123" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", i32 0, i32 5 , !dbg !152
  %".124" = getelementptr inbounds [1 x i64], [1 x i64]* %".123", i32 0, i32 0 , !dbg !152
  %".125" = load i64, i64* %".124", !dbg !152, !range !153
  %".126" = insertvalue [1 x i64] undef, i64 %".125", 0 , !dbg !152
  %".127" = extractvalue [1 x i64] %".126", 0 , !dbg !152
  %".128" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", i32 0, i32 6 , !dbg !152
  %".129" = load [1 x i64], [1 x i64]* %".128", !dbg !152
  %".130" = extractvalue [1 x i64] %".129", 0 , !dbg !152
  %".131" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".108", i32 0, i32 4 , !dbg !152
  %".132" = load float*, float** %".131", !dbg !152
  %".133" = mul i64 %".130", %".122", !dbg !152
  %".134" = ptrtoint float* %".132" to i64 , !dbg !152
  %".135" = add i64 %".134", %".133", !dbg !152
  %".136" = inttoptr i64 %".135" to float* , !dbg !152
  %".137" = load float, float* %".136", !dbg !152
  %".139" = load float, float* %"$72binary_subscr.3", !dbg !152
  store float %".137", float* %"$72binary_subscr.3", !dbg !152
  %".141" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x", !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x", !dbg !152
  %".143" = load float, float* %"a"
  %".144" = load float, float* %"$72binary_subscr.3", !dbg !152
  %".145" = fmul float %".143", %".144", !dbg !152
  %".147" = load float, float* %"$binop_mul82.4", !dbg !152
  store float %".145", float* %"$binop_mul82.4", !dbg !152
  %".149" = load float, float* %"a", !dbg !152
  store float 0.0, float* %"a", !dbg !152
  %".151" = load float, float* %"$72binary_subscr.3", !dbg !152
  store float 0.0, float* %"$72binary_subscr.3", !dbg !152
  %".153" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y"
  %".154" = load i32, i32* %"i", !dbg !152
  %".155" = sext i32 %".154" to i64 , !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156"
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %".153", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", !dbg !152
  %".160" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", i32 0, i32 5 , !dbg !152
  %".161" = getelementptr inbounds [1 x i64], [1 x i64]* %".160", i32 0, i32 0 , !dbg !152
  %".162" = load i64, i64* %".161", !dbg !152, !range !153
  %".163" = insertvalue [1 x i64] undef, i64 %".162", 0 , !dbg !152
  %".164" = extractvalue [1 x i64] %".163", 0 , !dbg !152
  %".165" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", i32 0, i32 6 , !dbg !152
  %".166" = load [1 x i64], [1 x i64]* %".165", !dbg !152
  %".167" = extractvalue [1 x i64] %".166", 0 , !dbg !152
  %".168" = icmp slt i64 %".155", 0 , !dbg !152
  %".169" = add i64 %".155", %".164", !dbg !152
  %".170" = select  i1 %".168", i64 %".169", i64 %".155" , !dbg !152
  %".171" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", i32 0, i32 5 , !dbg !152
  %".172" = getelementptr inbounds [1 x i64], [1 x i64]* %".171", i32 0, i32 0 , !dbg !152
  %".173" = load i64, i64* %".172", !dbg !152, !range !153
  %".174" = insertvalue [1 x i64] undef, i64 %".173", 0 , !dbg !152
  %".175" = extractvalue [1 x i64] %".174", 0 , !dbg !152
  %".176" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", i32 0, i32 6 , !dbg !152
  %".177" = load [1 x i64], [1 x i64]* %".176", !dbg !152
  %".178" = extractvalue [1 x i64] %".177", 0 , !dbg !152
  %".179" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".156", i32 0, i32 4 , !dbg !152
  %".180" = load float*, float** %".179", !dbg !152
  %".181" = mul i64 %".178", %".170", !dbg !152
  %".182" = ptrtoint float* %".180" to i64 , !dbg !152
  %".183" = add i64 %".182", %".181", !dbg !152
  %".184" = inttoptr i64 %".183" to float* , !dbg !152
  %".185" = load float, float* %".184", !dbg !152
  %".187" = load float, float* %"$90binary_subscr.7", !dbg !152
  store float %".185", float* %"$90binary_subscr.7", !dbg !152
  %".189" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y", !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y", !dbg !152
  %".191" = load float, float* %"$binop_mul82.4", !dbg !152
  %".192" = load float, float* %"$90binary_subscr.7", !dbg !152
  %".193" = fadd float %".191", %".192", !dbg !152
  %".195" = load float, float* %"$binop_add100.8", !dbg !152
  store float %".193", float* %"$binop_add100.8", !dbg !152
  %".197" = load float, float* %"$binop_mul82.4", !dbg !152
  store float 0.0, float* %"$binop_mul82.4", !dbg !152
  %".199" = load float, float* %"$90binary_subscr.7", !dbg !152
  store float 0.0, float* %"$90binary_subscr.7", !dbg !152
  %".201" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out"
  %".202" = load float, float* %"$binop_add100.8", !dbg !152
  %".203" = load i32, i32* %"i", !dbg !152
  %".204" = sext i32 %".203" to i64 , !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205"
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %".201", {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", !dbg !152
  %".209" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", i32 0, i32 5 , !dbg !152
  %".210" = getelementptr inbounds [1 x i64], [1 x i64]* %".209", i32 0, i32 0 , !dbg !152
  %".211" = load i64, i64* %".210", !dbg !152, !range !153
  %".212" = insertvalue [1 x i64] undef, i64 %".211", 0 , !dbg !152
  %".213" = extractvalue [1 x i64] %".212", 0 , !dbg !152
  %".214" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", i32 0, i32 6 , !dbg !152
  %".215" = load [1 x i64], [1 x i64]* %".214", !dbg !152
  %".216" = extractvalue [1 x i64] %".215", 0 , !dbg !152
  %".217" = icmp slt i64 %".204", 0 , !dbg !152
  %".218" = add i64 %".204", %".213", !dbg !152
  %".219" = select  i1 %".217", i64 %".218", i64 %".204" , !dbg !152
  %".220" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", i32 0, i32 5 , !dbg !152
  %".221" = getelementptr inbounds [1 x i64], [1 x i64]* %".220", i32 0, i32 0 , !dbg !152
  %".222" = load i64, i64* %".221", !dbg !152, !range !153
  %".223" = insertvalue [1 x i64] undef, i64 %".222", 0 , !dbg !152
  %".224" = extractvalue [1 x i64] %".223", 0 , !dbg !152
  %".225" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", i32 0, i32 6 , !dbg !152
  %".226" = load [1 x i64], [1 x i64]* %".225", !dbg !152
  %".227" = extractvalue [1 x i64] %".226", 0 , !dbg !152
  %".228" = getelementptr inbounds {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %".205", i32 0, i32 4 , !dbg !152
  %".229" = load float*, float** %".228", !dbg !152
  %".230" = mul i64 %".227", %".219", !dbg !152
  %".231" = ptrtoint float* %".229" to i64 , !dbg !152
  %".232" = add i64 %".231", %".230", !dbg !152
  %".233" = inttoptr i64 %".232" to float* , !dbg !152
  store float %".202", float* %".233", !dbg !152
  %".235" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out", !dbg !152
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out", !dbg !152
  %".237" = load i32, i32* %"i", !dbg !152
  store i32 0, i32* %"i", !dbg !152
  %".239" = load float, float* %"$binop_add100.8", !dbg !152
  store float 0.0, float* %"$binop_add100.8", !dbg !152
  %".242" = load i8*, i8** %"$const112.11", !dbg !152
  store i8* null, i8** %"$const112.11", !dbg !152
  %".244" = load i8*, i8** %"$const112.11", !dbg !152
  %".246" = load i8*, i8** %"$114return_value.12", !dbg !152
  store i8* %".244", i8** %"$114return_value.12", !dbg !152
  %".248" = load i8*, i8** %"$const112.11", !dbg !152
  store i8* null, i8** %"$const112.11", !dbg !152
  %".250" = load i8*, i8** %"$114return_value.12", !dbg !152
  store i8* %".250", i8** %".ret", !dbg !152
  ret i32 0, !dbg !152
B116:
  %".253" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y", !dbg !148
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"y", !dbg !148
  %".255" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x", !dbg !148
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"x", !dbg !148
  %".257" = load {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out", !dbg !148
  store {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} zeroinitializer, {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}* %"out", !dbg !148
  %".259" = load i32, i32* %"i", !dbg !148
  store i32 0, i32* %"i", !dbg !148
  %".261" = load float, float* %"a", !dbg !148
  store float 0.0, float* %"a", !dbg !148
  %".263" = load i1, i1* %"$64pred", !dbg !148
  store i1 0, i1* %"$64pred", !dbg !148
  %".266" = load i8*, i8** %"$const116.0", !dbg !148
  store i8* null, i8** %"$const116.0", !dbg !148
  %".268" = load i8*, i8** %"$const116.0", !dbg !148
  %".270" = load i8*, i8** %"$118return_value.1", !dbg !148
  store i8* %".268", i8** %"$118return_value.1", !dbg !148
  %".272" = load i8*, i8** %"$const116.0", !dbg !148
  store i8* null, i8** %"$const116.0", !dbg !148
  %".274" = load i8*, i8** %"$118return_value.1", !dbg !148
  store i8* %".274", i8** %".ret", !dbg !148
  ret i32 0, !dbg !148
}
declare void @"llvm.dbg.declare"(metadata %".1", metadata %".2", metadata %".3")
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"()
define void @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE"(float %".1", i8* %".2", i8* %".3", i64 %".4", i64 %".5", float* %".6", i64 %".7", i64 %".8", i8* %".9", i8* %".10", i64 %".11", i64 %".12", float* %".13", i64 %".14", i64 %".15", i8* %".16", i8* %".17", i64 %".18", i64 %".19", float* %".20", i64 %".21", i64 %".22") noinline !dbg !258
{
.24:
  %"inserted.meminfo" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %".2", 0 , !dbg !259
  %"inserted.parent" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo", i8* %".3", 1 , !dbg !259
  %"inserted.nitems" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent", i64 %".4", 2 , !dbg !259
  %"inserted.itemsize" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems", i64 %".5", 3 , !dbg !259
  %"inserted.data" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize", float* %".6", 4 , !dbg !259
  %".25" = insertvalue [1 x i64] undef, i64 %".7", 0 , !dbg !259
  %"inserted.shape" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data", [1 x i64] %".25", 5 , !dbg !259
  %".26" = insertvalue [1 x i64] undef, i64 %".8", 0 , !dbg !259
  %"inserted.strides" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape", [1 x i64] %".26", 6 , !dbg !259
  %"inserted.meminfo.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %".9", 0 , !dbg !259
  %"inserted.parent.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo.1", i8* %".10", 1 , !dbg !259
  %"inserted.nitems.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent.1", i64 %".11", 2 , !dbg !259
  %"inserted.itemsize.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems.1", i64 %".12", 3 , !dbg !259
  %"inserted.data.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize.1", float* %".13", 4 , !dbg !259
  %".27" = insertvalue [1 x i64] undef, i64 %".14", 0 , !dbg !259
  %"inserted.shape.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data.1", [1 x i64] %".27", 5 , !dbg !259
  %".28" = insertvalue [1 x i64] undef, i64 %".15", 0 , !dbg !259
  %"inserted.strides.1" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape.1", [1 x i64] %".28", 6 , !dbg !259
  %"inserted.meminfo.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} undef, i8* %".16", 0 , !dbg !259
  %"inserted.parent.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.meminfo.2", i8* %".17", 1 , !dbg !259
  %"inserted.nitems.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.parent.2", i64 %".18", 2 , !dbg !259
  %"inserted.itemsize.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.nitems.2", i64 %".19", 3 , !dbg !259
  %"inserted.data.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.itemsize.2", float* %".20", 4 , !dbg !259
  %".29" = insertvalue [1 x i64] undef, i64 %".21", 0 , !dbg !259
  %"inserted.shape.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.data.2", [1 x i64] %".29", 5 , !dbg !259
  %".30" = insertvalue [1 x i64] undef, i64 %".22", 0 , !dbg !259
  %"inserted.strides.2" = insertvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.shape.2", [1 x i64] %".30", 6 , !dbg !259
  %".31" = alloca i8*
  store i8* null, i8** %".31"
  store i8* null, i8** %".31", !dbg !259
  %"extracted.meminfo" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 0 , !dbg !259
  %"extracted.parent" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 1 , !dbg !259
  %"extracted.nitems" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 2 , !dbg !259
  %"extracted.itemsize" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 3 , !dbg !259
  %"extracted.data" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 4 , !dbg !259
  %"extracted.shape" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 5 , !dbg !259
  %".34" = extractvalue [1 x i64] %"extracted.shape", 0 , !dbg !259
  %"extracted.strides" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides", 6 , !dbg !259
  %".35" = extractvalue [1 x i64] %"extracted.strides", 0 , !dbg !259
  %"extracted.meminfo.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 0 , !dbg !259
  %"extracted.parent.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 1 , !dbg !259
  %"extracted.nitems.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 2 , !dbg !259
  %"extracted.itemsize.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 3 , !dbg !259
  %"extracted.data.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 4 , !dbg !259
  %"extracted.shape.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 5 , !dbg !259
  %".36" = extractvalue [1 x i64] %"extracted.shape.1", 0 , !dbg !259
  %"extracted.strides.1" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.1", 6 , !dbg !259
  %".37" = extractvalue [1 x i64] %"extracted.strides.1", 0 , !dbg !259
  %"extracted.meminfo.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 0 , !dbg !259
  %"extracted.parent.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 1 , !dbg !259
  %"extracted.nitems.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 2 , !dbg !259
  %"extracted.itemsize.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 3 , !dbg !259
  %"extracted.data.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 4 , !dbg !259
  %"extracted.shape.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 5 , !dbg !259
  %".38" = extractvalue [1 x i64] %"extracted.shape.2", 0 , !dbg !259
  %"extracted.strides.2" = extractvalue {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]} %"inserted.strides.2", 6 , !dbg !259
  %".39" = extractvalue [1 x i64] %"extracted.strides.2", 0 , !dbg !259
  %".40" = call i32 @"_ZN8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE"(i8** %".31", float %".1", i8* %"extracted.meminfo", i8* %"extracted.parent", i64 %"extracted.nitems", i64 %"extracted.itemsize", float* %"extracted.data", i64 %".34", i64 %".35", i8* %"extracted.meminfo.1", i8* %"extracted.parent.1", i64 %"extracted.nitems.1", i64 %"extracted.itemsize.1", float* %"extracted.data.1", i64 %".36", i64 %".37", i8* %"extracted.meminfo.2", i8* %"extracted.parent.2", i64 %"extracted.nitems.2", i64 %"extracted.itemsize.2", float* %"extracted.data.2", i64 %".38", i64 %".39"), !dbg !259
  %".41" = icmp eq i32 %".40", 0 , !dbg !259
  %".42" = icmp eq i32 %".40", -2 , !dbg !259
  %".43" = or i1 %".41", %".42", !dbg !259
  %".44" = xor i1 %".43", -1, !dbg !259
  %".45" = icmp eq i32 %".40", -1 , !dbg !259
  %".46" = icmp eq i32 %".40", -3 , !dbg !259
  %".47" = icmp sge i32 %".40", 1 , !dbg !259
  %".48" = load i8*, i8** %".31", !dbg !259
  br i1 %".43", label %".24.if", label %".24.endif", !dbg !259, !prof !260
.24.if:
  ret void, !dbg !259
.24.endif:
  %".51" = xor i1 %".45", -1, !dbg !259
  br i1 %".51", label %".24.endif.if", label %".24.endif.endif", !dbg !259
.24.endif.if:
  %".53" = cmpxchg i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__errcode__", i32 0, i32 %".40" monotonic monotonic , !dbg !259
  %".54" = extractvalue {i32, i1} %".53", 1 , !dbg !259
  br i1 %".54", label %".24.endif.if.if", label %".24.endif.if.endif", !dbg !259
.24.endif.endif:
  ret void, !dbg !259
.24.endif.if.if:
  %".56" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"(), !dbg !259
  store i32 %".56", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidx__", !dbg !259
  %".58" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.y"(), !dbg !259
  store i32 %".58", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidy__", !dbg !259
  %".60" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.z"(), !dbg !259
  store i32 %".60", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidz__", !dbg !259
  %".62" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"(), !dbg !259
  store i32 %".62", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidx__", !dbg !259
  %".64" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.y"(), !dbg !259
  store i32 %".64", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidy__", !dbg !259
  %".66" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.z"(), !dbg !259
  store i32 %".66", i32* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidz__", !dbg !259
  br label %".24.endif.if.endif", !dbg !259
.24.endif.if.endif:
  br label %".24.endif.endif", !dbg !259
}
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__errcode__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidx__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidx__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidy__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidy__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__tidz__" = global i32 0
@"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE__ctaidz__" = global i32 0
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.y"()
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.z"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.y"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.z"()
!nvvmir.version = !{ !0 }
!llvm.dbg.cu = !{ !2, !158 }
!llvm.module.flags = !{ !154, !155 }
!nvvm.annotations = !{ !261 }
!0 = !{ i32 2, i32 0, i32 3, i32 0 }
!1 = !DIFile(directory: "tests/data/reduce_real", filename: "gen_numba.py")
!2 = distinct !DICompileUnit(emissionKind: 1, file: !1, isOptimized: true, language: DW_LANG_C_plus_plus, producer: "clang (Numba)", runtimeVersion: 0)
!3 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!4 = !DIDerivedType(baseType: !3, size: 64, tag: DW_TAG_pointer_type)
!5 = !DIDerivedType(baseType: !4, size: 64, tag: DW_TAG_pointer_type)
!6 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!7 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!8 = !DIDerivedType(baseType: !7, size: 64, tag: DW_TAG_pointer_type)
!9 = !DIDerivedType(baseType: !8, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!10 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!11 = !DIDerivedType(baseType: !10, size: 64, tag: DW_TAG_pointer_type)
!12 = !DIDerivedType(baseType: !11, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!13 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!14 = !DIDerivedType(baseType: !13, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!15 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!16 = !DIDerivedType(baseType: !15, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!17 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!18 = !DIDerivedType(baseType: !17, size: 64, tag: DW_TAG_pointer_type)
!19 = !DIDerivedType(baseType: !18, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!20 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!21 = !DISubrange(count: 1)
!22 = !{ !21 }
!23 = !DICompositeType(baseType: !20, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!24 = !DIDerivedType(baseType: !23, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!25 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!26 = !DICompositeType(baseType: !25, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!27 = !DIDerivedType(baseType: !26, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!28 = !{ !9, !12, !14, !16, !19, !24, !27 }
!29 = distinct !DICompositeType(elements: !28, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!30 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!31 = !DIDerivedType(baseType: !30, size: 64, tag: DW_TAG_pointer_type)
!32 = !DIDerivedType(baseType: !31, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!33 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!34 = !DIDerivedType(baseType: !33, size: 64, tag: DW_TAG_pointer_type)
!35 = !DIDerivedType(baseType: !34, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!36 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!37 = !DIDerivedType(baseType: !36, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!38 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!39 = !DIDerivedType(baseType: !38, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!40 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!41 = !DIDerivedType(baseType: !40, size: 64, tag: DW_TAG_pointer_type)
!42 = !DIDerivedType(baseType: !41, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!43 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!44 = !DICompositeType(baseType: !43, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!45 = !DIDerivedType(baseType: !44, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!46 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!47 = !DICompositeType(baseType: !46, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!48 = !DIDerivedType(baseType: !47, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!49 = !{ !32, !35, !37, !39, !42, !45, !48 }
!50 = distinct !DICompositeType(elements: !49, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!51 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!52 = !DIDerivedType(baseType: !51, size: 64, tag: DW_TAG_pointer_type)
!53 = !DIDerivedType(baseType: !52, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!54 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!55 = !DIDerivedType(baseType: !54, size: 64, tag: DW_TAG_pointer_type)
!56 = !DIDerivedType(baseType: !55, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!57 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!58 = !DIDerivedType(baseType: !57, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!59 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!60 = !DIDerivedType(baseType: !59, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!61 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!62 = !DIDerivedType(baseType: !61, size: 64, tag: DW_TAG_pointer_type)
!63 = !DIDerivedType(baseType: !62, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!64 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!65 = !DICompositeType(baseType: !64, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!66 = !DIDerivedType(baseType: !65, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!67 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!68 = !DICompositeType(baseType: !67, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!69 = !DIDerivedType(baseType: !68, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!70 = !{ !53, !56, !58, !60, !63, !66, !69 }
!71 = distinct !DICompositeType(elements: !70, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!72 = !{ !5, !6, !29, !50, !71 }
!73 = !DISubroutineType(types: !72)
!74 = distinct !DISubprogram(file: !1, isDefinition: true, isLocal: false, isOptimized: true, line: 4, linkageName: "_ZN8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE", name: "saxpy", scope: !1, scopeLine: 4, type: !73, unit: !2)
!75 = !DILocation(column: 1, line: 4, scope: !74)
!76 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!77 = !DILocalVariable(arg: 1, file: !1, line: 4, name: "a", scope: !74, type: !76)
!78 = !DIExpression()
!79 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!80 = !DIDerivedType(baseType: !79, size: 64, tag: DW_TAG_pointer_type)
!81 = !DIDerivedType(baseType: !80, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!82 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!83 = !DIDerivedType(baseType: !82, size: 64, tag: DW_TAG_pointer_type)
!84 = !DIDerivedType(baseType: !83, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!85 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!86 = !DIDerivedType(baseType: !85, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!87 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!88 = !DIDerivedType(baseType: !87, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!89 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!90 = !DIDerivedType(baseType: !89, size: 64, tag: DW_TAG_pointer_type)
!91 = !DIDerivedType(baseType: !90, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!92 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!93 = !DICompositeType(baseType: !92, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!94 = !DIDerivedType(baseType: !93, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!95 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!96 = !DICompositeType(baseType: !95, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!97 = !DIDerivedType(baseType: !96, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!98 = !{ !81, !84, !86, !88, !91, !94, !97 }
!99 = distinct !DICompositeType(elements: !98, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!100 = !DILocalVariable(arg: 2, file: !1, line: 4, name: "x", scope: !74, type: !99)
!101 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!102 = !DIDerivedType(baseType: !101, size: 64, tag: DW_TAG_pointer_type)
!103 = !DIDerivedType(baseType: !102, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!104 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!105 = !DIDerivedType(baseType: !104, size: 64, tag: DW_TAG_pointer_type)
!106 = !DIDerivedType(baseType: !105, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!107 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!108 = !DIDerivedType(baseType: !107, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!109 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!110 = !DIDerivedType(baseType: !109, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!111 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!112 = !DIDerivedType(baseType: !111, size: 64, tag: DW_TAG_pointer_type)
!113 = !DIDerivedType(baseType: !112, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!114 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!115 = !DICompositeType(baseType: !114, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!116 = !DIDerivedType(baseType: !115, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!117 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!118 = !DICompositeType(baseType: !117, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!119 = !DIDerivedType(baseType: !118, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!120 = !{ !103, !106, !108, !110, !113, !116, !119 }
!121 = distinct !DICompositeType(elements: !120, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!122 = !DILocalVariable(arg: 3, file: !1, line: 4, name: "y", scope: !74, type: !121)
!123 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!124 = !DIDerivedType(baseType: !123, size: 64, tag: DW_TAG_pointer_type)
!125 = !DIDerivedType(baseType: !124, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!126 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!127 = !DIDerivedType(baseType: !126, size: 64, tag: DW_TAG_pointer_type)
!128 = !DIDerivedType(baseType: !127, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!129 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!130 = !DIDerivedType(baseType: !129, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!131 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!132 = !DIDerivedType(baseType: !131, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!133 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!134 = !DIDerivedType(baseType: !133, size: 64, tag: DW_TAG_pointer_type)
!135 = !DIDerivedType(baseType: !134, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!136 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!137 = !DICompositeType(baseType: !136, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!138 = !DIDerivedType(baseType: !137, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!139 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!140 = !DICompositeType(baseType: !139, elements: !22, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!141 = !DIDerivedType(baseType: !140, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!142 = !{ !125, !128, !130, !132, !135, !138, !141 }
!143 = distinct !DICompositeType(elements: !142, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!144 = !DILocalVariable(arg: 4, file: !1, line: 4, name: "out", scope: !74, type: !143)
!145 = !DILocation(column: 1, line: 5, scope: !74)
!146 = !DIBasicType(encoding: DW_ATE_signed, name: "int32", size: 32)
!147 = !DILocalVariable(arg: 0, file: !1, line: 5, name: "i", scope: !74, type: !146)
!148 = !DILocation(column: 1, line: 6, scope: !74)
!149 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!150 = !DIDerivedType(baseType: !149, size: 64, tag: DW_TAG_pointer_type)
!151 = !DILocalVariable(arg: 0, file: !1, line: 6, name: "bool64", scope: !74, type: !150)
!152 = !DILocation(column: 1, line: 7, scope: !74)
!153 = !{ i64 0, i64 9223372036854775807 }
!154 = !{ i32 2, !"Dwarf Version", i32 4 }
!155 = !{ i32 2, !"Debug Info Version", i32 3 }
!156 = !{ i32 1, i32 6, i32 3, i32 0 }
!157 = !DIFile(directory: "tests/data/reduce_real", filename: "gen_numba.py")
!158 = distinct !DICompileUnit(emissionKind: 1, file: !157, isOptimized: true, language: DW_LANG_C_plus_plus, producer: "clang (Numba)", runtimeVersion: 0)
!159 = !DIBasicType(encoding: DW_ATE_float, name: "float", size: 32)
!160 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!161 = !DIDerivedType(baseType: !160, size: 64, tag: DW_TAG_pointer_type)
!162 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!163 = !DIDerivedType(baseType: !162, size: 64, tag: DW_TAG_pointer_type)
!164 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!165 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!166 = !DIBasicType(encoding: DW_ATE_float, name: "float", size: 32)
!167 = !DIDerivedType(baseType: !166, size: 64, tag: DW_TAG_pointer_type)
!168 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!169 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!170 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!171 = !DIDerivedType(baseType: !170, size: 64, tag: DW_TAG_pointer_type)
!172 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!173 = !DIDerivedType(baseType: !172, size: 64, tag: DW_TAG_pointer_type)
!174 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!175 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!176 = !DIBasicType(encoding: DW_ATE_float, name: "float", size: 32)
!177 = !DIDerivedType(baseType: !176, size: 64, tag: DW_TAG_pointer_type)
!178 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!179 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!180 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!181 = !DIDerivedType(baseType: !180, size: 64, tag: DW_TAG_pointer_type)
!182 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!183 = !DIDerivedType(baseType: !182, size: 64, tag: DW_TAG_pointer_type)
!184 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!185 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!186 = !DIBasicType(encoding: DW_ATE_float, name: "float", size: 32)
!187 = !DIDerivedType(baseType: !186, size: 64, tag: DW_TAG_pointer_type)
!188 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!189 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!190 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!191 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!192 = !DIDerivedType(baseType: !191, size: 64, tag: DW_TAG_pointer_type)
!193 = !DIDerivedType(baseType: !192, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!194 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!195 = !DIDerivedType(baseType: !194, size: 64, tag: DW_TAG_pointer_type)
!196 = !DIDerivedType(baseType: !195, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!197 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!198 = !DIDerivedType(baseType: !197, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!199 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!200 = !DIDerivedType(baseType: !199, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!201 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!202 = !DIDerivedType(baseType: !201, size: 64, tag: DW_TAG_pointer_type)
!203 = !DIDerivedType(baseType: !202, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!204 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!205 = !DISubrange(count: 1)
!206 = !{ !205 }
!207 = !DICompositeType(baseType: !204, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!208 = !DIDerivedType(baseType: !207, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!209 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!210 = !DICompositeType(baseType: !209, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!211 = !DIDerivedType(baseType: !210, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!212 = !{ !193, !196, !198, !200, !203, !208, !211 }
!213 = distinct !DICompositeType(elements: !212, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!214 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!215 = !DIDerivedType(baseType: !214, size: 64, tag: DW_TAG_pointer_type)
!216 = !DIDerivedType(baseType: !215, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!217 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!218 = !DIDerivedType(baseType: !217, size: 64, tag: DW_TAG_pointer_type)
!219 = !DIDerivedType(baseType: !218, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!220 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!221 = !DIDerivedType(baseType: !220, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!222 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!223 = !DIDerivedType(baseType: !222, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!224 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!225 = !DIDerivedType(baseType: !224, size: 64, tag: DW_TAG_pointer_type)
!226 = !DIDerivedType(baseType: !225, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!227 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!228 = !DICompositeType(baseType: !227, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!229 = !DIDerivedType(baseType: !228, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!230 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!231 = !DICompositeType(baseType: !230, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!232 = !DIDerivedType(baseType: !231, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!233 = !{ !216, !219, !221, !223, !226, !229, !232 }
!234 = distinct !DICompositeType(elements: !233, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!235 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!236 = !DIDerivedType(baseType: !235, size: 64, tag: DW_TAG_pointer_type)
!237 = !DIDerivedType(baseType: !236, name: "meminfo", offset: 0, size: 64, tag: DW_TAG_member)
!238 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!239 = !DIDerivedType(baseType: !238, size: 64, tag: DW_TAG_pointer_type)
!240 = !DIDerivedType(baseType: !239, name: "parent", offset: 64, size: 64, tag: DW_TAG_member)
!241 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!242 = !DIDerivedType(baseType: !241, name: "nitems", offset: 128, size: 64, tag: DW_TAG_member)
!243 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!244 = !DIDerivedType(baseType: !243, name: "itemsize", offset: 192, size: 64, tag: DW_TAG_member)
!245 = !DIBasicType(encoding: DW_ATE_float, name: "float32", size: 32)
!246 = !DIDerivedType(baseType: !245, size: 64, tag: DW_TAG_pointer_type)
!247 = !DIDerivedType(baseType: !246, name: "data", offset: 256, size: 64, tag: DW_TAG_member)
!248 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!249 = !DICompositeType(baseType: !248, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!250 = !DIDerivedType(baseType: !249, name: "shape", offset: 320, size: 64, tag: DW_TAG_member)
!251 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i64", size: 64)
!252 = !DICompositeType(baseType: !251, elements: !206, identifier: "[1 x i64]", name: "UniTuple(int64 x 1) ([1 x i64])", size: 64, tag: DW_TAG_array_type)
!253 = !DIDerivedType(baseType: !252, name: "strides", offset: 384, size: 64, tag: DW_TAG_member)
!254 = !{ !237, !240, !242, !244, !247, !250, !253 }
!255 = distinct !DICompositeType(elements: !254, identifier: "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", name: "array(float32, 1d, A) ({i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]})", size: 448, tag: DW_TAG_structure_type)
!256 = !{ !159, !161, !163, !164, !165, !167, !168, !169, !171, !173, !174, !175, !177, !178, !179, !181, !183, !184, !185, !187, !188, !189, !190, !213, !234, !255 }
!257 = !DISubroutineType(types: !256)
!258 = distinct !DISubprogram(file: !157, isDefinition: true, isLocal: false, isOptimized: true, line: 4, linkageName: "_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE", name: "_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE", scope: !157, scopeLine: 4, type: !257, unit: !158)
!259 = !DILocation(column: 1, line: 4, scope: !258)
!260 = !{ !"branch_weights", i32 99, i32 1 }
!261 = !{ void (float, i8*, i8*, i64, i64, float*, i64, i64, i8*, i8*, i64, i64, float*, i64, i64, i8*, i8*, i64, i64, float*, i64, i64)* @"_ZN6cudapy8__main__5saxpyB2v3B96cw51cXTLSUwv1oDHpC0oJQBDAi1SkIQh8Y8kgBqnMAkkq2yr1cHmq1spQCTVQd4C2QYUgQaoOixskISA2oE8g1pNAA_3d_3dEf5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi1E1A7mutable7alignedE", !"kernel", i32 1 }
!262 = !{ i32 2, !"Dwarf Version", i32 4 }
!263 = !{ i32 2, !"Debug Info Version", i32 3 }
