//===- corpus/generator.cpp - structured random NVVM IR kernels ---------------===//
//
// The generator builds structured code only: straight-line statements, if/else
// diamonds and counted loops, nested up to a fixed depth. A region sees the
// values of the regions around it (they dominate it) and hands back one value
// through a phi, so SSA form holds by construction. Every value gets a name
// (%vN, numbered in emission order), so the llvm7 dialect's rule that
// unnamed values be numbered in order never arises. Barriers are emitted only
// where control flow is uniform (kernel top level and loops with uniform
// bounds), as a CUDA programmer would write them. The kernels are race-free
// (corpus/statements.cpp says how), and each comes with the recipe that
// launches it: its .maxntid threads a block, k_recipe_threads in all.
//
// This file makes the module: internal helpers, the kernel and its metadata;
// corpus/statements.cpp makes the statements inside a function body.
//
//===----------------------------------------------------------------------===//
#include "kdet/corpus/generator.hpp"

#include "kdet/corpus/ir_builder.hpp"
#include "kdet/corpus/kernel_generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace kdet::corpus::detail {

// float helper(float* p, i32 i, float a, float b): a little region of its own.
std::string KernelGenerator::make_helper(size_t index, size_t budget) {
  std::string name = fmt::format("{}_helper{}", m_spec.name, index);
  IrFunction f;
  f.start_block("entry");
  FunctionContext ctx;
  ctx.float_ptrs = {"%p"}; // an input of the kernel: helpers only read
  // Only helper0 is callable from helpers: every call is inlined at -opt=3,
  // and chains of helpers calling helpers would multiply the code.
  if (index > 0) ctx.callable = {m_helper_names.front()};
  Scope s;
  s.uniform = false;
  s.depth = 1; // helpers are called from anywhere (loops too): keep them shallower
  s.loop_depth = 1;
  s.floats = {"%a", "%b"};
  s.ints = {"%i"};
  ctx.trip_counts = {"%trip"};
  f.emit("%trip = and i32 %i, 15");
  std::string result = gen_region(f, ctx, s, budget);
  f.emit(fmt::format("ret float {}", result));
  m_instructions += f.instructions();
  return fmt::format("define internal float @{}({} %p, i32 %i, float %a, float %b) {{\n{}}}\n",
                     name, m_types.global("float"), f.render());
}

// Inputs of k_input_elements random values (each its own seed), outputs of one element per
// thread, zeroed; alpha, n (the threads) and m (the uniform trip count).
void KernelGenerator::make_recipe(size_t n_float, size_t n_out, size_t n_index) {
  gpu::Recipe& r = m_recipe;
  r.kernel = m_spec.name;
  r.block = {m_maxntid, 1, 1};
  r.grid = {k_recipe_threads / m_maxntid, 1, 1};
  uint64_t seed = 1;
  auto buffer = [&](std::string name, gpu::Type type, uint64_t elements, bool output) {
    gpu::RecipeArg a;
    a.name = std::move(name);
    a.type = type;
    a.elements = elements;
    a.random = !output;
    a.seed = output ? 0 : seed++;
    a.output = output;
    r.args.push_back(std::move(a));
  };
  for (size_t k = 0; k < n_float; ++k)
    buffer(fmt::format("in{}", k), gpu::Type::f32, k_input_elements, false);
  for (size_t k = 0; k < n_out; ++k)
    buffer(fmt::format("out{}", k), gpu::Type::f32, k_recipe_threads, true);
  for (size_t k = 0; k < n_index; ++k)
    buffer(fmt::format("idx{}", k), gpu::Type::i32, k_input_elements, false);
  auto scalar = [&](const char* name, gpu::Type type, uint64_t bits) {
    gpu::RecipeArg a;
    a.kind = gpu::RecipeArg::Kind::scalar;
    a.name = name;
    a.type = type;
    a.bits = bits;
    r.args.push_back(std::move(a));
  };
  scalar("alpha", gpu::Type::f32, 0x3f000000); // 0.5
  scalar("n", gpu::Type::i32, k_recipe_threads);
  scalar("m", gpu::Type::i32, 8);
}

