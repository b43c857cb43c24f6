//===- capture/builds.cpp - kernels compared across captured builds ---------===//
//
// Each build is read on its own (records, bundles, a blob index), its bundles
// chained into kernels, and each kernel reduced to a key and a list of stages
// with their input and output hashes. Only that summary is kept per build; then
// kernels are matched by key and judged stage by stage (builds.hpp).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/builds.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/capture/builds_internal.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/records.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <climits>
#include <dirent.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sys/stat.h>

namespace kdet::capture {

namespace {

using namespace detail;

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Variables kdet itself sets fresh for each build (their paths are kdet's).
bool cache_variable(const std::string& name_eq_value) {
  std::string name = name_eq_value.substr(0, name_eq_value.find('='));
  for (const auto& c : known_caches())
    if (name == c.variable) return true;
  return name == "TMPDIR";
}

// `first` is the bundle's first compile (a command's recorded environment is in its compiles).
std::string stage_key(const Bundle& b, const Compile& first) {
  std::string program = base_name(b.lib);
  std::string key = b.kind + "\n" + program + "\n";
  for (const auto& o : b.options)
    key += normalize_volatile(o) + '\x1f';
  if (b.kind == "exec")
    for (const auto& e : first.exec->env)
      if (!cache_variable(e)) key += "\n" + normalize_volatile(e);
  return key;
}

std::string stage_inputs(const Bundle& b, std::vector<std::string>& names_differ) {
  std::string s;
  for (size_t i = 0; i < b.inputs.size(); ++i) {
    const Input& in = b.inputs[i];
    s += in.tag + ":" + in.hash;
    if (in.lazy) s += ":lazy";
    if (b.kind != "exec" && in.name) {
      std::string norm = normalize_volatile(*in.name);
      s += ":" + norm;
      if (norm != *in.name)
        names_differ.push_back(fmt::format("input {} ({}) is named {}", i + 1, in.tag, *in.name));
    }
    s += '\x1f';
  }
  return s;
}

// Union-find over the bundles of one build.
struct Groups {
  std::vector<size_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent[find(a)] = find(b); }
};

// The entry names of a kernel: from the first stage's text input, else from any PTX
// output or text input of a later stage, else NVRTC name expressions, else the first
// input's file name. The entry names are sorted: a kernel is the set of its entries, so a
// module whose kernels come in another order in each build (a code generator that walks a
// hash set) is one kernel in every build. `order_seen` gets them as they appeared.
std::string kernel_name(const std::vector<const Bundle*>& order, const BlobStore& blobs,
                        std::string& order_seen) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add_from = [&](const std::string& hash) {
    if (auto bytes = blobs.get(hash))
      for (auto& n : entry_names(*bytes))
        if (seen.insert(n).second) names.push_back(std::move(n));
  };
  // Every stage's text inputs and PTX outputs: a link of several programs is named by all of
  // their kernels, whatever order they were compiled in.
  for (const Bundle* b : order) {
    for (const auto& in : b->inputs)
      if (in.tag == "module" || in.tag == "file" || in.tag == "jit_input") add_from(in.hash);
    for (const auto& [kind, hash] : b->outputs)
      if (kind == "nvvm" || kind == "ptx") add_from(hash);
  }
  if (!names.empty()) {
    order_seen = fmt::format("{}", fmt::join(names, ", "));
    std::sort(names.begin(), names.end());
    return fmt::format("{}", fmt::join(names, ", "));
  }
  std::set<std::string> exprs, files;
  for (const Bundle* b : order)
    for (const auto& in : b->inputs) {
      if (in.tag == "name_expr" && in.name) exprs.insert(*in.name);
      if (in.tag != "name_expr" && in.name && !in.name->empty())
        files.insert(base_name(normalize_volatile(*in.name)));
    }
  if (!exprs.empty()) return fmt::format("{}", fmt::join(exprs, ", "));
  if (!files.empty()) return "file " + fmt::format("{}", fmt::join(files, ", "));
  return "(unnamed " + order.front()->kind + " compile)";
}

// The bundles of one group in dataflow order: producers before consumers, a driver's
// tools before the driver; else by content (`rank`: the stage key and inputs), so that
// compiles a thread pool ran in another order line up the same in every build, then by
// first compile time.
std::vector<size_t> dataflow_order(const std::vector<size_t>& members,
                                   const std::map<size_t, std::set<size_t>>& after,
                                   const std::vector<uint64_t>& first_ns,
                                   const std::vector<std::string>& rank) {
  std::vector<size_t> sorted = members;
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
    if (rank[a] != rank[b]) return rank[a] < rank[b];
    return first_ns[a] != first_ns[b] ? first_ns[a] < first_ns[b] : a < b;
  });
  std::vector<size_t> out;
  std::set<size_t> placed;
  // Repeatedly place the earliest member whose predecessors are all placed (a cycle, which
  // content chaining cannot make but a planted record could, is broken by time).
  while (out.size() < sorted.size()) {
    bool progressed = false;
    for (size_t m : sorted) {
      if (placed.count(m)) continue;
      bool ready = true;
      for (size_t p : sorted)
        if (!placed.count(p) && p != m) {
          auto it = after.find(p);
          if (it != after.end() && it->second.count(m)) ready = false;
        }
      if (ready) {
        out.push_back(m);
        placed.insert(m);
        progressed = true;
        break;
      }
    }
    if (!progressed)
      for (size_t m : sorted)
        if (!placed.count(m)) {
          out.push_back(m);
          placed.insert(m);
          break;
        }
  }
  return out;
}

