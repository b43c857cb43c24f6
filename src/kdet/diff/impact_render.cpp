//===- diff/impact_render.cpp - impact as a line, a table, JSON, a census ---===//
#include "kdet/diff/impact.hpp"
#include "kdet/util/names.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::diff {

namespace {

using nlohmann::json;

template <class T> json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T> std::string show(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string("?");
}

std::string dims(const std::optional<std::array<uint32_t, 3>>& d) {
  return d ? fmt::format("{}x{}x{}", (*d)[0], (*d)[1], (*d)[2]) : std::string("-");
}

json resources_json(const KernelResources& k) {
  json c = json::object();
  for (const auto& [bank, size] : k.constant)
    c[std::to_string(bank)] = size;
  auto d = [](const std::optional<std::array<uint32_t, 3>>& v) {
    return v ? json{(*v)[0], (*v)[1], (*v)[2]} : json(nullptr);
  };
  return {{"registers", opt(k.registers)},
          {"stack_frame", opt(k.stack_frame)},
          {"min_stack", opt(k.min_stack)},
          {"max_stack", opt(k.max_stack)},
          {"spill_stores", opt(k.spill_stores)},
          {"spill_loads", opt(k.spill_loads)},
          {"shared", k.shared},
          {"shared_reserved", k.shared_reserved},
          {"constant", std::move(c)},
          {"barriers", k.barriers},
          {"max_threads", d(k.max_threads)},
          {"reqntid", d(k.reqntid)},
          {"max_reg_count", opt(k.max_reg_count)}};
}

json limit(uint32_t v) {
  return v == UINT32_MAX ? json(nullptr) : json(v);
}

json occupancy_json(const std::optional<Occupancy>& o) {
  if (!o) return nullptr;
  return {{"blocks_per_sm", o->blocks_per_sm},
          {"warps_per_sm", o->warps_per_sm},
          {"max_warps_per_sm", o->max_warps_per_sm},
          {"fraction", o->fraction},
          {"limited_by", o->limited_by},
          {"shared_per_sm", o->shared_per_sm},
          {"limits",
           {{"registers", limit(o->by_registers)},
            {"warps", limit(o->by_warps)},
            {"blocks", limit(o->by_blocks)},
            {"shared_memory", limit(o->by_shared)},
            {"barriers", limit(o->by_barriers)}}}};
}

std::string occ_text(const std::optional<Occupancy>& o) {
  if (!o) return "?";
  std::string by;
  for (const auto& l : o->limited_by)
    by += (by.empty() ? "" : ", ") + l;
  return fmt::format("{} blocks, {}/{} warps ({:.0f}%; {})", o->blocks_per_sm, o->warps_per_sm,
                     o->max_warps_per_sm, o->fraction * 100, by);
}

std::string pair(const std::string& a, const std::string& b) {
  return a == b ? a : a + " -> " + b;
}

std::string constants(const KernelResources& k) {
  std::string out;
  for (const auto& [bank, size] : k.constant)
    out += fmt::format("{}c[{}] {}", out.empty() ? "" : ", ", bank, size);
  return out.empty() ? "-" : out;
}

// One kernel's rows of the table; a device function's stop after its spills.
std::string kernel_text(const KernelImpact& k, bool function) {
  // A mangled name is shown demangled, with the symbol after it (what cuobjdump lists).
  std::string shown = demangle(k.name);
  if (shown != k.name) shown += " (" + k.name + ")";
  std::string out =
      fmt::format("{}  {}  [{}]{}\n", function ? "function" : "kernel  ", shown, to_string(k.reach),
                  k.only_in.empty() ? "" : " only in " + k.only_in);
  out += fmt::format("  sass        {} -> {} words: {} same, {} changed, {} moved, {} added, {} "
                     "removed{}\n",
                     k.sass.words_a, k.sass.words_b, k.sass.same, k.sass.changed, k.sass.moved,
                     k.sass.added, k.sass.removed, k.sass.approximate ? " (approximate)" : "");
  const KernelResources &a = k.a, &b = k.b;
  out += fmt::format("  registers   {}\n", pair(show(a.registers), show(b.registers)));
  out += fmt::format("  stack       {} (frame)\n", pair(show(a.stack_frame), show(b.stack_frame)));
  auto spill = [](const KernelResources& x) {
    return x.spill_stores ? fmt::format("{}/{}", *x.spill_stores, show(x.spill_loads))
                          : std::string("unknown");
  };
  out += fmt::format("  spills      {} (bytes stored/loaded)\n", pair(spill(a), spill(b)));
  if (function) return out; // nothing launches it: no block, no occupancy
  out +=
      fmt::format("  shared      {}\n", pair(std::to_string(a.shared), std::to_string(b.shared)));
  out += fmt::format("  constant    {}\n", pair(constants(a), constants(b)));
  out += fmt::format("  barriers    {}\n",
                     pair(std::to_string(a.barriers), std::to_string(b.barriers)));
  out += fmt::format("  bounds      maxntid {}, reqntid {}\n",
                     pair(dims(a.max_threads), dims(b.max_threads)),
                     pair(dims(a.reqntid), dims(b.reqntid)));
  out += fmt::format("  block       {} threads ({})\n", k.block_size, k.block_from);
  out += fmt::format("  occupancy   {}\n", pair(occ_text(k.occupancy_a), occ_text(k.occupancy_b)));
  return out;
}

// A kernel's entry of kdet.impact/1; a device function's has no block size or occupancy.
json kernel_json(const KernelImpact& k, bool function) {
  json j = {{"name", utf8_safe(k.name)},
            {"reach", to_string(k.reach)},
            {"sass",
             {{"words_a", k.sass.words_a},
              {"words_b", k.sass.words_b},
              {"same", k.sass.same},
              {"changed", k.sass.changed},
              {"moved", k.sass.moved},
              {"added", k.sass.added},
              {"removed", k.sass.removed},
              {"approximate", k.sass.approximate}}},
            {"resources_a", k.only_in == "B" ? json(nullptr) : resources_json(k.a)},
            {"resources_b", k.only_in == "A" ? json(nullptr) : resources_json(k.b)},
            {"changed", k.changed}};
  if (!function) {
    j["block_size"] = k.block_size;
    j["block_from"] = k.block_from;
    j["occupancy_a"] = occupancy_json(k.occupancy_a);
    j["occupancy_b"] = occupancy_json(k.occupancy_b);
  }
  if (!k.only_in.empty()) j["only_in"] = k.only_in;
  return j;
}

} // namespace

