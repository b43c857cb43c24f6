//===- corpus/statements.cpp - the statements of a generated function -------===//
//
// A region is a run of statements drawn by weight: float math and NVVM math
// intrinsics, i32 arithmetic, loads and stores through the pointer
// parameters, calls of the internal helpers, staging through shared memory
// (with barriers only where control flow is uniform), if/else diamonds and
// counted loops. Each nested region hands one value back through a phi.
//
// The kernels are race-free, so that two launches of one cubin give the same
// bits and a difference between variants means the variant: inputs are only
// read (at indices masked to k_input_elements), each thread stores only to its
// own element of each output (out[gid]) and helpers store nothing, and shared
// memory is staged as write my slot (tid), barrier, read a slot another thread
// of the block wrote ((tid + k) mod ntid), barrier.
//
//===----------------------------------------------------------------------===//
#include "kdet/corpus/kernel_generator.hpp"

#include <fmt/format.h>

namespace kdet::corpus::detail {

std::string KernelGenerator::gen_region(IrFunction& f, const FunctionContext& ctx, Scope scope,
                                        size_t budget) {
  size_t start = f.instructions();
  stmt_math(f, scope); // every region defines a value of its own
  while (f.instructions() - start < budget) {
    size_t remaining = budget - (f.instructions() - start);
    bool can_nest = scope.depth < k_max_depth && remaining >= 16;
    // Weights: math, int, load, store, call, shared, branch, loop.
    bool can_call = !ctx.callable.empty() && m_calls < m_max_calls;
    int w[8] = {34,
                6,
                16,
                ctx.out_ptrs.empty() ? 0 : 7,
                can_call ? 6 : 0,
                (ctx.is_kernel && scope.uniform && !m_shared.empty()) ? 6 : 0,
                can_nest ? 9 : 0,
                can_nest && scope.loop_depth < k_max_loop_depth ? 10 : 0};
    int total = 0;
    for (int x : w)
      total += x;
    int r = static_cast<int>(m_rng.below(static_cast<uint64_t>(total)));
    int pick = 0;
    while (r >= w[pick])
      r -= w[pick++];
    switch (pick) {
    case 0:
      stmt_math(f, scope);
      break;
    case 1:
      stmt_int(f, scope);
      break;
    case 2:
      stmt_load(f, ctx, scope);
      break;
    case 3:
      stmt_store(f, ctx, scope);
      break;
    case 4:
      stmt_call(f, ctx, scope);
      break;
    case 5:
      stmt_shared(f, ctx, scope);
      break;
    case 6:
      stmt_branch(f, ctx, scope, sub_budget(remaining));
      break;
    default:
      stmt_loop(f, ctx, scope, sub_budget(remaining));
      break;
    }
  }
  // Fold what nothing used yet into the region's value, so that no work is dead.
  std::string result = scope.floats.back();
  use(scope, result);
  for (const auto& u : scope.unused) {
    std::string v = f.value();
    f.emit(fmt::format("{} = fadd float {}, {}", v, result, u));
    result = v;
  }
  return result;
}

void KernelGenerator::stmt_math(IrFunction& f, Scope& s) {
  std::string a = recent_float(s);
  std::string b = m_rng.pick(s.floats);
  std::string c = m_rng.chance(50) ? m_rng.pick(k_float_constants) : recent(s.floats);
  std::string v = f.value();
  uint64_t op = m_rng.below(11);
  if (op == 0 || op == 3 || op == 4 || op == 7 || op == 9) use(s, b);
  if ((op >= 1 && op <= 4) || op == 9) use(s, c);
  switch (op) {
  case 0:
    f.emit(fmt::format("{} = fadd float {}, {}", v, a, b));
    break;
  case 1:
    f.emit(fmt::format("{} = fsub float {}, {}", v, a, c));
    break;
  case 2:
    f.emit(fmt::format("{} = fmul float {}, {}", v, a, c));
    break;
  case 3:
    f.emit(fmt::format(
        "{} = call float @{}(float {}, float {}, float {})", v,
        intrinsic("llvm.fma.f32", "declare float @llvm.fma.f32(float, float, float)"), a, b, c));
    break;
  case 4:
    f.emit(fmt::format(
        "{} = call float @{}(float {}, float {}, float {})", v,
        intrinsic("llvm.nvvm.fma.rn.f", "declare float @llvm.nvvm.fma.rn.f(float, float, float)"),
        b, c, a));
    break;
  case 5: {
    // 2^min(a/8, 16): an argument past 128 gives inf, and the sums that follow NaN.
    std::string t = v;
    std::string capped = f.value();
    v = f.value();
    f.emit(fmt::format("{} = fmul float {}, 1.250000e-01", t, a));
    f.emit(fmt::format(
        "{} = call float @{}(float {}, float 1.600000e+01)", capped,
        intrinsic("llvm.nvvm.fmin.f", "declare float @llvm.nvvm.fmin.f(float, float)"), t));
    f.emit(fmt::format(
        "{} = call float @{}(float {})", v,
        intrinsic("llvm.nvvm.ex2.approx.f", "declare float @llvm.nvvm.ex2.approx.f(float)"),
        capped));
    break;
  }
  case 6: {
    std::string t = v;
    v = f.value();
    f.emit(fmt::format("{} = call float @{}(float {})", t,
                       intrinsic("llvm.fabs.f32", "declare float @llvm.fabs.f32(float)"), a));
    f.emit(fmt::format(
        "{} = call float @{}(float {})", v,
        intrinsic("llvm.nvvm.sqrt.rn.f", "declare float @llvm.nvvm.sqrt.rn.f(float)"), t));
    break;
  }
  case 7: {
    bool max = m_rng.chance(50);
    std::string name = max ? "llvm.nvvm.fmax.f" : "llvm.nvvm.fmin.f";
    f.emit(fmt::format("{} = call float @{}(float {}, float {})", v,
                       intrinsic(name, fmt::format("declare float @{}(float, float)", name)), a,
                       b));
    break;
  }
  case 8: {
    std::string t = v;
    std::string u = f.value();
    v = f.value();
    f.emit(fmt::format("{} = call float @{}(float {})", t,
                       intrinsic("llvm.fabs.f32", "declare float @llvm.fabs.f32(float)"), a));
    f.emit(fmt::format("{} = fadd float {}, 1.000000e+00", u, t));
    f.emit(fmt::format("{} = call float @{}(float {})", v,
                       intrinsic("llvm.nvvm.rcp.rn.f", "declare float @llvm.nvvm.rcp.rn.f(float)"),
                       u));
    break;
  }
  case 9: {
    std::string cmp = v;
    v = f.value();
    f.emit(fmt::format("{} = fcmp {} float {}, {}", cmp, m_rng.chance(50) ? "olt" : "ogt", a, b));
    f.emit(fmt::format("{} = select i1 {}, float {}, float {}", v, cmp, a, c));
    break;
  }
  default: {
    // A small integer only: the ints here include random index words, and one of those
    // (up to 2^31) times a float overflows what follows to inf, and inf - inf to NaN.
    std::string small = v;
    std::string t = f.value();
    v = f.value();
    f.emit(fmt::format("{} = and i32 {}, 1023", small, recent(s.ints)));
    f.emit(fmt::format("{} = sitofp i32 {} to float", t, small));
    f.emit(fmt::format("{} = fmul float {}, {}", v, t, a));
    break;
  }
  }
  define(s, v);
}

void KernelGenerator::stmt_int(IrFunction& f, Scope& s) {
  std::string a = recent(s.ints);
  std::string v = f.value();
  switch (m_rng.below(4)) {
  case 0:
    f.emit(fmt::format("{} = add i32 {}, {}", v, a, m_rng.pick(s.ints)));
    break;
  case 1:
    f.emit(fmt::format("{} = mul i32 {}, {}", v, a, 3 + 2 * m_rng.below(8)));
    break;
  case 2:
    f.emit(fmt::format("{} = xor i32 {}, {}", v, a, m_rng.pick(s.ints)));
    break;
  default:
    f.emit(fmt::format("{} = and i32 {}, {}", v, a, (1 << (8 + m_rng.below(8))) - 1));
    break;
  }
  s.ints.push_back(v);
}

void KernelGenerator::stmt_load(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  std::string index = recent(s.ints);
  if (!ctx.index_ptrs.empty() && m_rng.chance(30)) { // gather: p[idx[i] & mask]
    std::string ip = m_rng.pick(ctx.index_ptrs);
    std::string in = f.value();
    f.emit(fmt::format("{} = and i32 {}, {}", in, index, k_input_elements - 1));
    std::string i64 = index64(f, in);
    std::string q = f.value(), x = f.value(), masked = f.value();
    f.emit(fmt::format("{} = getelementptr inbounds i32, {} {}, i64 {}", q, m_types.global("i32"),
                       ip, i64));
    f.emit(fmt::format("{} = load i32, {} {}, align 4", x, m_types.global("i32"), q));
    f.emit(fmt::format("{} = and i32 {}, 4095", masked, x));
    s.ints.push_back(masked);
    index = masked;
  } else if (m_rng.chance(50)) {
    std::string off = f.value();
    f.emit(fmt::format("{} = add i32 {}, {}", off, index, 1 + m_rng.below(64)));
    index = off;
  }
  std::string in = f.value();
  f.emit(fmt::format("{} = and i32 {}, {}", in, index, k_input_elements - 1));
  std::string i64 = index64(f, in);
  std::string q = f.value(), v = f.value();
  f.emit(fmt::format("{} = getelementptr inbounds float, {} {}, i64 {}", q, m_types.global("float"),
                     m_rng.pick(ctx.float_ptrs), i64));
  f.emit(fmt::format("{} = load float, {} {}, align 4", v, m_types.global("float"), q));
  define(s, v);
}

// Only the kernel stores, and only to its own element of an output.
void KernelGenerator::stmt_store(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  std::string q = f.value();
  f.emit(fmt::format("{} = getelementptr inbounds float, {} {}, i64 {}", q, m_types.global("float"),
                     m_rng.pick(ctx.out_ptrs), ctx.gid64));
  f.emit(
      fmt::format("store float {}, {} {}, align 4", recent_float(s), m_types.global("float"), q));
}

void KernelGenerator::stmt_call(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  ++m_calls;
  std::string v = f.value();
  f.emit(fmt::format("{} = call float @{}({} {}, i32 {}, float {}, float {})", v,
                     m_rng.pick(ctx.callable), m_types.global("float"), m_rng.pick(ctx.float_ptrs),
                     recent(s.ints), recent_float(s), any_float(s)));
  define(s, v);
}

// Stage a value through shared memory: write my slot, sync, read a neighbour's, sync. Every
// array holds at least .maxntid elements, so each thread's slot (tid) is its own, and the
// neighbour ((tid + k) mod ntid) is a thread of the block that wrote before the barrier.
void KernelGenerator::stmt_shared(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  const SharedArray& arr = m_rng.pick(m_shared);
  std::string type = fmt::format("[{} x float]", arr.elements);
  std::string barrier = intrinsic("llvm.nvvm.barrier0", "declare void @llvm.nvvm.barrier0()");
  std::string mine64 = f.value(), slot = f.value();
  f.emit(fmt::format("{} = zext i32 {} to i64", mine64, ctx.tid));
  f.emit(fmt::format("{} = getelementptr inbounds {}, {} @{}, i64 0, i64 {}", slot, type,
                     m_types.shared(type), arr.name, mine64));
  f.emit(fmt::format("store float {}, {} {}, align 4", recent_float(s), m_types.shared("float"),
                     slot));
  f.emit(fmt::format("call void @{}()", barrier));
  std::string other = f.value(), wrapped = f.value(), other64 = f.value(), q = f.value(),
              v = f.value();
  f.emit(fmt::format("{} = add i32 {}, {}", other, ctx.tid,
                     1 + m_rng.below(static_cast<uint64_t>(arr.elements - 1))));
  f.emit(fmt::format("{} = urem i32 {}, {}", wrapped, other, ctx.ntid));
  f.emit(fmt::format("{} = zext i32 {} to i64", other64, wrapped));
  f.emit(fmt::format("{} = getelementptr inbounds {}, {} @{}, i64 0, i64 {}", q, type,
                     m_types.shared(type), arr.name, other64));
  f.emit(fmt::format("{} = load float, {} {}, align 4", v, m_types.shared("float"), q));
  f.emit(fmt::format("call void @{}()", barrier));
  m_barriers += 2;
  define(s, v);
}

void KernelGenerator::stmt_branch(IrFunction& f, const FunctionContext& ctx, Scope& s,
                                  size_t budget) {
  // Inside a loop the condition depends on the loop's accumulator: a
  // loop-invariant condition would let the optimizer unswitch (clone) the
  // loop for every branch, which blows up compile time exponentially.
  std::string a = s.loop_variant.empty() ? recent_float(s) : s.loop_variant;
  std::string b = any_float(s);
  std::string cond = f.value();
  f.emit(fmt::format("{} = fcmp {} float {}, {}", cond, m_rng.chance(50) ? "ogt" : "ole", a, b));
  std::string then_label = f.label(), else_label = f.label(), join_label = f.label();
  bool has_else = m_rng.chance(65);
  std::string pre = f.current();
  f.emit(fmt::format("br i1 {}, label %{}, label %{}", cond, then_label,
                     has_else ? else_label : join_label));

  Scope inner = s;
  inner.unused.clear();
  inner.uniform = false;
  inner.depth = s.depth + 1;
  f.start_block(then_label);
  std::string then_value = gen_region(f, ctx, inner, has_else ? budget / 2 : budget);
  std::string then_end = f.current();
  f.emit(fmt::format("br label %{}", join_label));

  std::string else_value = a, else_end = pre;
  if (has_else) {
    f.start_block(else_label);
    else_value = gen_region(f, ctx, inner, budget / 2);
    else_end = f.current();
    f.emit(fmt::format("br label %{}", join_label));
  }
  f.start_block(join_label);
  std::string v = f.value();
  f.emit(fmt::format("{} = phi float [ {}, %{} ], [ {}, %{} ]", v, then_value, then_end, else_value,
                     else_end));
  define(s, v);
}

// for (i = 0; i < bound; ++i) acc += body(i); the accumulator leaves through the header phi.
void KernelGenerator::stmt_loop(IrFunction& f, const FunctionContext& ctx, Scope& s,
                                size_t budget) {
  // Constant trip counts (which the optimizer may unroll fully) only for
  // innermost loops, or nested constant loops multiply into huge code.
  bool constant =
      ctx.trip_counts.empty() || (s.loop_depth + 1 >= k_max_loop_depth && m_rng.chance(60));
  std::string bound = constant ? std::to_string(2 + m_rng.below(7)) : m_rng.pick(ctx.trip_counts);
  std::string init = recent_float(s);
  std::string head = f.label(), body = f.label(), exit = f.label();
  std::string pre = f.current();
  f.emit(fmt::format("br label %{}", head));

  f.start_block(head);
  std::string i = f.value(), acc = f.value(), more = f.value();
  IrFunction::Slot i_phi = f.reserve();
  IrFunction::Slot acc_phi = f.reserve();
  f.emit(fmt::format("{} = icmp slt i32 {}, {}", more, i, bound));
  f.emit(fmt::format("br i1 {}, label %{}, label %{}", more, body, exit));

  f.start_block(body);
  Scope inner = s;
  inner.unused.clear();
  inner.depth = s.depth + 1;
  inner.loop_depth = s.loop_depth + 1;
  inner.loop_variant = acc;
  inner.floats.push_back(acc);
  inner.ints.push_back(i);
  std::string stride = f.value();
  f.emit(fmt::format("{} = mul i32 {}, {}", stride, i, 32 << m_rng.below(4)));
  std::string index = f.value();
  f.emit(fmt::format("{} = add i32 {}, {}", index, stride, recent(s.ints)));
  inner.ints.push_back(index);
  std::string value = gen_region(f, ctx, inner, budget);
  std::string acc_next = f.value(), acc_low = f.value(), acc_bounded = f.value();
  std::string i_next = f.value();
  if (m_rng.chance(50))
    f.emit(fmt::format("{} = fadd float {}, {}", acc_next, acc, value));
  else
    f.emit(
        fmt::format("{} = call float @{}(float {}, float {}, float {})", acc_next,
                    intrinsic("llvm.fma.f32", "declare float @llvm.fma.f32(float, float, float)"),
                    value, m_rng.pick(k_float_constants), acc));
  // The accumulator is clamped to [-64, 64] on every trip: a body that multiplies it grows it
  // geometrically, and nested loops overflow it to inf (and NaN after), which would leave
  // every output unable to show a difference between two variants (`kdet impact --run`).
  f.emit(fmt::format("{} = call float @{}(float {}, float -6.400000e+01)", acc_low,
                     intrinsic("llvm.nvvm.fmax.f", "declare float @llvm.nvvm.fmax.f(float, float)"),
                     acc_next));
  f.emit(fmt::format("{} = call float @{}(float {}, float 6.400000e+01)", acc_bounded,
                     intrinsic("llvm.nvvm.fmin.f", "declare float @llvm.nvvm.fmin.f(float, float)"),
                     acc_low));
  f.emit(fmt::format("{} = add nsw i32 {}, 1", i_next, i));
  std::string latch = f.current();
  f.emit(fmt::format("br label %{}", head));
  f.patch(i_phi, fmt::format("{} = phi i32 [ 0, %{} ], [ {}, %{} ]", i, pre, i_next, latch));
  f.patch(acc_phi, fmt::format("{} = phi float [ {}, %{} ], [ {}, %{} ]", acc, init, pre,
                               acc_bounded, latch));

  f.start_block(exit);
  ++m_loops;
  define(s, acc);
}

} // namespace kdet::corpus::detail
