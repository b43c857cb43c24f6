//===- corpus/generator.cpp - structured random NVVM IR kernels ---------------===//
//
// The generator builds structured code only: straight-line statements, if/else
// diamonds and counted loops, nested up to a fixed depth. A region sees the
// values of the regions around it (they dominate it) and hands back one value
// through a phi, so SSA form holds by construction. Every value gets a name
// (%vN, numbered in emission order), so the llvm7 dialect's rule that
// unnamed values be numbered in order never arises. Barriers are emitted only
// where control flow is uniform (kernel top level and loops with uniform
// bounds), as a CUDA programmer would write them.
//
//===----------------------------------------------------------------------===//
#include "kdet/corpus/generator.hpp"

#include "kdet/corpus/ir_builder.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>

namespace kdet::corpus {

namespace {

constexpr int k_max_depth = 3;      // nesting of branches and loops together
constexpr int k_max_loop_depth = 2; // loops in loops (helpers count as one level: they are inlined)

// Float constants that are exact in binary32 (LLVM rejects inexact float literals).
const std::vector<std::string> k_float_constants = {
    "5.000000e-01", "2.500000e-01",  "1.500000e+00", "2.000000e+00", "1.250000e-01",
    "7.500000e-01", "-1.000000e+00", "3.000000e+00", "6.250000e-02", "1.000000e+00"};

// Values in scope at some point of a function.
struct Scope {
  std::vector<std::string> floats;
  std::vector<std::string> ints;   // i32
  std::vector<std::string> unused; // floats defined in this region and not yet used
  bool uniform = true;             // every thread of a block takes this path
  int depth = 0;
  int loop_depth = 0;
  std::string loop_variant; // inside a loop: the innermost accumulator phi
};

// What a function body may refer to besides its scope.
struct FunctionContext {
  bool is_kernel = false;
  std::vector<std::string> float_ptrs;  // loadable
  std::vector<std::string> out_ptrs;    // storable
  std::vector<std::string> index_ptrs;  // i32 pointers (gathers)
  std::vector<std::string> trip_counts; // uniform i32 loop bounds besides constants
  std::vector<std::string> callable;    // helpers this function may call
  std::string tid;                      // kernel only
};

struct SharedArray {
  std::string name;
  int elements;
};

class KernelGenerator {
public:
  explicit KernelGenerator(const KernelSpec& spec)
      : m_spec(spec), m_rng(mix_seed(spec.seed, 0x6b646574)), m_types{spec.dialect} {}

  Kernel generate();

private:
  std::string gen_region(IrFunction& f, const FunctionContext& ctx, Scope scope, size_t budget);
  void stmt_math(IrFunction& f, Scope& s);
  void stmt_int(IrFunction& f, Scope& s);
  void stmt_load(IrFunction& f, const FunctionContext& ctx, Scope& s);
  void stmt_store(IrFunction& f, const FunctionContext& ctx, Scope& s);
  void stmt_call(IrFunction& f, const FunctionContext& ctx, Scope& s);
  void stmt_shared(IrFunction& f, const FunctionContext& ctx, Scope& s);
  void stmt_branch(IrFunction& f, const FunctionContext& ctx, Scope& s, size_t budget);
  void stmt_loop(IrFunction& f, const FunctionContext& ctx, Scope& s, size_t budget);
  std::string make_helper(size_t index, size_t budget);
  std::string make_kernel(size_t budget);

  // A float from the scope, preferring recent ones so that chains form.
  std::string recent_float(Scope& s) { return use(s, recent(s.floats)); }
  // Any float from the scope.
  std::string any_float(Scope& s) { return use(s, m_rng.pick(s.floats)); }
  std::string use(Scope& s, std::string v) {
    auto it = std::find(s.unused.begin(), s.unused.end(), v);
    if (it != s.unused.end()) s.unused.erase(it);
    return v;
  }
  void define(Scope& s, const std::string& v) {
    s.floats.push_back(v);
    s.unused.push_back(v);
  }
  const std::string& recent(const std::vector<std::string>& v) {
    size_t window = std::min<size_t>(v.size(), 6);
    return v[v.size() - 1 - m_rng.below(window)];
  }
  // An i64 index derived from an i32 scope value (sign-extended like C's int).
  std::string index64(IrFunction& f, const std::string& i32) {
    std::string v = f.value();
    f.emit(fmt::format("{} = sext i32 {} to i64", v, i32));
    return v;
  }
  std::string intrinsic(const std::string& name, const std::string& signature_decl) {
    m_declares.insert(signature_decl);
    return name;
  }
  size_t sub_budget(size_t remaining) {
    size_t hi = std::clamp<size_t>(remaining / 3, 12, 260);
    size_t lo = std::min<size_t>(hi, 8 + remaining / 10);
    return lo + m_rng.below(hi - lo + 1);
  }

