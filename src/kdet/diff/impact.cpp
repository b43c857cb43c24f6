//===- diff/impact.cpp - how far a difference between two outputs reaches ---===//
//
// SASS counts without a disassembler: each kernel's .text as 16-byte words
// (sm_70 and later), aligned by Myers' diff (line_diff.hpp). The words off the
// common subsequence are paired up: a word deleted in one place and inserted
// in another is moved; of the rest, as many deleted-inserted pairs as there are
// are changed words, the surplus added or removed. A word's scheduling control
// bits are part of it, so a change of stall counts alone is a changed word.
//
//===----------------------------------------------------------------------===//
#include "kdet/diff/impact.hpp"

#include "kdet/diff/diff.hpp"
#include "kdet/diff/line_diff.hpp"
#include "kdet/util/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace kdet::diff {

namespace {

constexpr size_t k_word = 16;

// Fills the spill numbers ptxas -v gave.
void add_spills(CubinResources& r, const std::map<std::string, PtxasFunction>* spills) {
  if (!spills) return;
  for (auto& k : r.kernels) {
    auto it = spills->find(k.name);
    if (it == spills->end()) continue;
    k.spill_stores = it->second.spill_stores;
    k.spill_loads = it->second.spill_loads;
  }
}

CubinResources read_or_throw(std::string_view data, const char* side) {
  Result<CubinResources> r = read_resources(data);
  if (!r) throw Error::format("{} is not a readable CUDA ELF: {}", side, r.why());
  return std::move(r).value();
}

// The resources that differ between a and b, by name.
std::vector<std::string> changed_resources(const KernelResources& a, const KernelResources& b) {
  std::vector<std::string> out;
  auto check = [&](bool differs, const char* name) {
    if (differs) out.emplace_back(name);
  };
  check(a.registers != b.registers, "registers");
  check(a.stack_frame != b.stack_frame, "stack frame");
  check(a.min_stack != b.min_stack || a.max_stack != b.max_stack, "stack size");
  // Spills compare only where both are known: a cubin given as it is has none.
  check(a.spill_stores && b.spill_stores && a.spill_stores != b.spill_stores, "spill stores");
  check(a.spill_loads && b.spill_loads && a.spill_loads != b.spill_loads, "spill loads");
  check(a.shared != b.shared, "shared memory");
  check(a.constant != b.constant, "constant memory");
  check(a.barriers != b.barriers, "barriers");
  check(a.max_threads != b.max_threads || a.reqntid != b.reqntid, "launch bounds");
  check(a.max_reg_count != b.max_reg_count, "max registers");
  return out;
}

uint32_t product(const std::array<uint32_t, 3>& d) {
  uint64_t p = uint64_t{d[0]} * d[1] * d[2];
  return p > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(p);
}

// The block size of a kernel: its .reqntid, else its .maxntid, else --block, else the default.
uint32_t block_of(const KernelResources& k, const ImpactOptions& o, std::string& from) {
  if (k.reqntid && product(*k.reqntid) > 0) {
    from = "reqntid";
    return product(*k.reqntid);
  }
  if (k.max_threads && product(*k.max_threads) > 0) {
    from = "maxntid";
    return product(*k.max_threads);
  }
  from = o.block ? "--block" : "default";
  return o.block ? *o.block : k_default_block;
}

std::optional<Occupancy> occupancy_of(const ArchLimits* arch, const KernelResources& k,
                                      uint32_t block, int carveout) {
  if (!arch || !k.registers) return std::nullopt;
  OccupancyInput in;
  in.registers = *k.registers;
  in.static_shared = k.shared;
  in.barriers = k.barriers;
  in.block_size = block;
  in.carveout = carveout;
  return occupancy(*arch, in);
}

// One kernel, or one device function (`function`): no block size, no occupancy.
KernelImpact compare_kernel(const KernelResources* a, const KernelResources* b,
                            const ArchLimits* arch, const ImpactOptions& o, bool function = false) {
  KernelImpact k;
  k.name = a ? a->name : b->name;
  if (a) k.a = *a;
  if (b) k.b = *b;
  k.a.text.clear();
  k.b.text.clear();
  k.sass = count_sass(a ? a->text : "", b ? b->text : "");
  // Both sides launch with one block size: the launch bounds of A (or of B where A lacks the
  // kernel), so that a change of bounds shows as a change of occupancy, not of block size.
  if (!function) {
    k.block_size = block_of(a ? *a : *b, o, k.block_from);
    if (a) k.occupancy_a = occupancy_of(arch, *a, k.block_size, o.carveout);
    if (b) k.occupancy_b = occupancy_of(arch, *b, k.block_size, o.carveout);
  }
  if (!a || !b) {
    k.only_in = a ? "A" : "B";
    k.reach = Reach::sass;
    return k;
  }
  k.changed = changed_resources(*a, *b);
  bool occupancy_differs =
      (k.occupancy_a.has_value() != k.occupancy_b.has_value()) ||
      (k.occupancy_a && k.occupancy_a->blocks_per_sm != k.occupancy_b->blocks_per_sm);
  if (occupancy_differs)
    k.reach = Reach::occupancy;
  else if (!k.changed.empty())
    k.reach = Reach::resources;
  else if (a->text != b->text)
    k.reach = Reach::sass;
  else
    k.reach = Reach::identical;
  return k;
}

// Compares the kernels (or device functions) of A with B's of the same name, in A's order
// then B's own.
void pair_up(const std::vector<KernelResources>& ka, const std::vector<KernelResources>& kb,
             std::vector<KernelImpact>& out, const ArchLimits* arch, const ImpactOptions& o,
             bool functions) {
  std::map<std::string, const KernelResources*> in_b;
  for (const auto& k : kb)
    in_b[k.name] = &k;
  for (const auto& k : ka) {
    auto it = in_b.find(k.name);
    out.push_back(compare_kernel(&k, it == in_b.end() ? nullptr : it->second, arch, o, functions));
    if (it != in_b.end()) in_b.erase(it);
  }
  for (const auto& k : kb)
    if (in_b.count(k.name)) out.push_back(compare_kernel(nullptr, &k, arch, o, functions));
}

} // namespace

