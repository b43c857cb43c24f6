//===- gpu/cuda.cpp - the CUDA driver through dlopen ------------------------===//
//
// The declarations below follow the driver API's C ABI (cuda.h of CUDA 12 and
// 13): results are ints, handles opaque pointers, device pointers 64-bit. The
// versioned names (_v2) are the ones cuda.h maps the plain names to.
//
//===----------------------------------------------------------------------===//
#include "kdet/gpu/cuda.hpp"

#include "kdet/util/error.hpp"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>
#include <memory>

namespace kdet::gpu {

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void*; // CUcontext, CUmodule, CUfunction, CUevent, CUstream

constexpr CUresult k_success = 0;
constexpr CUresult k_invalid_value = 1;
constexpr int k_attr_cc_major = 75;
constexpr int k_attr_cc_minor = 76;

struct Driver {
  void* lib = nullptr;
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*driver_version)(int*) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*primary_retain)(Handle*, CUdevice) = nullptr;
  CUresult (*ctx_set_current)(Handle) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*module_load_data)(Handle*, const void*) = nullptr;
  CUresult (*module_unload)(Handle) = nullptr;
  CUresult (*module_get_function)(Handle*, Handle, const char*) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*launch)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     Handle, void**, void**) = nullptr;
  CUresult (*event_create)(Handle*, unsigned) = nullptr;
  CUresult (*event_record)(Handle, Handle) = nullptr;
  CUresult (*event_synchronize)(Handle) = nullptr;
  CUresult (*event_elapsed)(float*, Handle, Handle) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
  // CUDA 12.4 and later; without it the recipe's arguments are not checked against the kernel.
  CUresult (*param_info)(Handle, size_t, size_t*, size_t*) = nullptr;

  std::string error(CUresult r) const {
    const char* s = nullptr;
    if (error_string && error_string(r, &s) == k_success && s)
      return fmt::format("{} (CUDA error {})", s, r);
    return fmt::format("CUDA error {}", r);
  }
};

template <typename F> bool load_symbol(void* lib, const char* name, F& fn) {
  void* p = dlsym(lib, name);
  if (!p) return false;
  fn = reinterpret_cast<F>(p); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  return true;
}

// Loads libcuda once; "" and the driver, or why not.
std::string load_driver(Driver& d) {
  const char* env = std::getenv("KDET_LIBCUDA");
  std::string name = env && *env ? env : "libcuda.so.1";
  d.lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d.lib) {
    const char* e = dlerror();
    return fmt::format("no GPU: {} not found ({})", name, e ? e : "dlopen failed");
  }
  bool ok = load_symbol(d.lib, "cuInit", d.init) &&
            load_symbol(d.lib, "cuDriverGetVersion", d.driver_version) &&
            load_symbol(d.lib, "cuDeviceGetCount", d.device_count) &&
            load_symbol(d.lib, "cuDeviceGet", d.device_get) &&
            load_symbol(d.lib, "cuDeviceGetName", d.device_name) &&
            load_symbol(d.lib, "cuDeviceGetAttribute", d.device_attribute) &&
            load_symbol(d.lib, "cuDevicePrimaryCtxRetain", d.primary_retain) &&
            load_symbol(d.lib, "cuCtxSetCurrent", d.ctx_set_current) &&
            load_symbol(d.lib, "cuCtxSynchronize", d.ctx_synchronize) &&
            load_symbol(d.lib, "cuModuleLoadData", d.module_load_data) &&
            load_symbol(d.lib, "cuModuleUnload", d.module_unload) &&
            load_symbol(d.lib, "cuModuleGetFunction", d.module_get_function) &&
            load_symbol(d.lib, "cuMemAlloc_v2", d.mem_alloc) &&
            load_symbol(d.lib, "cuMemFree_v2", d.mem_free) &&
            load_symbol(d.lib, "cuMemcpyHtoD_v2", d.memcpy_htod) &&
            load_symbol(d.lib, "cuMemcpyDtoH_v2", d.memcpy_dtoh) &&
            load_symbol(d.lib, "cuLaunchKernel", d.launch) &&
            load_symbol(d.lib, "cuEventCreate", d.event_create) &&
            load_symbol(d.lib, "cuEventRecord", d.event_record) &&
            load_symbol(d.lib, "cuEventSynchronize", d.event_synchronize) &&
            load_symbol(d.lib, "cuGetErrorString", d.error_string) &&
            (load_symbol(d.lib, "cuEventElapsedTime_v2", d.event_elapsed) ||
             load_symbol(d.lib, "cuEventElapsedTime", d.event_elapsed));
  if (!ok) return fmt::format("no GPU: {} lacks a driver entry point kdet needs", name);
  load_symbol(d.lib, "cuFuncGetParamInfo", d.param_info);
  return "";
}

