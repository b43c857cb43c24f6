//===- capture/builds_loads.cpp - the driver's loads as stages of kernels ---===//
//
// Each distinct module a build handed to the CUDA driver (capture/loads.hpp) is the last
// stage of the kernels it holds: appended to the kernel of the captured compile whose output
// it is or holds, or a kernel of its own, named by its entries, when no compile kdet saw made
// it. A load stage has no input kdet saw: when its image differs between builds and no
// earlier stage does, it is the first varying stage, "loaded by the driver".
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/builds_internal.hpp"
#include "kdet/capture/loads.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::capture::detail {

namespace {

StageSummary load_stage(const LoadedModule& m) {
  StageSummary s;
  s.kind = "load";
  s.seam = "loaded";
  s.program = "CUDA driver";
  s.label = "load";
  s.key = "load";
  s.raw_options = fmt::format("{}", fmt::join(m.via, " "));
  s.file = "loads/" + loaded_file(m);
  s.outputs[m.form].push_back(m.image);
  s.compiles = m.loads;
  if (m.unseen()) s.made_by = m.unseen_makers;
  if (!m.seen()) s.shipped_in.assign(m.shipped_in.begin(), m.shipped_in.end());
  return s;
}

// The target a loaded PTX names (`.target sm_90`), "" for other images.
std::string image_target(const LoadedModule& m, const BlobStore& blobs) {
  if (m.form != "ptx") return "";
  std::optional<std::string> bytes = blobs.get(m.stored.empty() ? m.image : m.stored);
  size_t at = bytes ? bytes->find(".target ") : std::string::npos;
  if (at == std::string::npos) return "";
  size_t from = at + 8, to = bytes->find_first_of(", \r\n", from);
  return bytes->substr(from, to == std::string::npos ? std::string::npos : to - from);
}

} // namespace

void add_load_stages(const std::string& dir, BuildInfo& info, BuildSummary& sum,
                     const BlobStore& blobs, const std::vector<Compile>& compiles) {
  std::vector<Compile> loads = read_load_records(dir + "/raw");
  if (loads.empty()) return;
  for (const auto& m : loaded_modules(loads, compiles, blobs, info.inside)) {
    bool joined = false;
    for (auto& k : sum.kernels) {
      bool made = std::any_of(k.stages.begin(), k.stages.end(), [&](const StageSummary& s) {
        return !s.bundle.empty() &&
               std::find(m.made_by.begin(), m.made_by.end(), s.bundle) != m.made_by.end();
      });
      if (!made) continue;
      joined = true;
      bool twice = std::any_of(k.stages.begin(), k.stages.end(), [&](const StageSummary& s) {
        return s.seam == "loaded" && s.file == "loads/" + loaded_file(m);
      });
      if (!twice) k.stages.push_back(load_stage(m));
    }
    if (joined) continue;
    BuildKernel k;
    std::vector<std::string> names = m.kernels;
    std::sort(names.begin(), names.end());
    std::string shipped = m.shipped_names();
    k.name = !names.empty() ? fmt::format("{}", fmt::join(names, ", "))
             : shipped.empty()
                 ? fmt::format("a module loaded by the driver ({})", fmt::join(m.via, ", "))
                 : "a fatbin shipped in " + shipped;
    k.entry_order = fmt::format("{}", fmt::join(m.kernels, ", "));
    k.target = image_target(m, blobs);
    k.stages.push_back(load_stage(m));
    k.key = k.name + "\n" + k.stages.front().key;
    sum.kernels.push_back(std::move(k));
  }
  info.kernels = sum.kernels.size();
}

} // namespace kdet::capture::detail