const char* to_string(Reach reach) {
  switch (reach) {
  case Reach::identical:
    return "identical";
  case Reach::ptx:
    return "ptx";
  case Reach::metadata:
    return "metadata";
  case Reach::sass:
    return "sass";
  case Reach::resources:
    return "resources";
  case Reach::occupancy:
    return "occupancy";
  }
  return "identical";
}

bool reaches_gpu(Reach reach) {
  return reach >= Reach::sass;
}

SassCounts count_sass(std::string_view ta, std::string_view tb) {
  SassCounts c;
  auto words = [](std::string_view t) {
    std::vector<std::string_view> w;
    for (size_t i = 0; i < t.size(); i += k_word)
      w.push_back(t.substr(i, k_word));
    return w;
  };
  auto wa = words(ta), wb = words(tb);
  c.words_a = wa.size();
  c.words_b = wb.size();
  if (ta == tb) {
    c.same = wa.size();
    return c;
  }
  detail::Interner in;
  std::vector<uint32_t> ia, ib;
  for (auto w : wa)
    ia.push_back(in.id(w));
  for (auto w : wb)
    ib.push_back(in.id(w));
  detail::EditScript s = detail::diff_sequences(ia, ib);
  c.approximate = s.approximate;
  c.same = s.kept;
  std::map<uint32_t, long> balance; // deleted minus inserted, per word
  size_t del = 0, ins = 0;
  for (const auto& e : s.edits) {
    if (e.op == detail::Edit::Op::del) ++balance[ia[e.i]], ++del;
    if (e.op == detail::Edit::Op::ins) --balance[ib[e.j]], ++ins;
  }
  size_t unmatched_del = 0;
  for (const auto& [w, n] : balance)
    if (n > 0) unmatched_del += static_cast<size_t>(n);
  c.moved = del - unmatched_del; // each matched pair is one word moved
  size_t rest_del = unmatched_del, rest_ins = ins - c.moved;
  c.changed = std::min(rest_del, rest_ins);
  c.removed = rest_del - c.changed;
  c.added = rest_ins - c.changed;
  return c;
}

