//===- gpu/cuda.hpp - launch two cubins on a GPU, time and compare them ------===//
//
// The CUDA driver API is reached through dlopen("libcuda.so.1") at run time
// ($KDET_LIBCUDA names another file), with the dozen entry points it needs
// declared here: kdet keeps no link-time dependency on a GPU driver, and a
// machine without one gets a reason to skip, not a failure to start.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/gpu/measure.hpp"
#include "kdet/gpu/recipe.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kdet::gpu {

// The GPU a run uses (device 0 of those the driver shows).
struct DeviceInfo {
  std::string name; // "NVIDIA H200"
  int major = 0, minor = 0;
  std::string driver; // "13000"
  // "sm_90": what ptxas assembles for it.
  std::string arch() const { return "sm_" + std::to_string(major * 10 + minor); }
};

// Whether a GPU can be used: ok, else why_not ("no GPU: libcuda.so.1 not found (...)").
struct Probe {
  bool ok = false;
  std::string why_not;
  DeviceInfo device;
};

// Loads the driver and looks for a device; never throws.
Probe probe_gpu();

// How many launches.
struct RunOptions {
  size_t launches = 200; // timed rounds (each launches A and B once)
  size_t warmup = 10;    // untimed launches of each before
  // The kernel's parameter count in A and in B where the cubin records it: the driver is then
  // asked about those parameters only. Unknown, kdet asks for parameters until the driver says
  // there is none, a failing call that compute-sanitizer counts as an API error.
  std::optional<size_t> params_a, params_b;
};

// What a run of two variants found.
struct RunResult {
  DeviceInfo device;
  // A launch that failed ("B: launch: an illegal memory access was encountered"); after it
  // the context is unusable, so nothing later was measured.
  std::string error;
  bool compared = false;
  ResultsDiff results;            // B's output buffers against A's
  ResultsDiff repeat_a, repeat_b; // each variant against its own second launch
  bool timed = false;
  TimingSummary timing;
};

// Loads both cubins, launches each twice from the recipe's initial contents (comparing every
// output buffer B vs A, A vs A and B vs B), then times `launches` interleaved rounds. Throws
// kdet::Error (bad input) when there is no GPU, a cubin does not load on the device, a side
// lacks the recipe's kernel, or the kernel's parameters do not match the recipe's arguments.
RunResult run_pair(std::string_view cubin_a, std::string_view cubin_b, const Recipe& recipe,
                   const RunOptions& options);

// Reproducible: neither variant's second launch differed from its first.
bool reproducible(const RunResult& r);

// The lines of the report: the device and launch, both medians, and the verdict
// ("same results, B 2.1 % slower (±0.4 %)").
std::string run_text(const RunResult& r, const Recipe& recipe);

// The verdict line alone.
std::string verdict_line(const RunResult& r);

// kdet.impact/1's "run" object.
nlohmann::json to_json(const RunResult& r, const Recipe& recipe);

} // namespace kdet::gpu
