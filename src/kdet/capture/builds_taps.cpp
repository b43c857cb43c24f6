//===- capture/builds_taps.cpp - stage taps and unseen compilers in builds --===//
//
// A build's kept stage files (capture/taps.hpp) become stages of its kernels:
// grouped by kernel (file stem, XLA module), ordered by stage (source, HLO,
// MLIR, LLVM IR, PTX, cubin), each stage taking the file before it as its input.
// They are joined to the captured compiles by content (a ptxas input equal to a
// kept .ptx: the tapped stages up to that file come before it, the captured
// compile replaces the tapped ones after it) or stay kernels of their own.
//
// After judging (builds_judge.cpp), refine() makes sure a difference made inside
// the process is never called the pipeline's own input, and that the next
// command names two builds that differ at that stage.
//
//===----------------------------------------------------------------------===//
#include "kdet/capture/builds_internal.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/capture/tap_recipes.hpp"
#include "kdet/capture/taps.hpp"
#include "kdet/diff/diff.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace kdet::capture::detail {

namespace {

std::string base_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// True for bytes a compiler makes: PTX, LLVM IR (text or bitcode), MLIR, an ELF file.
bool looks_generated(std::string_view b) {
  if (b.substr(0, 4) == "\x7f"
                        "ELF" ||
      b.substr(0, 4) == "BC\xc0\xde")
    return true;
  auto has = [&](std::string_view s) { return b.find(s) != std::string_view::npos; };
  return (has(".version ") && has(".target ")) || has("target triple") || has("; ModuleID") ||
         has("module attributes") || has("tt.func");
}

// The names `@triton.jit` functions of an Inductor source file define.
std::vector<std::string> triton_functions(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = text.find("@triton.jit", at)) != std::string::npos) {
    size_t def = text.find("def ", at);
    at += 11;
    if (def == std::string::npos) break;
    size_t open = text.find('(', def);
    if (open == std::string::npos) break;
    out.push_back(text.substr(def + 4, open - def - 4));
  }
  return out;
}

struct TapGroup {
  std::string key, framework, display;
  std::vector<const TapFile*> files; // staged files, in stage order
};

std::vector<TapGroup> tap_groups(const std::vector<TapFile>& taps, const std::string& dir) {
  std::map<std::string, TapGroup> by;
  for (const auto& t : taps) {
    if (t.cls == StageClass::none || t.framework == "inductor") continue;
    TapGroup& g = by[t.framework + "\n" + t.group];
    g.key = t.group;
    g.framework = t.framework;
    g.display = t.display;
    g.files.push_back(&t);
  }
  // Inductor's generated source comes before Triton's stages of the kernels it defines.
  for (const auto& t : taps) {
    if (t.framework != "inductor") continue;
    std::string text;
    try {
      text = read_file(dir + "/taps/" + t.rel);
    } catch (const Error&) {
      continue;
    }
    for (const auto& name : triton_functions(text))
      for (auto& [key, g] : by)
        if (g.framework == "triton" && base_of(g.key) == name) g.files.push_back(&t);
  }
  std::vector<TapGroup> out;
  for (auto& [key, g] : by) {
    std::stable_sort(g.files.begin(), g.files.end(), [](const TapFile* a, const TapFile* b) {
      int ra = a->framework == "inductor" ? -1 : a->rank,
          rb = b->framework == "inductor" ? -1 : b->rank;
      return ra != rb ? ra < rb : a->label < b->label;
    });
    out.push_back(std::move(g));
  }
  return out;
}

std::string short_label(const TapFile& t) {
  return t.framework == "inductor" ? "inductor source" : t.label;
}

