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

// A stage of a kernel in one build, as kept after the build is read.
struct StageSummary {
  std::string key; // kind, program, normalized options (and environment for commands)
  std::string kind, program, library, options, lib_hash, bundle, inputs;
  std::map<std::string, std::vector<std::string>> outputs;
  size_t compiles = 0;
};

// A kernel in one build.
struct BuildKernel {
  std::string name, key, first_inputs, target;
  std::vector<StageSummary> stages;      // dataflow order
  std::vector<std::string> names_differ; // inputs whose names differ only in temporary parts
};

struct BuildSummary {
  std::vector<BuildKernel> kernels;
};

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
    for (const auto& e : first.exec.env)
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

// The hashes a bundle's outputs are known by: each hash, and for text outputs that end in
// NUL (PTX as libNVVM and NVRTC hand it over) the hash without the NULs, as a pipeline
// that writes the PTX to a file for ptxas may leave them out.
std::set<std::string> produced_hashes(const Bundle& b, const BlobStore& blobs) {
  std::set<std::string> out;
  for (const auto& [kind, hash] : b.outputs) {
    out.insert(hash);
    if (kind != "nvvm" && kind != "ptx") continue;
    auto bytes = blobs.get(hash);
    if (!bytes || bytes->empty() || bytes->back() != '\0') continue;
    std::string_view v(*bytes);
    while (!v.empty() && v.back() == '\0')
      v.remove_suffix(1);
    out.insert(hash_bytes(v));
  }
  return out;
}

// The entry names of a kernel: from the first stage's text input, else from any PTX
// output or text input of a later stage, else NVRTC name expressions, else the first
// input's file name.
std::string kernel_name(const std::vector<const Bundle*>& order, const BlobStore& blobs) {
  auto names_in = [&](const std::string& hash) -> std::vector<std::string> {
    auto bytes = blobs.get(hash);
    return bytes ? entry_names(*bytes) : std::vector<std::string>{};
  };
  for (const Bundle* b : order) {
    for (const auto& in : b->inputs)
      if (in.tag == "module" || in.tag == "file" || in.tag == "jit_input") {
        auto n = names_in(in.hash);
        if (!n.empty()) return fmt::format("{}", fmt::join(n, ", "));
        break; // only the first text input of a stage names it
      }
    for (const auto& [kind, hash] : b->outputs)
      if (kind == "nvvm" || kind == "ptx") {
        auto n = names_in(hash);
        if (!n.empty()) return fmt::format("{}", fmt::join(n, ", "));
      }
  }
  std::vector<std::string> exprs;
  for (const Bundle* b : order)
    for (const auto& in : b->inputs)
      if (in.tag == "name_expr" && in.name) exprs.push_back(*in.name);
  if (!exprs.empty()) return fmt::format("{}", fmt::join(exprs, ", "));
  for (const Bundle* b : order)
    for (const auto& in : b->inputs)
      if (in.name && !in.name->empty()) return "file " + base_name(normalize_volatile(*in.name));
  return "(unnamed " + order.front()->kind + " compile)";
}