BuildSummary summarize_build(const std::string& dir, BuildInfo& info,
                             std::unique_ptr<BlobStore>& blobs_out) {
  std::string raw = dir + "/raw";
  std::vector<Compile> compiles = read_records(raw, info.problems);
  blobs_out = std::make_unique<BlobStore>(raw, info.problems);
  BlobStore& blobs = *blobs_out;
  // PTX by its artifact hash: libNVVM's result (NUL included) and the file a pipeline wrote
  // of it for ptxas (NUL left out) are one hash, so they chain by plain equality.
  std::vector<Bundle> bundles = bundle_records(compiles, blobs);
  info.compiles = compiles.size();
  info.bundles = bundles.size();
  // A record log removed or emptied since the build ended: its compiles are gone from the
  // records, not from the capture.json written as the build ended.
  if (info.listed > compiles.size())
    info.problems.push_back(
        fmt::format("capture.json lists {} compiles, the records hold {}: {} record(s) removed or "
                    "unreadable since the build ended",
                    info.listed, compiles.size(), info.listed - compiles.size()));

  std::map<std::string, size_t> index;
  for (size_t i = 0; i < bundles.size(); ++i)
    index[bundles[i].id] = i;
  std::vector<uint64_t> first_ns(bundles.size(), UINT64_MAX);
  std::vector<const Compile*> first_compile(bundles.size(), nullptr);
  for (const auto& c : compiles) {
    size_t i = index[c.bundle()];
    first_ns[i] = std::min(first_ns[i], c.time_ns);
    if (!first_compile[i]) first_compile[i] = &c;
  }
  // Chain by content. `after[a]` holds the bundles that must come after a.
  Groups groups(bundles.size());
  std::map<size_t, std::set<size_t>> after;
  std::map<std::string, std::vector<size_t>> producers;
  for (size_t i = 0; i < bundles.size(); ++i)
    for (const auto& out : bundles[i].outputs)
      producers[out.second].push_back(i);
  for (size_t i = 0; i < bundles.size(); ++i)
    for (const auto& in : bundles[i].inputs) {
      auto it = producers.find(in.hash);
      if (it == producers.end()) continue;
      for (size_t p : it->second)
        if (p != i) {
          groups.join(p, i);
          after[p].insert(i);
        }
    }
  // A compile that a captured command started (cicc and ptxas under nvcc, through a shell)
  // is that command's tool: it joins the command's kernel and comes before it. The shim
  // records its caller's ancestors; the nearest one that is another command's shim, started
  // before, is the driver.
  std::map<long, std::vector<const Compile*>> by_pid;
  bool ancestry = false;
  for (const auto& c : compiles)
    if (c.kind() == "exec") {
      by_pid[c.pid].push_back(&c);
      ancestry = ancestry || !c.ancestors->empty();
    }
  for (const auto& c : compiles)
    for (long a : *c.ancestors) {
      auto it = by_pid.find(a);
      if (it == by_pid.end()) continue;
      const Compile* driver = nullptr;
      for (const Compile* d : it->second)
        if (d->time_ns <= c.time_ns && d->bundle() != c.bundle()) driver = d;
      if (!driver) continue;
      size_t tool = index[c.bundle()], drv = index[driver->bundle()];
      groups.join(tool, drv);
      after[tool].insert(drv);
      break;
    }
  // Captures made before the ancestry was recorded: nvcc hands on what its tools made, so an
  // nvcc bundle sharing an output with one started after it is that tool's driver.
  if (!ancestry)
    for (const auto& [hash, ps] : producers)
      for (size_t a : ps)
        for (size_t b : ps)
          if (a != b && bundles[a].kind == "exec" && base_name(bundles[a].lib) == "nvcc" &&
              first_ns[a] <= first_ns[b]) {
            groups.join(a, b);
            after[b].insert(a);
          }
  // The content order of stages that no dataflow orders (a link's several programs).
  std::vector<std::string> keys(bundles.size()), rank(bundles.size());
  std::vector<std::string> ignored;
  for (size_t i = 0; i < bundles.size(); ++i) {
    keys[i] = stage_key(bundles[i], *first_compile[i]);
    rank[i] = keys[i] + '\n' + stage_inputs(bundles[i], ignored);
  }

  std::map<size_t, std::vector<size_t>> members;
  for (size_t i = 0; i < bundles.size(); ++i)
    members[groups.find(i)].push_back(i);
  BuildSummary out;
  for (const auto& [root, ms] : members) {
    // A compile with no input and no output artifact (`ptxas --version`, `nvcc --version`)
    // is a probe of the tool, not a kernel.
    if (ms.size() == 1 && bundles[ms[0]].inputs.empty() && bundles[ms[0]].outputs.empty()) {
      ++info.probes;
      continue;
    }
    std::vector<size_t> order = dataflow_order(ms, after, first_ns, rank);
    std::vector<const Bundle*> ordered;
    ordered.reserve(order.size());
    for (size_t i : order)
      ordered.push_back(&bundles[i]);
    BuildKernel k;
    k.name = kernel_name(ordered, blobs, k.entry_order);
    for (const Bundle* b : ordered) {
      StageSummary s;
      s.kind = b->kind;
      s.program = base_name(b->lib);
      s.library = b->lib;
      s.lib_hash = b->lib_hash;
      s.key = keys[static_cast<size_t>(b - bundles.data())];
      for (const auto& o : b->options) {
        s.options += (s.options.empty() ? "" : " ") + normalize_volatile(o);
        s.raw_options += (s.raw_options.empty() ? "" : " ") + o;
      }
      s.bundle = b->id;
      s.inputs = stage_inputs(*b, k.names_differ);
      for (const auto& [kind, hash] : b->outputs)
        s.outputs[kind].push_back(hash);
      for (const auto& [rc, n] : b->results)
        s.outputs["result"].push_back(std::to_string(rc));
      if (b->unfinished) s.outputs["result"].push_back("unfinished");
      s.compiles = b->compiles;
      if (k.target.empty()) k.target = target_of(b->options);
      k.stages.push_back(std::move(s));
    }
    k.key = k.name + "\n" + k.stages.front().key;
    k.first_inputs = k.stages.front().inputs;
    out.kernels.push_back(std::move(k));
  }
  add_tap_stages(dir, info, out, *blobs_out, compiles, bundles);
  add_load_stages(dir, info, out, *blobs_out, compiles);
  return out;
}

} // namespace

