// Unit tests of reduce/'s IR passes on IR as real frontends write it: quoted and numbered
// names, `{` on its own line, a wrapper calling an inner function, !dbg, opaque ptr; and the
// stand-ins for long names.
#include "kdet/reduce/ir_lexer.hpp"
#include "kdet/reduce/names.hpp"
#include "kdet/reduce/passes.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

namespace kdet::reduce {
namespace {

const Pass& pass_named(const std::string& name) {
  for (const auto& p : pass_table())
    if (name == p.name) return p;
  throw std::runtime_error("no pass " + name);
}

// numba's way: quoted names and labels, `{` on a line of its own, a wrapper kernel.
const char* k_numba = R"(target triple = "nvptx64-nvidia-cuda"
@"_ZN6cudapy8__main__5saxpyB2v1E__errcode__" = global i32 0
@".msg; %x @y" = internal constant [2 x i8] c";\00"
define linkonce_odr i32 @"_ZN8__main__5saxpyB2v1E"(i8** %".ret", float %"arg.a") #0 !dbg !5
{
entry:
  %".t" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"(), !dbg !6, !range !7
  %".c" = icmp slt i32 %".t", 4, !dbg !6
  br i1 %".c", label %"B66", label %"B116", !dbg !6
B66:
  %".m" = fmul float %"arg.a", 2.0
  br label %"B116"
B116:
  %".p" = phi float [ %".m", %"B66" ], [ 0.0, %entry ]
  %".r" = fptosi float %".p" to i32
  ret i32 %".r"
}
define void @"_ZN6cudapy8__main__5saxpyB2v1E"(float %".1")
{
".24":
  %".2" = alloca i8*
  %".3" = call i32 @"_ZN8__main__5saxpyB2v1E"(i8** %".2", float %".1")
  store i32 %".3", i32* @"_ZN6cudapy8__main__5saxpyB2v1E__errcode__"
  ret void
}
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"() #1
attributes #0 = { "no-frame-pointer-elim"="false" }
attributes #1 = { nounwind readnone }
!nvvmir.version = !{ !0 }
!llvm.dbg.cu = !{ !2 }
!nvvm.annotations = !{ !1 }
!0 = !{ i32 2, i32 0 }
!1 = !{ void (float)* @"_ZN6cudapy8__main__5saxpyB2v1E", !"kernel", i32 1 }
!2 = distinct !DICompileUnit(file: !3, language: DW_LANG_C_plus_plus, producer: "numba")
!3 = !DIFile(directory: "/x", filename: "k.py")
!4 = !DISubroutineType(types: !{})
!5 = distinct !DISubprogram(file: !3, name: "saxpy", type: !4, unit: !2, isDefinition: true)
!6 = !DILocation(line: 1, scope: !5)
!7 = !{ i32 0, i32 1024 }
!8 = distinct !{ !8 }
)";

// Triton's way: opaque ptr, numbered values and blocks, an implicit entry block.
const char* k_triton = R"(define void @k(ptr addrspace(1) %0, i32 %1) {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %7

4:                                                ; preds = %2
  %5 = load float, ptr addrspace(1) %0, align 4
  %6 = fadd float %5, 1.0
  store float %6, ptr addrspace(1) %0, align 4
  br label %7

7:                                                ; preds = %4, %2
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
)";

TEST(IrLexer, QuotedNamesAreOneWithTheirBareSpelling) {
  using namespace ir;
  auto at = name_counts(R"(call @"f"(i32 %"x"), @f, c"@f;%x", !"@f" ; @f)", '@');
  EXPECT_EQ(at["f"], 2); // not in the string, metadata string or comment
  EXPECT_EQ(label_of("\"B.store\":\n"), "B.store");
  EXPECT_EQ(label_of("7:   ; preds = %4\n"), "7");
  EXPECT_EQ(label_of("  %x = add i32 1, 2\n"), "");
  EXPECT_EQ(spell('%', "B66"), "%B66");
  EXPECT_EQ(spell('%', ".24"), "%.24");
  EXPECT_EQ(spell('@', "a b"), "@\"a b\"");
  EXPECT_EQ(strip_comment("  %x = add i32 1, 2 ; %y\n"), "  %x = add i32 1, 2\n");
  EXPECT_EQ(strip_comment("@s = constant [1 x i8] c\";\"\n"), "@s = constant [1 x i8] c\";\"\n");
  EXPECT_EQ(replace_names("%\"a\" %a %ab", '%', {{"a", "undef"}}), "undef undef %ab");
}

TEST(PassesReal, CleanupFollowsQuotedNamesAndKeepsTheWrapper) {
  std::string out = cleanup(TextFormat::nvvm_ir, k_numba);
  EXPECT_EQ(out.find(".msg"), std::string::npos) << "an unused quoted global stays";
  EXPECT_EQ(out.find("!8 = "), std::string::npos) << "a self-referencing node no root reaches";
  EXPECT_NE(out.find("B66:"), std::string::npos) << "a block reached by a quoted label went";
  EXPECT_NE(out.find("@\"_ZN8__main__5saxpyB2v1E\"(i8** %\".2\""), std::string::npos);
  EXPECT_NE(out.find("!7 = "), std::string::npos);
}