// The bundles of one group in dataflow order: producers before consumers, a driver's
// tools before the driver, else by first compile time.
std::vector<size_t> dataflow_order(const std::vector<size_t>& members,
                                   const std::map<size_t, std::set<size_t>>& after,
                                   const std::vector<uint64_t>& first_ns) {
  std::vector<size_t> sorted = members;
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
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
  std::vector<Bundle> bundles = group_bundles(compiles);
  blobs_out = std::make_unique<BlobStore>(raw, info.problems);
  const BlobStore& blobs = *blobs_out;
  info.compiles = compiles.size();
  info.bundles = bundles.size();

  std::map<std::string, size_t> index;
  for (size_t i = 0; i < bundles.size(); ++i)
    index[bundles[i].id] = i;
  std::vector<uint64_t> first_ns(bundles.size(), UINT64_MAX);
  std::vector<const Compile*> first_compile(bundles.size(), nullptr);
  for (const auto& c : compiles) {
    size_t i = index[c.bundle];
    first_ns[i] = std::min(first_ns[i], c.time_ns);
    if (!first_compile[i]) first_compile[i] = &c;
  }
  // Chain by content. `after[a]` holds the bundles that must come after a.
  Groups groups(bundles.size());
  std::map<size_t, std::set<size_t>> after;
  std::map<std::string, std::vector<size_t>> producers;
  for (size_t i = 0; i < bundles.size(); ++i)
    for (const auto& h : produced_hashes(bundles[i], blobs))
      producers[h].push_back(i);
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
  // A driver (nvcc) hands on what its tools made: a bundle that shares an output with one
  // that started after it is that tool's driver, and comes after it.
  for (const auto& [hash, ps] : producers)
    for (size_t a : ps)
      for (size_t b : ps)
        if (a != b && bundles[a].kind == "exec" && base_name(bundles[a].lib) == "nvcc" &&
            first_ns[a] <= first_ns[b]) {
          groups.join(a, b);
          after[b].insert(a);
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
    std::vector<size_t> order = dataflow_order(ms, after, first_ns);
    std::vector<const Bundle*> ordered;
    for (size_t i : order)
      ordered.push_back(&bundles[i]);
    BuildKernel k;
    k.name = kernel_name(ordered, blobs);
    for (const Bundle* b : ordered) {
      StageSummary s;
      s.kind = b->kind;
      s.program = base_name(b->lib);
      s.library = b->lib;
      s.lib_hash = b->lib_hash;
      s.key = stage_key(*b, *first_compile[static_cast<size_t>(b - bundles.data())]);
      for (const auto& o : b->options)
        s.options += (s.options.empty() ? "" : " ") + normalize_volatile(o);
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
  info.kernels = out.kernels.size();
  return out;
}

// Reads DIR/capture.json (written by kdet capture --json or --builds) for how the
// pipeline ended; leaves `info` as it is when absent or unreadable.
void read_capture_json(const std::string& dir, BuildInfo& info) {
  std::string text;
  try {
    text = read_file(dir + "/capture.json");
  } catch (const Error&) {
    return;
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("pipeline") || !j["pipeline"].is_object()) return;
  const auto& p = j["pipeline"];
  if (p.contains("status") && p["status"].is_string()) info.pipeline_status = p["status"];
  if (p.contains("exit_code") && p["exit_code"].is_number_integer())
    info.pipeline_exit = p["exit_code"].get<int>();
  if (j.contains("seconds") && j["seconds"].is_number()) info.seconds = j["seconds"];
}

// One kernel matched across builds: (build, index into that build's kernels).
using Match = std::vector<std::pair<size_t, size_t>>;

// Matches the kernels of every build by key; kernels that share a key within one build
// (a kernel compiled twice with other constants) are told apart by their first inputs,
// then paired in order.
std::vector<Match> match_kernels(const std::vector<BuildSummary>& sums) {
  std::map<std::string, std::vector<std::vector<size_t>>> by_key;
  for (size_t b = 0; b < sums.size(); ++b)
    for (size_t i = 0; i < sums[b].kernels.size(); ++i) {
      auto& per = by_key[sums[b].kernels[i].key];
      per.resize(sums.size());
      per[b].push_back(i);
    }
  std::vector<Match> out;
  for (auto& [key, per] : by_key) {
    bool single = std::all_of(per.begin(), per.end(), [](const auto& v) { return v.size() <= 1; });
    if (!single) {
      // Same key and same first inputs: the same kernel.
      std::map<std::string, Match> by_input;
      for (size_t b = 0; b < per.size(); ++b) {
        std::vector<size_t> left;
        std::set<std::string> taken;
        for (size_t i : per[b]) {
          const std::string& in = sums[b].kernels[i].first_inputs;
          if (taken.insert(in).second)
            by_input[in].emplace_back(b, i);
          else
            left.push_back(i);
        }
        per[b] = left;
      }
      std::vector<Match> partial;
      for (auto& [in, m] : by_input)
        if (m.size() == sums.size())
          out.push_back(m);
        else
          for (auto [b, i] : m)
            per[b].push_back(i);
      for (auto& v : per)
        std::sort(v.begin(), v.end());
    }
    size_t rows = 0;
    for (const auto& v : per)
      rows = std::max(rows, v.size());
    for (size_t r = 0; r < rows; ++r) {
      Match m;
      for (size_t b = 0; b < per.size(); ++b)
        if (r < per[b].size()) m.emplace_back(b, per[b][r]);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::vector<std::string> split_inputs(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\x1f') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::string input_hash(const std::string& entry) {
  size_t a = entry.find(':');
  size_t b = a == std::string::npos ? std::string::npos : entry.find(':', a + 1);
  return a == std::string::npos ? "" : entry.substr(a + 1, b == std::string::npos ? b : b - a - 1);
}

// Distinct values of one output kind across the builds of a stage, with how many builds (and
// compiles in them) gave each and the first build that gave it.
struct Seen {
  size_t count = 0, first_build = 0;
  std::set<size_t> builds;
};

std::map<std::string, std::map<std::string, Seen>> output_values(const Stage& st) {
  std::map<std::string, std::map<std::string, Seen>> out;
  for (const auto& sb : st.builds)
    for (const auto& [kind, hashes] : sb.outputs)
      for (const auto& h : hashes) {
        Seen& s = out[kind][h];
        if (s.builds.empty()) s.first_build = sb.build;
        s.builds.insert(sb.build);
        ++s.count;
      }
  return out;
}

bool outputs_differ(const Stage& st) {
  for (const auto& [kind, values] : output_values(st))
    if (values.size() > 1) return true;
  return false;
}

// The classification of a varying stage's two outputs: the most common one against another,
// from two builds where it can.
StageDifference classify(const Stage& st, const std::vector<std::unique_ptr<BlobStore>>& blobs) {
  auto values = output_values(st);
  static const char* preferred[] = {"ptx", "nvvm", "cubin", "ltoir"};
  std::string kind;
  for (const char* p : preferred)
    if (values.count(p) && values[p].size() > 1) {
      kind = p;
      break;
    }
  if (kind.empty())
    for (const auto& [k, v] : values)
      if (v.size() > 1 && (kind.empty() || kind == "result")) kind = k;
  StageDifference d;
  d.output_kind = kind;
  const auto& v = values[kind];
  // The most common value (ties: the one seen in the earliest build) against the value
  // first seen in the earliest other build.
  auto earlier = [](const auto& a, const auto& b) {
    return a.second.count != b.second.count ? a.second.count > b.second.count
                                            : a.second.first_build < b.second.first_build;
  };
  auto modal = std::min_element(v.begin(), v.end(), earlier);
  auto other = v.end();
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it != modal && (other == v.end() || it->second.first_build < other->second.first_build))
      other = it;
  d.hash_a = modal->first;
  d.hash_b = other->first;
  d.build_b = other->second.first_build;
  d.build_a = modal->second.first_build;
  for (size_t b : modal->second.builds)
    if (b != d.build_b) {
      d.build_a = b;
      break;
    }
  if (d.build_a > d.build_b && !modal->second.builds.count(d.build_b)) {
    std::swap(d.hash_a, d.hash_b);
    std::swap(d.build_a, d.build_b);
  }
  d.within_build = d.build_a == d.build_b;
  if (kind == "result") {
    d.change = "code";
    d.summary = fmt::format("return code {} vs {}", d.hash_a, d.hash_b);
    return d;
  }
  auto a = blobs[d.build_a]->get(d.hash_a);
  auto b = blobs[d.build_b]->get(d.hash_b);
  if (!a || !b) {
    d.change = "code";
    d.summary = "differ (the bytes of an output were not stored)";
    return d;
  }
  // PTX as libNVVM and NVRTC hand it over ends in a NUL: compare it as the PTX it is.
  std::string_view va(*a), vb(*b);
  while (!va.empty() && va.back() == '\0' && !vb.empty() && vb.back() == '\0') {
    va.remove_suffix(1);
    vb.remove_suffix(1);
  }
  diff::Report r = diff::compare(va, vb);
  // A command's output kind is its file's extension (Triton's ptxas writes NAME.o): name
  // the format kdet diff read it as where that says more.
  if (r.format == diff::Format::ptx || r.format == diff::Format::cubin) {
    std::string format = diff::to_string(r.format);
    if (kind != format && kind != "nvvm") d.output_kind = format + " (." + kind + ")";
  }
  d.change = diff::to_string(r.overall);
  d.summary = diff::summary_line(r);
  return d;
}

// What differs in a stage's inputs between the first build that has it and another.
std::string input_difference(const Stage& st,
                             const std::vector<std::unique_ptr<BlobStore>>& blobs) {
  const StageBuild& ref = st.builds.front();
  for (const auto& sb : st.builds) {
    if (sb.inputs == ref.inputs) continue;
    auto a = split_inputs(ref.inputs), b = split_inputs(sb.inputs);
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
      if (i >= a.size() || i >= b.size())
        return fmt::format("{} inputs in build {}, {} in build {}", a.size(), ref.build + 1,
                           b.size(), sb.build + 1);
      std::string ha = input_hash(a[i]), hb = input_hash(b[i]);
      std::string what = a[i].substr(0, a[i].find(':'));
      if (ha == hb)
        return fmt::format("input {} ({}) has the same bytes under another name: {} vs {}", i + 1,
                           what, a[i].substr(a[i].find(':', what.size() + 1) + 1),
                           b[i].substr(b[i].find(':', what.size() + 1) + 1));
      auto x = blobs[ref.build]->get(ha);
      auto y = blobs[sb.build]->get(hb);
      std::string how = x && y ? diff::summary_line(diff::compare(*x, *y))
                               : std::string("differ (bytes not stored)");
      return fmt::format("input {} ({}) of build {} and build {}: {}", i + 1, what, ref.build + 1,
                         sb.build + 1, how);
    }
  }
  return "";
}

std::vector<Stage> align_stages(const Match& m, const std::vector<BuildSummary>& sums) {
  std::vector<Stage> stages;
  std::map<std::string, size_t> at; // key#occurrence -> index into stages
  for (auto [b, i] : m) {
    std::map<std::string, size_t> seen;
    for (const auto& s : sums[b].kernels[i].stages) {
      std::string slot = s.key + "#" + std::to_string(seen[s.key]++);
      auto [it, fresh] = at.emplace(slot, stages.size());
      if (fresh) {
        Stage st;
        st.kind = s.kind;
        st.program = s.program;
        st.library = s.library;
        st.options = s.options;
        stages.push_back(std::move(st));
      }
      StageBuild sb;
      sb.build = b;
      sb.bundle = s.bundle;
      sb.inputs = s.inputs;
      for (const auto& e : split_inputs(s.inputs))
        sb.input_hashes.push_back(input_hash(e));
      sb.outputs = s.outputs;
      sb.compiles = s.compiles;
      stages[it->second].builds.push_back(std::move(sb));
    }
  }
  return stages;
}

std::string join_builds(const std::vector<size_t>& builds) {
  std::string s;
  for (size_t b : builds)
    s += (s.empty() ? "" : ", ") + std::to_string(b + 1);
  return s;
}

Kernel judge(const Match& m, const std::vector<BuildSummary>& sums,
             const std::vector<std::unique_ptr<BlobStore>>& blobs,
             const std::vector<BuildInfo>& infos) {
  Kernel k;
  const BuildKernel& ref = sums[m.front().first].kernels[m.front().second];
  k.name = ref.name;
  k.display = display_name(ref.name);
  k.target = ref.target;
  k.compiler = ref.stages.front().kind + " " + ref.stages.front().program;
  for (auto [b, i] : m)
    k.present.push_back(b);
  k.stages = align_stages(m, sums);
  for (const auto& n : ref.names_differ)
    k.notes.push_back(n + " (temporary parts of names are not compared)");
  std::set<std::string> libs;
  for (auto [b, i] : m)
    libs.insert(sums[b].kernels[i].stages.front().lib_hash);
  if (libs.size() > 1) k.notes.push_back("the first compiler's content differs between builds");
  if (k.present.size() < sums.size()) {
    k.status = KernelStatus::not_in_every_build;
    return k;
  }
  for (size_t s = 0; s < k.stages.size(); ++s) {
    const Stage& st = k.stages[s];
    std::vector<size_t> where;
    for (const auto& sb : st.builds)
      where.push_back(sb.build);
    if (st.builds.size() < k.present.size()) {
      k.status = KernelStatus::varies;
      k.first_varying = s;
      k.notes.push_back(fmt::format("stage {} ({} {}) ran in build {} only", s + 1, st.kind,
                                    st.program, join_builds(where)));
      break;
    }
    bool inputs_same = std::all_of(st.builds.begin(), st.builds.end(), [&](const StageBuild& sb) {
      return sb.inputs == st.builds.front().inputs;
    });
    if (!inputs_same) {
      k.status = KernelStatus::input_differs;
      k.first_varying = s;
      k.input_detail = fmt::format("stage {} ({} {}): {}", s + 1, st.kind, st.program,
                                   input_difference(st, blobs));
      break;
    }
    if (outputs_differ(st)) {
      k.status = KernelStatus::varies;
      k.first_varying = s;
      k.difference = classify(st, blobs);
      break;
    }
  }
  const Stage& last = k.stages.back();
  k.final_output_varies = last.builds.size() < k.present.size() || outputs_differ(last);
  if (k.first_varying) {
    const Stage& st = k.stages[*k.first_varying];
    const StageBuild& sb = st.builds.front();
    std::string dir = infos[sb.build].dir;
    // The last build's: its caches stay, with the files its compiles name.
    if (k.status == KernelStatus::varies)
      k.next = fmt::format("kdet explain {}/bundles/{}", infos[st.builds.back().build].dir,
                           st.builds.back().bundle);
    else if (st.builds.size() > 1)
      k.next = fmt::format("kdet diff {}/bundles/{}/inputs {}/bundles/{}/inputs", dir, sb.bundle,
                           infos[st.builds[1].build].dir, st.builds[1].bundle);
  }
  return k;
}

int status_rank(KernelStatus s) {
  switch (s) {
  case KernelStatus::varies:
    return 0;
  case KernelStatus::input_differs:
    return 1;
  case KernelStatus::not_in_every_build:
    return 2;
  case KernelStatus::same:
    return 3;
  }
  return 3;
}

} // namespace

const char* to_string(KernelStatus s) {
  switch (s) {
  case KernelStatus::same:
    return "same";
  case KernelStatus::varies:
    return "varies";
  case KernelStatus::input_differs:
    return "input-differs";
  case KernelStatus::not_in_every_build:
    return "not-in-every-build";
  }
  return "same";
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

std::vector<std::string> capture_folders(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error::format("{}: not a folder (give a kdet capture --out folder)", dir);
  if (::stat((dir + "/raw/records").c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return {dir};
  std::vector<std::pair<long, std::string>> found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.rfind("build-", 0) != 0 || n.size() == 6 ||
          n.find_first_not_of("0123456789", 6) != std::string::npos || n.size() > 12)
        continue;
      std::string sub = dir + "/" + n;
      if (::stat((sub + "/raw/records").c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        found.emplace_back(std::stol(n.substr(6)), sub);
    }
    ::closedir(d);
  }
  if (found.empty())
    throw Error::format("{}: holds no capture (no raw/records, and no build-K folders with one)",
                        dir);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [k, sub] : found)
    out.push_back(std::move(sub));
  return out;
}

BuildsResult compare_builds(const std::vector<std::string>& dirs, std::vector<BuildInfo> infos) {
  BuildsResult r;
  infos.resize(dirs.size());
  std::vector<BuildSummary> sums;
  std::vector<std::unique_ptr<BlobStore>> blobs(dirs.size());
  for (size_t b = 0; b < dirs.size(); ++b) {
    BuildInfo& info = infos[b];
    info.dir = dirs[b];
    struct stat st {};
    if (::stat((dirs[b] + "/raw/records").c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Error::format("{}: holds no capture (no raw/records folder)", dirs[b]);
    if (info.pipeline_status.empty()) {
      info.pipeline_status = "unknown";
      read_capture_json(dirs[b], info);
    }
    sums.push_back(summarize_build(dirs[b], info, blobs[b]));
  }
  for (const auto& m : match_kernels(sums))
    r.kernels.push_back(judge(m, sums, blobs, infos));
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](const Kernel& a, const Kernel& b) {
    return status_rank(a.status) != status_rank(b.status)
               ? status_rank(a.status) < status_rank(b.status)
               : a.name < b.name;
  });
  r.builds = std::move(infos);
  return r;
}

} // namespace kdet::capture