const char* to_string(KernelStatus s) {
  switch (s) {
  case KernelStatus::same:
    return "same";
  case KernelStatus::nondeterministic:
    return "nondeterministic";
  case KernelStatus::input_differs:
    return "input-differs";
  case KernelStatus::not_in_every_build:
    return "not-in-every-build";
  }
  return "same";
}

size_t BuildsResult::compared() const {
  return static_cast<size_t>(std::count_if(
      builds.begin(), builds.end(), [](const BuildInfo& b) { return b.not_compared.empty(); }));
}

bool Kernel::shipped() const {
  if (stages.empty()) return false;
  for (const auto& st : stages)
    for (const auto& sb : st.builds)
      if (sb.shipped_in.empty()) return false;
  return true;
}

size_t BuildsResult::count(KernelStatus s) const {
  return static_cast<size_t>(std::count_if(kernels.begin(), kernels.end(),
                                           [s](const Kernel& k) { return k.status == s; }));
}

const std::vector<KnownCache>& known_caches() {
  static const std::vector<KnownCache> caches = {
      {"triton", "TRITON_CACHE_DIR", "Triton's compiled kernels (~/.triton/cache)"},
      {"inductor", "TORCHINDUCTOR_CACHE_DIR",
       "TorchInductor's generated code and kernels (/tmp/torchinductor_USER)"},
      {"torch-kernels", "PYTORCH_KERNEL_CACHE_PATH",
       "PyTorch's NVRTC kernels (jiterator, fusers; ~/.cache/torch/kernels)"},
      {"torch-extensions", "TORCH_EXTENSIONS_DIR", "PyTorch C++/CUDA extensions built at load"},
      {"cupy", "CUPY_CACHE_DIR", "CuPy's compiled kernels (~/.cupy/kernel_cache)"},
      {"cuda", "CUDA_CACHE_PATH", "the CUDA driver's JIT cache of PTX (~/.nv/ComputeCache)"},
      {"numba", "NUMBA_CACHE_DIR", "numba's cache=True files (beside the sources)"},
      {"jax", "JAX_COMPILATION_CACHE_DIR", "JAX's persistent compilation cache"},
      {"cute-dsl", "CUTE_DSL_CACHE_DIR", "CuTe DSL's kernel cache"},
      {"warp", "WARP_CACHE_PATH", "NVIDIA Warp's kernel cache"},
  };
  return caches;
}