const Driver* driver(std::string& why_not) {
  static Driver d;
  static std::string why = load_driver(d);
  why_not = why;
  return why.empty() ? &d : nullptr;
}

// Throws with `what` and the driver's message unless r is success.
void check(const Driver& d, CUresult r, const std::string& what) {
  if (r != k_success) throw Error::format("{}: {}", what, d.error(r));
}

// The device buffers of one recipe and their initial contents.
class Buffers {
public:
  Buffers(const Driver& d, const Recipe& recipe) : m_d(d), m_recipe(recipe) {
    for (const auto& a : recipe.args) {
      m_ptrs.push_back(0);
      m_scalars.push_back(a.bits);
      if (a.kind != RecipeArg::Kind::buffer) {
        m_initial.emplace_back();
        continue;
      }
      m_initial.push_back(initial_contents(a));
      check(d, d.mem_alloc(&m_ptrs.back(), a.bytes()),
            fmt::format("{}: argument {} ({} bytes): cuMemAlloc", recipe.path, a.name, a.bytes()));
    }
    for (size_t i = 0; i < recipe.args.size(); ++i)
      m_params.push_back(recipe.args[i].kind == RecipeArg::Kind::buffer
                             ? static_cast<void*>(&m_ptrs[i])
                             : static_cast<void*>(&m_scalars[i]));
  }
  ~Buffers() {
    for (CUdeviceptr p : m_ptrs)
      if (p) m_d.mem_free(p);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  CUresult reset() {
    for (size_t i = 0; i < m_ptrs.size(); ++i)
      if (m_ptrs[i])
        if (CUresult r = m_d.memcpy_htod(m_ptrs[i], m_initial[i].data(), m_initial[i].size()))
          return r;
    return k_success;
  }
  // The output buffers' contents after a launch.
  CUresult read(std::vector<std::string>& out) {
    out.clear();
    for (size_t i = 0; i < m_ptrs.size(); ++i) {
      const auto& a = m_recipe.args[i];
      if (a.kind != RecipeArg::Kind::buffer || !a.output) continue;
      out.emplace_back(a.bytes(), '\0');
      if (CUresult r = m_d.memcpy_dtoh(out.back().data(), m_ptrs[i], a.bytes())) return r;
    }
    return k_success;
  }
  // The output buffers' contents before a launch, in read()'s order.
  std::vector<std::string_view> initial_outputs() const {
    std::vector<std::string_view> out;
    for (size_t i = 0; i < m_ptrs.size(); ++i)
      if (m_recipe.args[i].kind == RecipeArg::Kind::buffer && m_recipe.args[i].output)
        out.emplace_back(m_initial[i]);
    return out;
  }
  void** params() { return m_params.data(); }

private:
  const Driver& m_d;
  const Recipe& m_recipe;
  std::vector<CUdeviceptr> m_ptrs;
  std::vector<uint64_t> m_scalars; // little-endian: the first size_of(type) bytes are the value
  std::vector<std::string> m_initial;
  std::vector<void*> m_params;
};

// Checks the recipe's arguments against the kernel's parameters, where the driver says them:
// `count` of them when known, else as many as the driver has.
void check_params(const Driver& d, Handle fn, const Recipe& recipe, const std::string& side,
                  std::optional<size_t> count) {
  if (!d.param_info) return;
  const size_t given = recipe.args.size();
  auto mismatch = [&](const std::string& takes) {
    return Error::format("{}: the recipe gives {} argument{}; kernel '{}' of {} takes {}",
                         recipe.path, given, given == 1 ? "" : "s", recipe.kernel, side, takes);
  };
  if (count && *count != given) throw mismatch(std::to_string(*count));
  for (size_t i = 0; !count || i < *count; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = d.param_info(fn, i, &offset, &size);
    if (!count && r == k_invalid_value) {
      if (i != given) throw mismatch(std::to_string(i));
      return;
    }
    check(d, r, fmt::format("{}: cuFuncGetParamInfo", side));
    if (i >= given) throw mismatch("more");
    const auto& a = recipe.args[i];
    size_t want = a.kind == RecipeArg::Kind::buffer ? 8 : size_of(a.type);
    if (size != want)
      throw Error::format("{}:{}: argument {} ({}) is {} bytes; parameter {} of kernel '{}' is {}",
                          recipe.path, a.line, i + 1, a.name, want, i + 1, recipe.kernel, size);
  }
}

struct Variant {
  Handle module = nullptr;
  Handle fn = nullptr;
};

Variant load_variant(const Driver& d, std::string_view cubin, const Recipe& recipe,
                     const std::string& side, const DeviceInfo& dev, std::optional<size_t> params) {
  Variant v;
  std::string image(cubin); // the driver reads it in place; keep it NUL-safe and aligned
  CUresult r = d.module_load_data(&v.module, image.data());
  if (r != k_success)
    throw Error::format("{}: the cubin does not load on the {} ({}): {}", side, dev.name,
                        dev.arch(), d.error(r));
  r = d.module_get_function(&v.fn, v.module, recipe.kernel.c_str());
  if (r != k_success)
    throw Error::format("{}: kernel '{}' of {} is not in {}: {}", recipe.path, recipe.kernel,
                        recipe.path, side, d.error(r));
  check_params(d, v.fn, recipe, side, params);
  return v;
}

} // namespace