  KernelSpec m_spec;
  Rng m_rng;
  Types m_types;
  std::set<std::string> m_declares;
  std::vector<SharedArray> m_shared;
  std::vector<std::string> m_helper_names;
  size_t m_instructions = 0;
  size_t m_loops = 0;
  size_t m_barriers = 0;
  size_t m_pointer_params = 0;
  size_t m_calls = 0; // helper calls so far (each is inlined: they are capped)
  size_t m_max_calls = 0;
  std::string m_kernel_ref; // how metadata names the kernel
};

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
                7,
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
    std::string t = v;
    v = f.value();
    f.emit(fmt::format("{} = fmul float {}, 1.250000e-01", t, a));
    f.emit(fmt::format(
        "{} = call float @{}(float {})", v,
        intrinsic("llvm.nvvm.ex2.approx.f", "declare float @llvm.nvvm.ex2.approx.f(float)"), t));
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
    std::string t = v;
    v = f.value();
    f.emit(fmt::format("{} = sitofp i32 {} to float", t, recent(s.ints)));
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
    std::string i64 = index64(f, index);
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
  std::string i64 = index64(f, index);
  std::string q = f.value(), v = f.value();
  f.emit(fmt::format("{} = getelementptr inbounds float, {} {}, i64 {}", q, m_types.global("float"),
                     m_rng.pick(ctx.float_ptrs), i64));
  f.emit(fmt::format("{} = load float, {} {}, align 4", v, m_types.global("float"), q));
  define(s, v);
}

void KernelGenerator::stmt_store(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  std::string i64 = index64(f, recent(s.ints));
  std::string q = f.value();
  f.emit(fmt::format("{} = getelementptr inbounds float, {} {}, i64 {}", q, m_types.global("float"),
                     m_rng.pick(ctx.out_ptrs), i64));
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

// Stage a value through shared memory: write my slot, sync, read a neighbour's, sync.
void KernelGenerator::stmt_shared(IrFunction& f, const FunctionContext& ctx, Scope& s) {
  const SharedArray& arr = m_rng.pick(m_shared);
  std::string type = fmt::format("[{} x float]", arr.elements);
  std::string barrier = intrinsic("llvm.nvvm.barrier0", "declare void @llvm.nvvm.barrier0()");
  std::string mine = f.value(), mine64 = f.value(), slot = f.value();
  f.emit(fmt::format("{} = and i32 {}, {}", mine, ctx.tid, arr.elements - 1));
  f.emit(fmt::format("{} = zext i32 {} to i64", mine64, mine));
  f.emit(fmt::format("{} = getelementptr inbounds {}, {} @{}, i64 0, i64 {}", slot, type,
                     m_types.shared(type), arr.name, mine64));
  f.emit(fmt::format("store float {}, {} {}, align 4", recent_float(s), m_types.shared("float"),
                     slot));
  f.emit(fmt::format("call void @{}()", barrier));
  std::string other = f.value(), wrapped = f.value(), other64 = f.value(), q = f.value(),
              v = f.value();
  f.emit(fmt::format("{} = add i32 {}, {}", other, ctx.tid,
                     1 + m_rng.below(static_cast<uint64_t>(arr.elements - 1))));
  f.emit(fmt::format("{} = and i32 {}, {}", wrapped, other, arr.elements - 1));
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
  std::string acc_next = f.value(), i_next = f.value();
  if (m_rng.chance(50))
    f.emit(fmt::format("{} = fadd float {}, {}", acc_next, acc, value));
  else
    f.emit(
        fmt::format("{} = call float @{}(float {}, float {}, float {})", acc_next,
                    intrinsic("llvm.fma.f32", "declare float @llvm.fma.f32(float, float, float)"),
                    value, m_rng.pick(k_float_constants), acc));
  f.emit(fmt::format("{} = add nsw i32 {}, 1", i_next, i));
  std::string latch = f.current();
  f.emit(fmt::format("br label %{}", head));
  f.patch(i_phi, fmt::format("{} = phi i32 [ 0, %{} ], [ {}, %{} ]", i, pre, i_next, latch));
  f.patch(acc_phi,
          fmt::format("{} = phi float [ {}, %{} ], [ {}, %{} ]", acc, init, pre, acc_next, latch));

  f.start_block(exit);
  ++m_loops;
  define(s, acc);
}

// float helper(float* p, i32 i, float a, float b): a little region of its own.
std::string KernelGenerator::make_helper(size_t index, size_t budget) {
  std::string name = fmt::format("{}_helper{}", m_spec.name, index);
  IrFunction f;
  f.start_block("entry");
  FunctionContext ctx;
  ctx.float_ptrs = {"%p"};
  ctx.out_ptrs = {"%p"};
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

std::string KernelGenerator::make_kernel(size_t budget) {
  size_t n_float = 4 + m_rng.below(static_cast<uint64_t>(budget > 1000 ? 9 : 5));
  size_t n_index = 1 + m_rng.below(3);
  FunctionContext ctx;
  ctx.is_kernel = true;
  ctx.callable = m_helper_names;
  ctx.tid = "%tid";
  ctx.trip_counts = {"%m", "%m.half"};
  std::vector<std::string> params, param_types;
  for (size_t k = 0; k < n_float; ++k) {
    std::string p = fmt::format("%in{}", k);
    ctx.float_ptrs.push_back(p);
    if (k % 3 == 2) ctx.out_ptrs.push_back(p); // some buffers are read and written
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
  f.emit(fmt::format("%first.p = getelementptr inbounds float, {} %in0, i64 %gid64",
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
  size_t n_shared = 1 + m_rng.below(3);
  for (size_t k = 0; k < n_shared; ++k)
    m_shared.push_back({fmt::format("{}_smem{}", m_spec.name, k), 128 << m_rng.below(4)});

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
  out += fmt::format("!1 = !{{{}, !\"maxntidx\", i32 {}}}\n", m_kernel_ref, 128 << m_rng.below(3));
  out += "!2 = !{i32 2, i32 0}\n";

  Kernel k;
  k.name = m_spec.name;
  k.text = std::move(out);
  k.instructions = m_instructions;
  k.helpers = n_helpers;
  k.pointer_params = m_pointer_params;
  k.loops = m_loops;
  k.barriers = m_barriers;
  return k;
}

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
  return KernelGenerator(spec).generate();
}

} // namespace kdet::corpus