BuildsResult compare_builds(const std::vector<std::string>& dirs, std::vector<BuildInfo> infos) {
  BuildsResult r;
  infos.resize(dirs.size());
  std::vector<BuildSummary> sums(dirs.size());
  std::vector<std::unique_ptr<BlobStore>> blobs(dirs.size());
  for (size_t b = 0; b < dirs.size(); ++b) {
    BuildInfo& info = infos[b];
    info.dir = dirs[b];
    if (info.not_compared.empty()) info.not_compared = capture_problem(dirs[b]);
    if (info.pipeline_status.empty()) {
      info.pipeline_status = "unknown";
      if (info.not_compared.empty()) read_capture_json(dirs[b], info);
    }
    if (!info.not_compared.empty()) {
      sums[b].compared = false;
      r.failed_builds.push_back(
          fmt::format("build {} ({}): {}; not compared", b + 1, info.dir, info.not_compared));
    } else if (!info.status_problem.empty()) {
      r.failed_builds.push_back(
          fmt::format("build {} ({}): {}", b + 1, info.dir, info.status_problem));
    }
  }
  // Builds are read one at a time: only their summaries are kept.
  for (size_t b = 0; b < dirs.size(); ++b)
    if (sums[b].compared) sums[b] = summarize_build(dirs[b], infos[b], blobs[b]);
  // One build alone is no comparison: every kernel would be "the same in every build".
  if (compared_builds(sums) >= 2)
    for (const auto& m : match_kernels(sums)) {
      r.kernels.push_back(judge(m, sums, blobs, infos));
      refine(r.kernels.back(), blobs, infos);
      // A build's kernel is in one match only: judged, its summary is let go, so the builds'
      // summaries and the kernels judged from them are not held twice.
      for (auto [b, i] : m)
        sums[b].kernels[i] = BuildKernel{};
    }
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](const Kernel& a, const Kernel& b) {
    return status_rank(a.status) != status_rank(b.status)
               ? status_rank(a.status) < status_rank(b.status)
               : a.name < b.name;
  });
  r.builds = std::move(infos);
  return r;
}

} // namespace kdet::capture