Probe probe_gpu() {
  Probe p;
  const Driver* d = driver(p.why_not);
  if (!d) return p;
  if (CUresult r = d->init(0); r != k_success) {
    p.why_not = fmt::format("no GPU: cuInit: {}", d->error(r));
    return p;
  }
  int count = 0;
  if (d->device_count(&count) != k_success || count == 0) {
    p.why_not = "no GPU: the driver sees no CUDA device";
    return p;
  }
  CUdevice dev = 0;
  char name[256] = {};
  int version = 0;
  if (d->device_get(&dev, 0) != k_success || d->device_name(name, sizeof name, dev) != k_success ||
      d->device_attribute(&p.device.major, k_attr_cc_major, dev) != k_success ||
      d->device_attribute(&p.device.minor, k_attr_cc_minor, dev) != k_success) {
    p.why_not = "no GPU: device 0 does not answer the driver's queries";
    return p;
  }
  d->driver_version(&version);
  p.device.name = name;
  p.device.driver = std::to_string(version);
  p.ok = true;
  return p;
}

bool reproducible(const RunResult& r) {
  return r.compared && r.repeat_a.differing == 0 && r.repeat_b.differing == 0;
}

RunResult run_pair(std::string_view cubin_a, std::string_view cubin_b, const Recipe& recipe,
                   const RunOptions& options) {
  Probe probe = probe_gpu();
  if (!probe.ok) throw Error(probe.why_not);
  std::string unused;
  const Driver& d = *driver(unused);
  RunResult out;
  out.device = probe.device;
  CUdevice dev = 0;
  Handle ctx = nullptr;
  check(d, d.device_get(&dev, 0), "cuDeviceGet");
  check(d, d.primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d, d.ctx_set_current(ctx), "cuCtxSetCurrent");
  Variant v[2] = {load_variant(d, cubin_a, recipe, "A", out.device, options.params_a),
                  load_variant(d, cubin_b, recipe, "B", out.device, options.params_b)};
  Buffers buffers(d, recipe);
  const char* side[2] = {"A", "B"};
  auto launch = [&](int i) {
    return d.launch(v[i].fn, recipe.grid[0], recipe.grid[1], recipe.grid[2], recipe.block[0],
                    recipe.block[1], recipe.block[2], recipe.shared_bytes, nullptr,
                    buffers.params(), nullptr);
  };
  // One launch from the initial contents; false (and out.error) when it failed.
  auto result_of = [&](int i, std::vector<std::string>& result) {
    CUresult r = buffers.reset();
    if (r == k_success) r = launch(i);
    if (r == k_success) r = d.ctx_synchronize();
    if (r == k_success) r = buffers.read(result);
    if (r != k_success) out.error = fmt::format("{}: launch: {}", side[i], d.error(r));
    return r == k_success;
  };
  const std::vector<std::string_view> initial = buffers.initial_outputs();
  auto compare = [&](const std::vector<std::string>& x, const std::vector<std::string>& y) {
    std::vector<BufferDiff> diffs;
    size_t k = 0;
    for (const auto& a : recipe.args)
      if (a.kind == RecipeArg::Kind::buffer && a.output) {
        diffs.push_back(compare_buffer(a.name, a.type, x[k], y[k], initial[k]));
        ++k;
      }
    return total(std::move(diffs));
  };
  std::vector<std::string> a1, b1, a2, b2;
  if (!result_of(0, a1) || !result_of(1, b1) || !result_of(0, a2) || !result_of(1, b2)) return out;
  out.compared = true;
  out.results = compare(a1, b1);
  out.repeat_a = compare(a1, a2);
  out.repeat_b = compare(b1, b2);

  Handle start = nullptr, stop = nullptr;
  check(d, d.event_create(&start, 0), "cuEventCreate");
  check(d, d.event_create(&stop, 0), "cuEventCreate");
  for (size_t w = 0; w < options.warmup; ++w)
    for (int i : {0, 1})
      if (CUresult r = launch(i)) {
        out.error = fmt::format("{}: launch: {}", side[i], d.error(r));
        return out;
      }
  std::vector<double> times[2];
  for (int i : interleaved_schedule(options.launches)) {
    float ms = 0;
    CUresult r = d.event_record(start, nullptr);
    if (r == k_success) r = launch(i);
    if (r == k_success) r = d.event_record(stop, nullptr);
    if (r == k_success) r = d.event_synchronize(stop);
    if (r == k_success) r = d.event_elapsed(&ms, start, stop);
    if (r != k_success) {
      out.error = fmt::format("{}: timed launch: {}", side[i], d.error(r));
      return out;
    }
    times[i].push_back(ms);
  }
  out.timing = summarize(times[0], times[1]);
  out.timed = true;
  d.module_unload(v[0].module);
  d.module_unload(v[1].module);
  return out;
}