std::string KernelGenerator::make_kernel(size_t budget) {
  size_t n_float = 4 + m_rng.below(static_cast<uint64_t>(budget > 1000 ? 9 : 5));
  size_t n_index = 1 + m_rng.below(3);
  FunctionContext ctx;
  ctx.is_kernel = true;
  ctx.callable = m_helper_names;
  ctx.tid = "%tid";
  ctx.ntid = "%ntid";
  ctx.gid64 = "%gid64";
  ctx.trip_counts = {"%m", "%m.half"};
  std::vector<std::string> params, param_types;
  for (size_t k = 0; k < n_float; ++k) {
    std::string p = fmt::format("%in{}", k);
    ctx.float_ptrs.push_back(p);
    params.push_back(fmt::format("{} {}", m_types.global("float"), p));
    param_types.push_back(m_types.global("float"));
  }
  for (size_t k = 0; k < 1 + n_float / 3; ++k) {
    std::string p = fmt::format("%out{}", k);
    ctx.out_ptrs.push_back(p);
    params.push_back(fmt::format("{} {}", m_types.global("float"), p));
    param_types.push_back(m_types.global("float"));
  }
  for (size_t k = 0; k < n_index; ++k) {
    std::string p = fmt::format("%idx{}", k);
    ctx.index_ptrs.push_back(p);
    params.push_back(fmt::format("{} {}", m_types.global("i32"), p));
    param_types.push_back(m_types.global("i32"));
  }
  m_pointer_params = params.size();
  for (const char* scalar : {"float %alpha", "i32 %n", "i32 %m"}) {
    params.push_back(scalar);
    param_types.push_back(std::string(scalar).substr(0, std::string(scalar).find(' ')));
  }

  IrFunction f;
  f.start_block("entry");
  auto sreg = [&](const char* reg) {
    std::string name = fmt::format("llvm.nvvm.read.ptx.sreg.{}", reg);
    return intrinsic(name, fmt::format("declare i32 @{}()", name));
  };
  f.emit(fmt::format("%tid = call i32 @{}()", sreg("tid.x")));
  f.emit(fmt::format("%ctaid = call i32 @{}()", sreg("ctaid.x")));
  f.emit(fmt::format("%ntid = call i32 @{}()", sreg("ntid.x")));
  f.emit("%base = mul i32 %ctaid, %ntid");
  f.emit("%gid = add i32 %base, %tid");
  f.emit("%gid64 = sext i32 %gid to i64");
  f.emit("%m.half = lshr i32 %m, 1");
  f.emit(fmt::format("%gid.in = and i32 %gid, {}", k_input_elements - 1));
  f.emit("%gid.in64 = zext i32 %gid.in to i64");
  f.emit(fmt::format("%first.p = getelementptr inbounds float, {} %in0, i64 %gid.in64",
                     m_types.global("float")));
  f.emit(fmt::format("%first = load float, {} %first.p, align 4", m_types.global("float")));
  Scope s;
  s.floats = {"%alpha", "%first"};
  s.ints = {"%tid", "%gid"};
  // The region's value (it depends on everything computed) is stored under a
  // bounds check, as real kernels end, so the optimizer cannot drop the work.
  // The entry lines above and the tail below (icmp, br, a gep and a store per
  // output, br, ret) count toward the budget too.
  size_t fixed = f.instructions() + 4 + 2 * ctx.out_ptrs.size();
  std::string last = gen_region(f, ctx, s, budget > fixed + 8 ? budget - fixed : 8);
  std::string ok = f.value(), write = f.label(), done = f.label();
  f.emit(fmt::format("{} = icmp slt i32 %gid, %n", ok));
  f.emit(fmt::format("br i1 {}, label %{}, label %{}", ok, write, done));
  f.start_block(write);
  for (size_t k = 0; k < ctx.out_ptrs.size(); ++k) {
    std::string q = f.value();
    f.emit(fmt::format("{} = getelementptr inbounds float, {} {}, i64 %gid64", q,
                       m_types.global("float"), ctx.out_ptrs[k]));
    f.emit(fmt::format("store float {}, {} {}, align 4", last, m_types.global("float"), q));
  }
  f.emit(fmt::format("br label %{}", done));
  f.start_block(done);
  f.emit("ret void");
  m_instructions += f.instructions();

  make_recipe(n_float, ctx.out_ptrs.size(), n_index);
  std::string text = fmt::format("define void @{}({}) {{\n{}}}\n", m_spec.name,
                                 fmt::join(params, ", "), f.render());
  std::string fn_type = fmt::format("void ({})", fmt::join(param_types, ", "));
  m_kernel_ref = m_spec.dialect == Dialect::llvm7 ? fmt::format("{}* @{}", fn_type, m_spec.name)
                                                  : fmt::format("ptr @{}", m_spec.name);
  return text;
}

