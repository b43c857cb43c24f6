//===- corpus/kernel_generator.hpp - the kernel generator's state -----------===//
//
// Internal to corpus/: the generator class that generator.cpp (helpers, the
// kernel, the module around them) and statements.cpp (the statements inside a
// function body) both implement. One object generates one kernel from a seed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/corpus/generator.hpp"
#include "kdet/corpus/ir_builder.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string>
#include <vector>

namespace kdet::corpus::detail {

constexpr int k_max_depth = 3;      // nesting of branches and loops together
constexpr int k_max_loop_depth = 2; // loops in loops (helpers count as one level: they are inlined)

// Float constants that are exact in binary32 (LLVM rejects inexact float literals).
inline const std::vector<std::string> k_float_constants = {
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
  std::string ntid;                     // kernel only: threads per block
  std::string gid64;                    // kernel only: the thread's own element of an output
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
  void make_recipe(size_t n_float, size_t n_out, size_t n_index);

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
  uint32_t m_maxntid = 0;   // the kernel's .maxntid: the block its recipe launches
  gpu::Recipe m_recipe;
};

} // namespace kdet::corpus::detail