// The tapped stages of a group: each file made from the one before it (the first from
// nothing, unless it is the source, which is then the input of the next).
// The target a PTX text names (`.target sm_80`), "" when none.
std::string ptx_target(const std::string& ptx) {
  size_t at = ptx.find("\n.target ");
  if (at == std::string::npos) return "";
  size_t from = at + 9, to = ptx.find_first_of(", \r\n", from);
  return ptx.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

std::vector<StageSummary> tap_stages(const TapGroup& g) {
  std::vector<StageSummary> out;
  for (size_t i = 0; i < g.files.size(); ++i) {
    const TapFile& t = *g.files[i];
    const TapFile* prev = i ? g.files[i - 1] : nullptr;
    if (!prev && t.cls == StageClass::source) continue;
    StageSummary s;
    s.kind = "tap";
    s.seam = "tapped";
    s.framework = g.display;
    s.program = g.display;
    s.label = short_label(t);
    s.from = prev ? short_label(*prev) : "";
    s.frontend = !prev || prev->cls == StageClass::source;
    s.options = (prev ? s.from + " -> " : std::string("-> ")) + s.label;
    s.raw_options = s.options;
    s.key = "tap\n" + g.framework + "\n" + s.options;
    s.bundle = "";
    s.file = "taps/" + t.rel;
    if (prev)
      s.inputs = std::string(prev->framework == "inductor" ? "source" : "file") + ":" + prev->hash +
                 '\x1f';
    s.outputs[to_string(t.cls)].push_back(t.hash);
    s.compiles = 1;
    out.push_back(std::move(s));
  }
  return out;
}

// Sets each captured stage's seam and, for an input that no stage of the build made and that
// a compiler made, the compilers kdet could not see into that were loaded where it was made.
void note_unseen_makers(BuildSummary& sum, const std::set<std::string>& produced,
                        const std::vector<CompilerInside>& inside,
                        const std::vector<Compile>& compiles, const std::vector<Bundle>& bundles,
                        const BlobStore& blobs) {
  std::map<std::string, const Compile*> first;
  for (const auto& c : compiles)
    first.emplace(c.bundle(), &c);
  std::map<std::string, const Bundle*> by_id;
  for (const auto& b : bundles)
    by_id[b.id] = &b;
  for (auto& k : sum.kernels)
    for (auto& s : k.stages) {
      if (s.seam.empty()) s.seam = s.kind == "exec" ? "command" : "interposed";
      if (s.seam == "tapped" || inside.empty()) continue;
      auto b = by_id.find(s.bundle);
      auto c = first.find(s.bundle);
      if (b == by_id.end() || c == first.end()) continue;
      bool unseen_input = false;
      for (const auto& in : b->second->inputs)
        if (!produced.count(in.hash))
          if (auto bytes = blobs.get(in.hash); bytes && looks_generated(*bytes))
            unseen_input = true;
      if (unseen_input) s.made_by = makers_words(unseen_makers(inside, *c->second));
    }
}

// A tapped group that joined no captured compile by content: a kernel of its own, named by
// the entries of its PTX, else by its file stem.
void add_tap_kernel(BuildSummary& sum, const TapGroup& g, std::vector<StageSummary> stages,
                    const std::string& target, BlobStore& blobs) {
  BuildKernel k;
  for (const TapFile* f : g.files)
    if (f->cls == StageClass::ptx)
      if (auto bytes = blobs.get(f->hash))
        for (auto& n : entry_names(*bytes))
          k.name += (k.name.empty() ? "" : ", ") + n;
  if (k.name.empty()) k.name = base_of(g.key);
  k.target = target;
  k.stages = std::move(stages);
  k.key = k.name + "\n" + k.stages.front().key;
  k.first_inputs = k.stages.front().inputs;
  sum.kernels.push_back(std::move(k));
}

// The text of a group's last file when it is a text stage (HLO, MLIR, LLVM IR) that names
// the kernels made from it, as XLA's optimized HLO names its fusions; nullopt otherwise.
std::optional<std::string> last_text(const TapGroup& g, BlobStore& blobs) {
  const TapFile* last = g.files.empty() ? nullptr : g.files.back();
  if (!last || (last->cls != StageClass::hlo && last->cls != StageClass::mlir &&
                last->cls != StageClass::llvm))
    return std::nullopt;
  auto bytes = blobs.get(last->hash);
  if (!bytes) return std::nullopt;
  std::string text = std::move(*bytes);
  for (char& c : text) // XLA's "loop_multiply_fusion.1" is the PTX's "loop_multiply_fusion_1"
    if (c == '.' || c == '-') c = '_';
  return text;
}

// True when `name` occurs in `text` as a whole identifier.
bool names_word(const std::string& text, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !ident(text[at - 1])) &&
        (at + name.size() == text.size() || !ident(text[at + name.size()])))
      return true;
  return false;
}

struct Unjoined {
  std::vector<StageSummary> stages;
  std::string text;
  std::string target;
  const TapGroup& group;
};

