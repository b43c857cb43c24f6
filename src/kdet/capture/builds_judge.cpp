//===- capture/builds_judge.cpp - kernels matched and judged across builds -===//
//
// Kernels of every build are matched by key; each matched kernel's stages are aligned
// across builds and walked in dataflow order to its status (builds.hpp).
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/builds_internal.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/engine/variants.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace kdet::capture::detail {

// Matches the kernels of every build by key; kernels that share a key within one build
// (a kernel compiled twice with other constants) are told apart by their first inputs,
// then paired in order.
size_t compared_builds(const std::vector<BuildSummary>& sums) {
  return static_cast<size_t>(
      std::count_if(sums.begin(), sums.end(), [](const BuildSummary& s) { return s.compared; }));
}

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
        if (m.size() == compared_builds(sums))
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
    return engine::more_common(a.second.count, a.second.first_build, b.second.count,
                               b.second.first_build);
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
  if (va.find("tmpxft_") != std::string_view::npos && vb.find("tmpxft_") != std::string_view::npos)
    d.summary += "; both embed nvcc's temporary names (tmpxft_...), new in every build";
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
  // Per stage key, in the reference build's order: each build's stages of that key. Stages of
  // one key are paired across builds by identical inputs first, then in order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::vector<const StageSummary*>>> by_key;
  for (auto [b, i] : m)
    for (const auto& s : sums[b].kernels[i].stages) {
      auto& per = by_key[s.key];
      if (per.empty()) {
        per.resize(sums.size());
        order.push_back(s.key);
      }
      per[b].push_back(&s);
    }
  std::vector<Stage> stages;
  for (const auto& key : order) {
    auto per = by_key[key];
    size_t ref = m.front().first;
    std::vector<std::vector<const StageSummary*>> rows;
    for (const StageSummary* r : per[ref]) {
      std::vector<const StageSummary*> row(sums.size(), nullptr);
      row[ref] = r;
      rows.push_back(row);
    }
    for (size_t b = 0; b < per.size(); ++b) {
      if (b == ref) continue;
      std::vector<const StageSummary*> left;
      for (const StageSummary* s : per[b]) {
        auto same = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
          return !row[b] && row[ref] && row[ref]->inputs == s->inputs;
        });
        if (same != rows.end())
          (*same)[b] = s;
        else
          left.push_back(s);
      }
      for (const StageSummary* s : left) {
        auto free =
            std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return !row[b]; });
        if (free == rows.end()) {
          rows.emplace_back(sums.size(), nullptr);
          free = rows.end() - 1;
        }
        (*free)[b] = s;
      }
    }
    for (const auto& row : rows) {
      Stage st;
      for (size_t b = 0; b < row.size(); ++b) {
        const StageSummary* s = row[b];
        if (!s) continue;
        if (st.builds.empty()) {
          st.kind = s->kind;
          st.program = s->program;
          st.library = s->library;
          st.options = s->options;
          st.seam = s->seam;
          st.framework = s->framework;
          st.label = s->label;
          st.from = s->from;
          st.frontend = s->frontend;
          st.by_name = s->by_name;
        }
        StageBuild sb;
        sb.build = b;
        sb.bundle = s->bundle;
        sb.inputs = s->inputs;
        for (const auto& e : split_inputs(s->inputs))
          sb.input_hashes.push_back(input_hash(e));
        sb.outputs = s->outputs;
        sb.compiles = s->compiles;
        sb.raw_options = s->raw_options;
        sb.lib_hash = s->lib_hash;
        sb.file = s->file;
        sb.made_by = s->made_by;
        sb.shipped_in = s->shipped_in;
        st.builds.push_back(std::move(sb));
      }
      stages.push_back(std::move(st));
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
  for (auto [b, i] : m) {
    k.present.push_back(b);
    k.named_in = std::max(k.named_in, sums[b].kernels[i].named_in);
  }
  k.stages = align_stages(m, sums);
  for (const auto& n : ref.names_differ)
    k.notes.push_back(n + " (temporary parts of names are not compared)");
  // One kernel, its entries in another order in some build: matched by the set of names.
  for (auto [b, i] : m)
    if (sums[b].kernels[i].entry_order != ref.entry_order) {
      k.notes.push_back(fmt::format("its entries come in another order in build {} ({}) than in "
                                    "build {} ({}); kernels are matched by the set of their "
                                    "entry names",
                                    b + 1, sums[b].kernels[i].entry_order, m.front().first + 1,
                                    ref.entry_order));
      break;
    }
  // A stage whose program's content differs between builds (an upgrade between captures, a
  // rebuilt tool) makes other outputs for that reason: said, for every stage.
  for (size_t s = 0; s < k.stages.size(); ++s) {
    std::set<std::string> libs;
    for (const auto& sb : k.stages[s].builds)
      libs.insert(sb.lib_hash);
    if (libs.size() > 1)
      k.notes.push_back(
          fmt::format("the program of stage {} ({}) differs in content between builds", s + 1,
                      k.stages[s].program));
  }
  if (k.present.size() < compared_builds(sums)) {
    k.status = KernelStatus::not_in_every_build;
    return k;
  }
  bool extra_stage = false;
  // Stages joined by entry names (a module's tapped HLO that names this kernel among others)
  // count only where a captured stage of the kernel differs: they say where that began.
  auto differs = [&](const Stage& st) {
    return st.builds.size() < k.present.size() || outputs_differ(st) ||
           std::any_of(st.builds.begin(), st.builds.end(),
                       [&](const StageBuild& sb) { return sb.inputs != st.builds.front().inputs; });
  };
  const bool captured_differs = std::any_of(k.stages.begin(), k.stages.end(), [&](const Stage& st) {
    return !st.by_name && differs(st);
  });
  for (size_t s = 0; s < k.stages.size(); ++s) {
    const Stage& st = k.stages[s];
    if (st.by_name && (!captured_differs || st.builds.size() < k.present.size())) continue;
    std::vector<size_t> where;
    for (const auto& sb : st.builds)
      where.push_back(sb.build);
    if (st.builds.size() < k.present.size()) {
      k.status = KernelStatus::nondeterministic;
      k.first_varying = s;
      extra_stage = true;
      k.notes.push_back(fmt::format("stage {} ({} {}) ran in build {} only", s + 1, st.kind,
                                    st.program, join_builds(where)));
      break;
    }
    const StageBuild& first = st.builds.front();
    bool inputs_same = std::all_of(st.builds.begin(), st.builds.end(),
                                   [&](const StageBuild& sb) { return sb.inputs == first.inputs; });
    if (!inputs_same) {
      k.status = KernelStatus::input_differs;
      k.first_varying = s;
      k.input_detail = fmt::format("stage {} ({} {}): {}", s + 1, st.kind, st.program,
                                   input_difference(st, blobs));
      break;
    }
    // Options that differ only in their temporary parts match the kernels up; where the
    // outputs differ too, the pipeline gave the compiler other options.
    auto other = std::find_if(st.builds.begin(), st.builds.end(), [&](const StageBuild& sb) {
      return sb.raw_options != first.raw_options;
    });
    bool differ = outputs_differ(st);
    if (other != st.builds.end() && differ) {
      k.status = KernelStatus::input_differs;
      k.first_varying = s;
      k.input_detail = fmt::format(
          "stage {} ({} {}): the options differ: build {}: {}; build {}: {}", s + 1, st.kind,
          st.program, first.build + 1, first.raw_options, other->build + 1, other->raw_options);
      break;
    }
    if (other != st.builds.end())
      k.notes.push_back(
          fmt::format("the options of stage {} differ in temporary parts only", s + 1));
    if (differ) {
      k.status = KernelStatus::nondeterministic;
      k.first_varying = s;
      k.difference = classify(st, blobs);
      break;
    }
  }
  // The final artifact: the last stage that recorded an output (fatbinary's embedded output
  // is not one; nvcc's is).
  const Stage* last = &k.stages.back();
  for (auto it = k.stages.rbegin(); it != k.stages.rend(); ++it)
    if (std::any_of(it->builds.begin(), it->builds.end(), [](const StageBuild& sb) {
          return std::any_of(sb.outputs.begin(), sb.outputs.end(),
                             [](const auto& o) { return o.first != "result"; });
        })) {
      last = &*it;
      break;
    }
  k.final_output_varies = last->builds.size() < k.present.size() || outputs_differ(*last);
  if (k.first_varying && !extra_stage) {
    const Stage& st = k.stages[*k.first_varying];
    const StageBuild& sb = st.builds.front();
    std::string dir = infos[sb.build].dir;
    // The last build's: its caches stay, with the files its compiles name.
    if (k.status == KernelStatus::nondeterministic)
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
  case KernelStatus::nondeterministic:
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

} // namespace kdet::capture::detail