std::string verdict_line(const RunResult& r) {
  if (!r.error.empty()) return "run failed: " + r.error;
  if (!r.compared) return "not run";
  std::string speed = r.timed ? ", " + speed_text(r.timing) : "";
  if (!reproducible(r)) {
    const ResultsDiff& self = r.repeat_a.differing ? r.repeat_a : r.repeat_b;
    return fmt::format("results not reproducible: {} differs from itself in {} of {} {} (a race, "
                       "or memory read before it is written); B vs A not judged{}",
                       r.repeat_a.differing ? "A" : "B", group_thousands(self.differing),
                       group_thousands(self.elements), self.unit, speed);
  }
  return results_text(r.results) + speed;
}

std::string run_text(const RunResult& r, const Recipe& recipe) {
  std::string out =
      fmt::format("run: {} ({}, driver {}), grid {}, block {}, {} timed launches "
                  "of each, interleaved\n",
                  r.device.name, r.device.arch(), r.device.driver, dims_text(recipe.grid),
                  dims_text(recipe.block), r.timed ? r.timing.rounds : 0);
  if (r.timed)
    out += fmt::format("  A  median {:.4f} ms (quartiles {:.4f} .. {:.4f})\n"
                       "  B  median {:.4f} ms (quartiles {:.4f} .. {:.4f})\n",
                       r.timing.median_a, r.timing.q1_a, r.timing.q3_a, r.timing.median_b,
                       r.timing.q1_b, r.timing.q3_b);
  if (r.compared && reproducible(r))
    for (const auto& b : r.results.buffers)
      if (b.differing)
        out += fmt::format("  {}: {} of {} {} differ; first at [{}]: A {}, B {}\n", b.name,
                           group_thousands(b.differing), group_thousands(b.elements),
                           unit_name(b.type), b.first, b.first_a, b.first_b);
  out += "  " + verdict_line(r) + "\n";
  return out;
}

nlohmann::json to_json(const RunResult& r, const Recipe& recipe) {
  nlohmann::json j = {
      {"device", {{"name", r.device.name}, {"arch", r.device.arch()}, {"driver", r.device.driver}}},
      {"recipe", recipe.path},
      {"kernel", recipe.kernel},
      {"grid", recipe.grid},
      {"block", recipe.block},
      {"verdict", verdict_line(r)},
      {"error", r.error.empty() ? nlohmann::json() : nlohmann::json(r.error)},
      {"reproducible", r.compared ? nlohmann::json(reproducible(r)) : nlohmann::json()},
      {"results", r.compared ? to_json(r.results) : nlohmann::json()},
      {"repeat_a", r.compared ? to_json(r.repeat_a) : nlohmann::json()},
      {"repeat_b", r.compared ? to_json(r.repeat_b) : nlohmann::json()},
      {"timing", r.timed ? to_json(r.timing) : nlohmann::json()}};
  return j;
}

} // namespace kdet::gpu