// By kernel: a captured kernel whose first stage's input was made inside the process (by a
// compiler kdet could not see into) takes a copy of the tapped stages of the one unjoined group
// whose last text names every entry of the kernel (XLA: the module whose optimized HLO holds
// its fusions), marked by_name: they say where a difference of the kernel's began and never
// make it vary by themselves (builds_judge.cpp). Its key stays the captured one, so a build
// where the join is ambiguous still matches it.
void join_by_names(BuildSummary& sum, std::vector<Unjoined>& unjoined, BlobStore& blobs) {
  for (auto& k : sum.kernels) {
    if (k.stages.empty() || k.stages.front().seam == "tapped" || k.stages.front().made_by.empty() ||
        k.entry_order.empty())
      continue;
    std::vector<std::string> names = split(k.name, ',');
    size_t only = 0;
    for (size_t u = 0; u < unjoined.size(); ++u) {
      bool all = true;
      for (const auto& n : names)
        if (std::string t = trim(n); t.empty() || !names_word(unjoined[u].text, t)) all = false;
      if (!all) continue;
      only = u;
      ++k.named_in;
    }
    if (k.named_in != 1) continue; // none, or several: which one made it is not known
    std::vector<StageSummary> before = unjoined[only].stages;
    for (auto& st : before)
      st.by_name = true;
    k.stages.insert(k.stages.begin(), before.begin(), before.end());
    if (k.target.empty()) k.target = unjoined[only].target;
  }
  // Each group stays a kernel of its own as well: a module's HLO may differ where none of the
  // kernels it names does, and that is said once, of the module.
  for (auto& u : unjoined)
    add_tap_kernel(sum, u.group, std::move(u.stages), u.target, blobs);
}

} // namespace

void add_tap_stages(const std::string& dir, BuildInfo& info, BuildSummary& sum, BlobStore& blobs,
                    const std::vector<Compile>& compiles, const std::vector<Bundle>& bundles) {
  info.inside = compilers_inside(read_maps(dir + "/raw", info.problems), compiles);
  std::vector<TapFile> taps = read_taps(dir, info.problems);
  info.taps = taps.size();
  std::set<std::string> produced;
  for (const auto& b : bundles)
    for (const auto& o : b.outputs)
      produced.insert(o.second);
  for (const auto& t : taps) {
    blobs.add_file(t.hash, dir + "/taps/" + t.rel);
    if (t.cls != StageClass::none) produced.insert(t.hash);
  }
  note_unseen_makers(sum, produced, info.inside, compiles, bundles, blobs);
  std::vector<TapGroup> groups = tap_groups(taps, dir);
  std::vector<Unjoined> unjoined;
  for (const auto& g : groups) {
    std::vector<StageSummary> stages = tap_stages(g);
    if (stages.empty()) continue;
    std::string target;
    for (const TapFile* f : g.files)
      if (f->cls == StageClass::ptx && target.empty())
        if (auto bytes = blobs.get(f->hash)) target = ptx_target(*bytes);
    // By content: the captured stage that takes a kept file; the latest such file wins.
    BuildKernel* joined = nullptr;
    size_t at = 0, upto = 0;
    for (auto& k : sum.kernels)
      for (size_t j = 0; j < k.stages.size() && !joined; ++j) {
        if (k.stages[j].seam == "tapped") continue;
        auto hashes = split_inputs(k.stages[j].inputs);
        for (size_t f = 0; f < stages.size(); ++f)
          for (const auto& [kind, hs] : stages[f].outputs)
            for (const auto& e : hashes)
              if (input_hash(e) == hs.front() && (!joined || f > upto)) {
                joined = &k;
                at = j;
                upto = f;
              }
      }
    if (joined) {
      stages.resize(upto + 1);
      joined->stages.insert(joined->stages.begin() + static_cast<long>(at), stages.begin(),
                            stages.end());
      joined->key = joined->name + "\n" + joined->stages.front().key;
      joined->first_inputs = joined->stages.front().inputs;
      if (joined->target.empty()) joined->target = target;
      continue;
    }
    if (auto text = last_text(g, blobs)) {
      unjoined.push_back({std::move(stages), std::move(*text), target, g});
      continue;
    }
    add_tap_kernel(sum, g, std::move(stages), target, blobs);
  }
  join_by_names(sum, unjoined, blobs);
  info.kernels = sum.kernels.size();
}