std::string reach_line(const ImpactReport& r) {
  if (r.failed) {
    std::string e = !r.error_a.empty() ? "A: " + r.error_a : "B: " + r.error_b;
    return fmt::format("reach unknown: ptxas failed for {} ({})", r.arch, e);
  }
  switch (r.reach) {
  case Reach::identical:
    return "identical inputs";
  case Reach::ptx:
    return fmt::format("stops before the GPU: the {} cubins are identical", r.arch);
  case Reach::metadata:
    return fmt::format("stops before the GPU: the {} cubins differ, but no kernel's SASS or "
                       "resources ({})",
                       r.arch, r.cubin_diff);
  default:
    break;
  }
  size_t sass[2] = {0, 0}, one_sided[2] = {0, 0}; // kernels, device functions
  SassCounts sum;
  std::vector<std::string> changed;
  std::string regs, occ;
  for (int fn = 0; fn < 2; ++fn) {
    for (const auto& k : fn ? r.functions : r.kernels) {
      if (k.reach < Reach::sass) continue;
      ++sass[fn];
      if (!k.only_in.empty()) ++one_sided[fn]; // in one cubin only: no resources to compare
      sum.changed += k.sass.changed;
      sum.moved += k.sass.moved;
      sum.added += k.sass.added;
      sum.removed += k.sass.removed;
      for (const auto& c : k.changed)
        if (std::find(changed.begin(), changed.end(), c) == changed.end()) changed.push_back(c);
      if (regs.empty() && k.a.registers != k.b.registers)
        regs = fmt::format("registers {} -> {}", show(k.a.registers), show(k.b.registers));
      if (occ.empty() && k.reach == Reach::occupancy && k.occupancy_a && k.occupancy_b)
        occ = fmt::format("blocks per SM {} -> {}", k.occupancy_a->blocks_per_sm,
                          k.occupancy_b->blocks_per_sm);
    }
  }
  std::string where = fmt::format("{} of {}", sass[0], plural(r.kernels.size(), "kernel"));
  if (!r.functions.empty())
    where += fmt::format(" and {} of {}", sass[1], plural(r.functions.size(), "device function"));
  std::string line = fmt::format(
      "SASS changed in {} on {} ({} word{} changed, {} moved, {} added, {} removed)", where, r.arch,
      sum.changed, sum.changed == 1 ? "" : "s", sum.moved, sum.added, sum.removed);
  if (r.reach == Reach::sass && one_sided[0] + one_sided[1] > 0) {
    std::string which = one_sided[0] ? plural(one_sided[0], "kernel") : "";
    if (one_sided[1])
      which += (which.empty() ? "" : " and ") + plural(one_sided[1], "device function");
    return line + fmt::format("; {} in one cubin only", which);
  }
  if (r.reach == Reach::sass) return line + "; same resources and occupancy";
  std::string what;
  for (const auto& c : changed)
    what += (what.empty() ? "" : ", ") + c;
  line += "; changed: " + what;
  if (!regs.empty()) line += " (" + regs + ")";
  if (!occ.empty())
    line += "; " + occ;
  else
    line += "; same occupancy";
  return line;
}

