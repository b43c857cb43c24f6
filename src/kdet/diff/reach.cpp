//===- diff/reach.cpp - a variance's reach, one line, for run, scan and builds ---===//
#include "kdet/diff/reach.hpp"

#include "kdet/diff/diff.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace kdet::diff {

namespace {

using nlohmann::json;

bool starts(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// The arch an option names, or "" for none; `next` is the token after it (for "-arch X").
// `used_next` is set when the value was taken from it.
std::string option_arch(std::string_view t, std::string_view next, bool& used_next) {
  used_next = false;
  for (std::string_view o : {"-arch", "--gpu-architecture", "--gpu-name", "-gencode",
                             "--generate-code", "-code", "--gpu-code"}) {
    std::string_view value;
    if (t == o) {
      value = next;
      used_next = true;
    } else if (starts(t, o) && t.size() > o.size() && t[o.size()] == '=') {
      value = t.substr(o.size() + 1);
    } else {
      continue;
    }
    // -gencode arch=compute_80,code=sm_80: the code is what runs; a list takes its first.
    if (auto c = value.find("code="); c != std::string_view::npos) {
      value = value.substr(c + 5);
    } else if (starts(value, "arch=")) {
      value = value.substr(5);
    }
    value = value.substr(0, value.find_first_of(",]"));
    if (!value.empty() && value.front() == '[') value.remove_prefix(1);
    return sm_arch(value);
  }
  return "";
}

template <class T> json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string show(const std::optional<uint32_t>& v) {
  return v ? std::to_string(*v) : std::string("?");
}

// The blocks per SM of a side, or "?".
std::string blocks(const std::optional<Occupancy>& o) {
  return o ? std::to_string(o->blocks_per_sm) : std::string("?");
}

bool same_blocks(const KernelImpact& k) {
  return k.occupancy_a.has_value() == k.occupancy_b.has_value() &&
         (!k.occupancy_a || k.occupancy_a->blocks_per_sm == k.occupancy_b->blocks_per_sm);
}

// "51 registers, 2 blocks/SM" of A's side of the one kernel, "3 kernels" for several; " (and
// 2 device functions)" after either where the cubins have some.
std::string resources_brief(const ImpactReport& r) {
  std::string out = plural(r.kernels.size(), "kernel");
  if (r.kernels.size() == 1) {
    const KernelImpact& k = r.kernels.front();
    out = fmt::format("{} registers, {} blocks/SM", show(k.a.registers), blocks(k.occupancy_a));
  }
  if (!r.functions.empty())
    out += fmt::format(" (and {})", plural(r.functions.size(), "device function"));
  return out;
}

} // namespace

std::string sm_arch(std::string_view v) {
  for (std::string_view p : {"sm_", "compute_", "lto_"})
    if (starts(v, p)) {
      v.remove_prefix(p.size());
      break;
    }
  std::string_view digits = v;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  if (digits.size() < 2 || digits.size() > 3) return "";
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return "";
  return "sm_" + std::string(v);
}

Result<std::string> arch_from_options(const std::vector<std::string>& options) {
  std::string found;
  for (size_t i = 0; i < options.size(); ++i) {
    bool used_next = false;
    std::string arch =
        option_arch(options[i], i + 1 < options.size() ? options[i + 1] : "", used_next);
    if (used_next) ++i;
    if (arch.empty()) continue;
    if (!found.empty() && found != arch)
      return failure(fmt::format("the options name {} and {}", found, arch));
    found = arch;
  }
  if (found.empty()) return failure(std::string(k_no_arch));
  return found;
}

bool reach_artifact(std::string_view data) {
  Format f = detect_format(data);
  return f == Format::ptx || f == Format::cubin;
}

VariantReach variant_reach(std::string_view ref, std::string_view other, const ReachOptions& o) {
  VariantReach out;
  auto unknown = [&](std::string why) {
    out.unknown = std::move(why);
    out.summary = "reach unknown: " + out.unknown;
    return out;
  };
  Format fa = detect_format(ref), fb = detect_format(other);
  if (fa == Format::cubin && fb == Format::cubin) {
    ImpactOptions io;
    if (o.block) io.block = o.block;
    try {
      out.report = impact_cubins(ref, other, io);
    } catch (const Error& e) {
      return unknown(e.what());
    }
  } else if (fa == Format::ptx && fb == Format::ptx) {
    if (o.arch.empty())
      return unknown(o.arch_why.empty() ? std::string("no target")
                                        : fmt::format("no target ({})", o.arch_why));
    if (o.ptxas.ptxas.empty()) return unknown("no ptxas");
    ImpactOptions io;
    io.arch = o.arch;
    io.ptxas = o.ptxas;
    if (o.block) io.block = o.block;
    try {
      out.report = impact_ptx(ref, other, io);
    } catch (const Error& e) {
      return unknown(e.what());
    }
    if (out.report->failed) out.unknown = "ptxas failed";
  } else {
    return unknown(fmt::format("{} against {}, not two PTX files or two cubins", to_string(fa),
                               to_string(fb)));
  }
  out.summary = reach_summary(*out.report);
  return out;
}

std::string reach_summary(const ImpactReport& r) {
  if (r.failed) return reach_line(r); // "reach unknown: ptxas failed for sm_80 (A: ...)"
  switch (r.reach) {
  case Reach::identical:
    return fmt::format("identical outputs: {}, {}", r.arch, resources_brief(r));
  case Reach::ptx:
    return fmt::format("stops before the GPU (cubins identical): {}, {}", r.arch,
                       resources_brief(r));
  case Reach::metadata:
    return fmt::format("stops before the GPU (cubins differ in metadata only): {}, {}", r.arch,
                       resources_brief(r));
  default:
    break;
  }
  SassCounts sum;
  size_t words = 0, reaching[2] = {0, 0}; // kernels, device functions
  const KernelImpact* regs = nullptr;     // the first whose registers differ
  const KernelImpact* occ = nullptr;      // the first kernel whose blocks per SM differ
  std::vector<std::string> other;         // other resources that differ
  for (int fn = 0; fn < 2; ++fn) {
    for (const auto& k : fn ? r.functions : r.kernels) {
      words += k.only_in == "B" ? 0 : k.sass.words_a;
      if (k.reach < Reach::sass) continue;
      ++reaching[fn];
      sum.changed += k.sass.changed;
      sum.moved += k.sass.moved;
      sum.added += k.sass.added;
      sum.removed += k.sass.removed;
      if (!regs && k.only_in.empty() && k.a.registers != k.b.registers) regs = &k;
      if (!occ && !fn && k.only_in.empty() && !same_blocks(k)) occ = &k;
      for (const auto& c : k.changed)
        if (c != "registers" && std::find(other.begin(), other.end(), c) == other.end())
          other.push_back(c);
    }
  }
  std::string s = fmt::format("SASS: {} of {} instructions changed", sum.changed, words);
  if (sum.moved) s += fmt::format(", {} moved", sum.moved);
  if (sum.added) s += fmt::format(", {} added", sum.added);
  if (sum.removed) s += fmt::format(", {} removed", sum.removed);
  // With device functions, or several kernels, the counts are where: "in 1 of 2 kernels and 1
  // of 3 device functions", and a register or occupancy change names its kernel.
  bool several = r.kernels.size() > 1 || !r.functions.empty();
  if (several) s += fmt::format(" in {} of {}", reaching[0], plural(r.kernels.size(), "kernel"));
  if (!r.functions.empty())
    s += fmt::format(" and {} of {}", reaching[1], plural(r.functions.size(), "device function"));
  auto named = [&](const KernelImpact& k) { return several ? " (" + k.name + ")" : std::string(); };
  if (regs)
    s += fmt::format(", registers {} -> {}{}", show(regs->a.registers), show(regs->b.registers),
                     named(*regs));
  else if (!several && !r.kernels.empty())
    s += fmt::format(", same {} registers", show(r.kernels.front().a.registers));
  else
    s += ", same registers";
  for (const auto& c : other)
    s += fmt::format(", {} changed", c);
  if (occ)
    s += fmt::format(", blocks/SM {} -> {}{}", blocks(occ->occupancy_a), blocks(occ->occupancy_b),
                     named(*occ));
  else if (!several && !r.kernels.empty())
    s += fmt::format(", same occupancy ({} blocks/SM)", blocks(r.kernels.front().occupancy_a));
  else
    s += ", same occupancy";
  return s + " on " + r.arch;
}

json to_json(const VariantReach& v) {
  json out = {{"arch", nullptr},
              {"reach", nullptr},
              {"stops_before_gpu", nullptr},
              {"summary", utf8_safe(v.summary)},
              {"kernels", json::array()},
              {"functions", json::array()}};
  if (!v.unknown.empty()) out["unknown"] = utf8_safe(v.unknown);
  if (!v.report) return out;
  const ImpactReport& r = *v.report;
  out["arch"] = r.arch;
  if (r.failed) return out;
  out["reach"] = to_string(r.reach);
  out["stops_before_gpu"] = !reaches_gpu(r.reach);
  auto occ = [](const std::optional<Occupancy>& o) {
    return o ? json(o->blocks_per_sm) : json(nullptr);
  };
  for (int fn = 0; fn < 2; ++fn)
    for (const auto& k : fn ? r.functions : r.kernels)
      out[fn ? "functions" : "kernels"].push_back(
          {{"name", utf8_safe(k.name)},
           {"reach", to_string(k.reach)},
           {"instructions", k.sass.words_a},
           {"changed", k.sass.changed},
           {"moved", k.sass.moved},
           {"added", k.sass.added},
           {"removed", k.sass.removed},
           {"registers_a", k.only_in == "B" ? json(nullptr) : opt(k.a.registers)},
           {"registers_b", k.only_in == "A" ? json(nullptr) : opt(k.b.registers)},
           {"blocks_per_sm_a", occ(k.occupancy_a)},
           {"blocks_per_sm_b", occ(k.occupancy_b)}});
  return out;
}

const VariantReach* farthest(const std::vector<const VariantReach*>& reaches) {
  const VariantReach* best = nullptr;
  for (const VariantReach* r : reaches) {
    if (!r) continue;
    if (!best || (!best->known() && r->known()) ||
        (best->known() && r->known() && r->report->reach > best->report->reach))
      best = r;
  }
  return best;
}

void ReachCensus::add(const ImpactReport& r) {
  ++total;
  if (r.failed) {
    ++unknown;
    ++unknown_why["ptxas failed"];
    return;
  }
  if (!reaches_gpu(r.reach)) ++stop_before_gpu;
  if (r.reach >= Reach::sass) ++sass;
  if (r.reach >= Reach::resources) ++resources;
  if (r.reach == Reach::occupancy) ++occupancy;
  bool regs = false;
  for (const auto* list : {&r.kernels, &r.functions})
    for (const auto& k : *list)
      regs |= k.only_in.empty() && k.a.registers != k.b.registers;
  if (regs) ++registers;
}

void ReachCensus::add(const VariantReach& v) {
  if (v.report) {
    add(*v.report);
    return;
  }
  ++total;
  ++unknown;
  // The reason's head ("no target (no -arch in the options)" counts as "no target").
  ++unknown_why[v.unknown.substr(0, v.unknown.find(" ("))];
}

std::string ReachCensus::line(const std::string& what) const {
  std::string s = fmt::format("of {} varying {}: {} stop before the GPU, {} change SASS, {} change "
                              "registers, {} change occupancy",
                              total, total == 1 ? what : what + "s", stop_before_gpu, sass,
                              registers, occupancy);
  if (unknown) {
    std::string why;
    for (const auto& [reason, n] : unknown_why)
      why += fmt::format("{}{}: {}", why.empty() ? "" : ", ", reason, n);
    s += fmt::format(", {} reach unknown ({})", unknown, why);
  }
  return s;
}

nlohmann::json ReachCensus::to_json() const {
  return {{"varying", total},
          {"stop_before_gpu", stop_before_gpu},
          {"change_sass", sass},
          {"change_registers", registers},
          {"change_resources", resources},
          {"change_occupancy", occupancy},
          {"unknown", unknown}};
}

} // namespace kdet::diff