namespace {

// Two builds whose inputs of `st` differ: the first build and the first other one.
std::pair<const StageBuild*, const StageBuild*> differing_inputs(const Stage& st) {
  const StageBuild& a = st.builds.front();
  for (const auto& sb : st.builds)
    if (sb.inputs != a.inputs || sb.raw_options != a.raw_options) return {&a, &sb};
  return {&a, st.builds.size() > 1 ? &st.builds[1] : &a};
}

// The first input entry that differs between two builds of a stage, as a difference.
std::optional<StageDifference>
input_as_difference(const StageBuild& a, const StageBuild& b,
                    const std::vector<std::unique_ptr<BlobStore>>& blobs) {
  auto x = split_inputs(a.inputs), y = split_inputs(b.inputs);
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    std::string ha = input_hash(x[i]), hb = input_hash(y[i]);
    if (ha == hb) continue;
    StageDifference d;
    d.hash_a = ha;
    d.hash_b = hb;
    d.build_a = a.build;
    d.build_b = b.build;
    auto ba = blobs[a.build]->get(ha), bb = blobs[b.build]->get(hb);
    if (!ba || !bb) {
      d.output_kind = "input";
      d.change = "code";
      d.summary = "differ (the bytes of an input were not stored)";
      return d;
    }
    std::string_view va(*ba), vb(*bb);
    while (!va.empty() && va.back() == '\0')
      va.remove_suffix(1);
    while (!vb.empty() && vb.back() == '\0')
      vb.remove_suffix(1);
    diff::Report r = diff::compare(va, vb);
    d.output_kind = diff::to_string(r.format);
    d.change = diff::to_string(r.overall);
    d.summary = diff::summary_line(r);
    return d;
  }
  return std::nullopt;
}

} // namespace

void refine(Kernel& k, const std::vector<std::unique_ptr<BlobStore>>& blobs,
            const std::vector<BuildInfo>& infos) {
  // A stage that failed in every build (every return code non-zero): nothing it made to
  // compare, which "same" alone would hide.
  for (size_t s = 0; s < k.stages.size(); ++s) {
    const Stage& st = k.stages[s];
    std::set<std::string> codes;
    bool all_failed = !st.builds.empty();
    for (const auto& sb : st.builds) {
      auto it = sb.outputs.find("result");
      if (it == sb.outputs.end() || it->second.empty())
        all_failed = false;
      else
        for (const auto& c : it->second) {
          codes.insert(c);
          if (c == "0") all_failed = false;
        }
    }
    if (all_failed && st.builds.size() == k.present.size()) {
      k.compile_failed = true;
      std::string list;
      for (const auto& c : codes)
        list += (list.empty() ? "" : ", ") + c;
      k.notes.push_back(fmt::format("stage {} ({} {}) failed in every build (return code {}): its "
                                    "log is in the bundle; nothing it made to compare",
                                    s + 1, st.kind, st.program, list));
    }
  }
  if (!k.first_varying) return;
  const Stage& st = k.stages[*k.first_varying];
  if (k.status == KernelStatus::input_differs) {
    auto [a, b] = differing_inputs(st);
    std::string made;
    for (const auto& sb : st.builds)
      if (!sb.made_by.empty()) made = sb.made_by;
    std::optional<StageDifference> d;
    if (!made.empty() && a != b) d = input_as_difference(*a, *b, blobs);
    if (d) {
      // Made inside the process, by a compiler kdet could not see into: a compiler's variance,
      // never the pipeline's own input.
      k.status = KernelStatus::nondeterministic;
      k.made_inside = made;
      k.difference = std::move(d);
      k.input_detail.clear();
    }
    if (a != b && !st.builds.front().bundle.empty() && !b->bundle.empty())
      k.next = fmt::format("kdet diff {}/bundles/{}/inputs {}/bundles/{}/inputs",
                           infos[a->build].dir, a->bundle, infos[b->build].dir, b->bundle);
    return;
  }
  if (k.status != KernelStatus::nondeterministic || (st.seam != "tapped" && st.seam != "loaded") ||
      !k.difference)
    return;
  // A tapped or loaded stage: the two files that differ.
  const StageDifference& d = *k.difference;
  const StageBuild *fa = nullptr, *fb = nullptr;
  for (const auto& sb : st.builds) {
    if (sb.build == d.build_a && !fa) fa = &sb;
    if (sb.build == d.build_b && !fb) fb = &sb;
  }
  // Where kdet replays the stage in-process (a recipe's bundle, capture/tap_recipes.hpp): that
  // replay, which repeats the stage in one process; else the two files that differ.
  for (const StageBuild* sb : {fa, fb})
    if (sb)
      if (std::string id = tap_replay_bundle(infos[sb->build].dir, sb->file); !id.empty()) {
        k.next = fmt::format("kdet explain {}/bundles/{}", infos[sb->build].dir, id);
        return;
      }
  if (fa && fb && fa != fb)
    k.next = fmt::format("kdet diff {}/{} {}/{}", infos[fa->build].dir, fa->file,
                         infos[fb->build].dir, fb->file);
}

} // namespace kdet::capture::detail