json to_json(const ImpactReport& r) {
  json kernels = json::array(), functions = json::array();
  for (const auto& k : r.kernels)
    kernels.push_back(kernel_json(k, false));
  for (const auto& k : r.functions)
    functions.push_back(kernel_json(k, true));
  json out = {{"input_format", r.input_format},
              {"arch", r.arch},
              {"reach", r.failed ? json(nullptr) : json(to_string(r.reach))},
              {"stops_before_gpu", r.failed ? json(nullptr) : json(!reaches_gpu(r.reach))},
              {"summary", utf8_safe(reach_line(r))},
              {"kernels", std::move(kernels)},
              {"functions", std::move(functions)},
              {"notes", json::array()}};
  for (const auto& n : r.notes)
    out["notes"].push_back(utf8_safe(n));
  if (!r.ptxas.empty()) out["ptxas"] = utf8_safe(r.ptxas);
  if (!r.cubin_diff.empty()) out["cubin_diff"] = utf8_safe(r.cubin_diff);
  if (r.failed) {
    out["error_a"] = r.error_a.empty() ? json(nullptr) : json(utf8_safe(r.error_a));
    out["error_b"] = r.error_b.empty() ? json(nullptr) : json(utf8_safe(r.error_b));
  }
  return out;
}

json to_json(const ImpactReport& report, const std::string& name_a, const std::string& name_b,
             uint64_t runs_b, const json* run) {
  json j = to_json(report);
  if (run) j["run"] = *run;
  j["a"] = name_a;
  j["b"] = name_b;
  if (runs_b) j["runs_b"] = runs_b;
  return j;
}

std::string to_text(const ImpactReport& r, bool color) {
  auto bold = [&](const std::string& s) { return color ? "\x1b[1m" + s + "\x1b[0m" : s; };
  std::string out = fmt::format("reach     {}\n", bold(reach_line(r)));
  if (r.failed) {
    if (!r.error_a.empty()) out += fmt::format("ptxas A   {}\n", r.error_a);
    if (!r.error_b.empty()) out += fmt::format("ptxas B   {}\n", r.error_b);
    return out;
  }
  if (!r.ptxas.empty()) out += fmt::format("assembled {} -arch={}\n", r.ptxas, r.arch);
  if (!r.cubin_diff.empty()) out += fmt::format("cubins    {}\n", r.cubin_diff);
  for (const auto& k : r.kernels)
    out += kernel_text(k, false);
  for (const auto& k : r.functions)
    out += kernel_text(k, true);
  for (const auto& n : r.notes)
    out += "note: " + n + "\n";
  return out;
}

} // namespace kdet::diff