TEST(PassesReal, DroppedValuesBecomeUndefAndTheInnerFunctionADeclaration) {
  Split s = pass_named("ll-instructions").split(k_numba);
  // Every instruction but terminators: 5 in the inner function (the phi too), 3 in the wrapper.
  ASSERT_EQ(s.chunks, 8u);
  std::vector<size_t> keep = {0, 1, 2, 3, 4, 5, 7}; // drop the call in the wrapper
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, keep));
  EXPECT_NE(out.find("store i32 undef, i32* @\"_ZN6cudapy"), std::string::npos) << out;
  EXPECT_EQ(out.find("%\".2\" = alloca"), std::string::npos) << "its only use went";

  Split f = pass_named("ll-functions").split(k_numba);
  ASSERT_EQ(f.chunks, 2u);
  out = cleanup(TextFormat::nvvm_ir, render(f, {1}));
  EXPECT_NE(out.find("declare i32 @\"_ZN8__main__5saxpyB2v1E\"(i8**, float)\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("DISubprogram"), std::string::npos) << "the inner function's !dbg stays";
  EXPECT_NE(out.find("!nvvm.annotations"), std::string::npos);
}

TEST(PassesReal, DebugInfoGoesAsOnePiece) {
  Split s = pass_named("ll-debug").split(k_numba);
  ASSERT_EQ(s.chunks, 1u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {}));
  EXPECT_EQ(out.find("!dbg"), std::string::npos) << out;
  EXPECT_EQ(out.find("llvm.dbg.cu"), std::string::npos);
  EXPECT_EQ(out.find("DICompileUnit"), std::string::npos);
  EXPECT_NE(out.find("!range !7"), std::string::npos);
  Split a = pass_named("ll-attachments").split(out);
  out = cleanup(TextFormat::nvvm_ir, render(a, {}));
  EXPECT_EQ(out.find("!range"), std::string::npos) << out;
  EXPECT_EQ(out.find("!7 = "), std::string::npos) << out;
  Split g = pass_named("ll-attributes").split(out);
  out = cleanup(TextFormat::nvvm_ir, render(g, {}));
  EXPECT_EQ(out.find("attributes #"), std::string::npos) << out;
  EXPECT_EQ(out.find("#0"), std::string::npos) << out;
}

TEST(PassesReal, NumberedNamesGetNamesSoThatADropKeepsTheSequence) {
  Split s = pass_named("ll-instructions").split(k_triton);
  ASSERT_EQ(s.chunks, 4u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {0, 1, 3})); // drop the fadd
  EXPECT_NE(out.find("store float undef, ptr addrspace(1) %v0"), std::string::npos) << out;
  EXPECT_NE(out.find("\nv4:\n"), std::string::npos) << out;
  EXPECT_NE(out.find("label %v4, label %v7"), std::string::npos) << out;
  EXPECT_EQ(out.find("%5 = "), std::string::npos);
  EXPECT_EQ(out.find("preds"), std::string::npos);
  Split b = pass_named("ll-branches").split(k_triton);
  ASSERT_EQ(b.chunks, 1u);
  out = cleanup(TextFormat::nvvm_ir, render(b, {}));
  EXPECT_EQ(out.find("load float"), std::string::npos) << out;
  EXPECT_NE(out.find("br label %v7"), std::string::npos) << out;
}

TEST(PassesReal, BodyOnItsOwnLineBecomesAStub) {
  Split s = pass_named("ll-bodies").split(k_numba);
  ASSERT_EQ(s.chunks, 2u);
  std::string out = cleanup(TextFormat::nvvm_ir, render(s, {0}));
  EXPECT_NE(
      out.find("@\"_ZN6cudapy8__main__5saxpyB2v1E\"(float %\".1\")\n{\nentry:\n  ret void\n}"),
      std::string::npos)
      << out;
}

TEST(Names, LongMangledNamesGetReadableStandIns) {
  std::string kernel = "_ZN6cudapy8__main__5saxpyB2v1B96cw51cXTLSUwHBinCqbbgUAAGBlq82ILSCEQYkgSQ";
  std::string text = "define void @\"" + kernel + "\"() {\n  ret void\n}\n@\"" + kernel +
                     "__errcode__\" = global i32 0\n!0 = !{void ()* @\"" + kernel + "\"}\n" +
                     "declare void @llvm.nvvm.barrier0.with.a.very.long.intrinsic.name()\n";
  auto renames = long_names(TextFormat::nvvm_ir, text);
  ASSERT_EQ(renames.size(), 2u);
  EXPECT_EQ(renames[0].to, "cudapy_saxpy__errcode__");
  EXPECT_EQ(renames[1].to, "cudapy_saxpy");
  std::string out = apply_renames(TextFormat::nvvm_ir, text, renames);
  EXPECT_EQ(out.find(kernel), std::string::npos) << out;
  EXPECT_NE(out.find("define void @cudapy_saxpy()"), std::string::npos);
  EXPECT_NE(out.find("void ()* @cudapy_saxpy}"), std::string::npos);
  // A diff (plain text): the same table.
  EXPECT_EQ(apply_renames(TextFormat::text, ".entry " + kernel + "(", renames),
            ".entry cudapy_saxpy(");
}

} // namespace
} // namespace kdet::reduce