Kernel KernelGenerator::generate() {
  const size_t total = m_spec.instructions;
  size_t n_helpers = std::clamp<size_t>(total / 400, 2, 6);
  size_t helper_budget = std::clamp<size_t>(total / 20, 10, 120);
  m_max_calls = 2 + total / 250;
  m_maxntid = 128u << m_rng.below(3);
  size_t n_shared = 1 + m_rng.below(3);
  for (size_t k = 0; k < n_shared; ++k) // at least a slot per thread of a block
    m_shared.push_back(
        {fmt::format("{}_smem{}", m_spec.name, k), static_cast<int>(m_maxntid << m_rng.below(3))});

  std::string helpers;
  for (size_t k = 0; k < n_helpers; ++k) {
    helpers += make_helper(k, helper_budget) + "\n";
    m_helper_names.push_back(fmt::format("{}_helper{}", m_spec.name, k));
  }
  size_t used = m_instructions;
  std::string kernel = make_kernel(total > used + 40 ? total - used : 40);

  std::string out =
      fmt::format("; {}: generated by `kdet corpus` (seed {:#x}, {} instructions, {} dialect).\n"
                  "; A synthetic kernel: pointer parameters, nested loops, shared memory with\n"
                  "; barriers, NVVM math intrinsics, branches and internal helpers.\n",
                  m_spec.name, m_spec.seed, m_instructions, to_string(m_spec.dialect));
  out += m_spec.dialect == Dialect::llvm7
             ? "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
             : "target datalayout = \"e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n";
  out += "target triple = \"nvptx64-nvidia-cuda\"\n\n";
  for (const auto& arr : m_shared)
    out += fmt::format("@{} = internal addrspace(3) global [{} x float] undef, align 4\n", arr.name,
                       arr.elements);
  out += "\n" + helpers + kernel + "\n";
  for (const auto& d : m_declares)
    out += d + "\n";
  out += "\n!nvvm.annotations = !{!0, !1}\n!nvvmir.version = !{!2}\n\n";
  out += fmt::format("!0 = !{{{}, !\"kernel\", i32 1}}\n", m_kernel_ref);
  out += fmt::format("!1 = !{{{}, !\"maxntidx\", i32 {}}}\n", m_kernel_ref, m_maxntid);
  out += "!2 = !{i32 2, i32 0}\n";

  Kernel k;
  k.name = m_spec.name;
  k.text = std::move(out);
  k.instructions = m_instructions;
  k.helpers = n_helpers;
  k.pointer_params = m_pointer_params;
  k.loops = m_loops;
  k.barriers = m_barriers;
  k.recipe = m_recipe;
  return k;
}

} // namespace kdet::corpus::detail

namespace kdet::corpus {

namespace {

bool valid_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

} // namespace

Kernel generate_kernel(const KernelSpec& spec) {
  if (!valid_identifier(spec.name))
    throw Error::format("kernel name '{}': use letters, digits and '_', not starting with a digit",
                        spec.name);
  if (spec.instructions < k_min_instructions || spec.instructions > k_max_instructions)
    throw Error::format("kernel size {}: must be between {} and {} instructions", spec.instructions,
                        k_min_instructions, k_max_instructions);
  return detail::KernelGenerator(spec).generate();
}

} // namespace kdet::corpus