ImpactReport impact_cubins(std::string_view a, std::string_view b, const ImpactOptions& o,
                           const std::map<std::string, PtxasFunction>* spills_a,
                           const std::map<std::string, PtxasFunction>* spills_b) {
  CubinResources ra = read_or_throw(a, "A"), rb = read_or_throw(b, "B");
  add_spills(ra, spills_a);
  add_spills(rb, spills_b);
  ImpactReport r;
  r.input_format = "cubin";
  r.arch = sm_name(ra.sm);
  if (!o.arch.empty()) {
    auto want = parse_sm(o.arch);
    if (!want || *want != ra.sm || ra.sm != rb.sm)
      throw Error::format("--arch {}: the cubins are for {} and {}", o.arch, sm_name(ra.sm),
                          sm_name(rb.sm));
  }
  if (ra.sm != rb.sm)
    r.notes.push_back(
        fmt::format("A is for {}, B for {}: occupancy uses A's", sm_name(ra.sm), sm_name(rb.sm)));
  const ArchLimits* arch = arch_limits(ra.sm);
  if (!arch)
    r.notes.push_back(fmt::format("occupancy unknown: {} is not in kdet's table of "
                                  "architectures",
                                  sm_name(ra.sm)));
  if (a == b) {
    r.reach = Reach::identical;
  } else {
    try {
      r.cubin_diff = summary_line(compare(a, b, std::optional<Format>(Format::cubin)));
    } catch (const Error& e) {
      r.cubin_diff = e.what();
    }
  }
  pair_up(ra.kernels, rb.kernels, r.kernels, arch, o, false);
  pair_up(ra.functions, rb.functions, r.functions, arch, o, true);
  Reach top = a == b ? Reach::identical : Reach::metadata;
  for (const auto* list : {&r.kernels, &r.functions})
    for (const auto& k : *list)
      top = std::max(top, k.reach);
  r.reach = top;
  bool any_block_default = false;
  for (const auto& k : r.kernels)
    any_block_default |= k.block_from == "default";
  if (any_block_default)
    r.notes.push_back(fmt::format("a kernel without launch bounds is counted at {} threads a "
                                  "block (--block N sets another)",
                                  k_default_block));
  return r;
}

ImpactReport impact_ptx(std::string_view a, std::string_view b, const ImpactOptions& o) {
  std::string arch = o.arch;
  if (arch.empty()) {
    arch = ptx_target(a);
    if (arch.empty() || !parse_sm(arch) || arch.rfind("sm_", 0) != 0)
      throw Error::format("A's .target is {}: give --arch sm_XX to assemble it",
                          arch.empty() ? "missing" : arch);
  }
  if (!parse_sm(arch)) throw Error::format("--arch {}: expected sm_XX, such as sm_80", arch);
  Assembly xa = assemble(o.ptxas, a, arch);
  Assembly xb = assemble(o.ptxas, b, arch);
  ImpactReport r;
  if (!xa.ok || !xb.ok) {
    r.input_format = "ptx";
    r.arch = arch;
    r.ptxas = o.ptxas.ptxas;
    r.failed = true;
    r.error_a = xa.ok ? "" : xa.error;
    r.error_b = xb.ok ? "" : xb.error;
    return r;
  }
  ImpactOptions cubin_options = o;
  cubin_options.arch.clear();
  r = impact_cubins(xa.cubin, xb.cubin, cubin_options, &xa.functions, &xb.functions);
  r.input_format = "ptx";
  r.arch = arch;
  r.ptxas = o.ptxas.ptxas;
  if (xa.cubin == xb.cubin) {
    std::string_view ta = a, tb = b;
    while (!ta.empty() && ta.back() == '\0')
      ta.remove_suffix(1);
    while (!tb.empty() && tb.back() == '\0')
      tb.remove_suffix(1);
    r.reach = ta == tb ? Reach::identical : Reach::ptx;
  }
  return r;
}

ImpactReport impact(std::string_view a, std::string_view b, const ImpactOptions& o) {
  Format fa = detect_format(a), fb = detect_format(b);
  if (fa == Format::ptx && fb == Format::ptx) return impact_ptx(a, b, o);
  if (fa == Format::cubin && fb == Format::cubin) return impact_cubins(a, b, o);
  throw Error::format("A is {} and B is {}: kdet impact compares two PTX files or two cubins",
                      to_string(fa), to_string(fb));
}

} // namespace kdet::diff
