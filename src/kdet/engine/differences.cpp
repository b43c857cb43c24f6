//===- engine/differences.cpp - how a variant differs from another ---------===//
// Names how each variant differs from the most common one, with kdet diff's classification
// (artifacts past diff::k_max_detailed_size are compared by hash and size only).
#include "kdet/engine/differences.hpp"

#include "kdet/diff/diff.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/engine/verdict.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

namespace kdet::engine {

namespace {

// Same content: by hash and size where both sides have a hash, else by bytes.
bool same_content(const backend::Artifact& a, const backend::Artifact& b) {
  if (!a.hash.empty() && !b.hash.empty()) return a.hash == b.hash && a.size == b.size;
  return backend::artifact_bytes(a) == backend::artifact_bytes(b);
}

} // namespace

std::string describe(const std::vector<backend::Artifact>& reference,
                     const std::vector<backend::Artifact>& other) {
  std::string summary;
  auto add = [&](const std::string& name, const std::string& part) {
    summary += fmt::format("{}{}: {}", summary.empty() ? "" : "; ", name, part);
  };
  auto find = [](const std::vector<backend::Artifact>& in, const std::string& name) {
    const backend::Artifact* hit = nullptr;
    for (const auto& x : in)
      if (x.name == name) hit = &x;
    return hit;
  };
  for (const auto& a : other) {
    const backend::Artifact* m = find(reference, a.name);
    if (!m) {
      add(a.name, "only in this variant");
      continue;
    }
    if (same_content(*m, a)) continue;
    uint64_t size_m = m->file ? m->size : std::max<uint64_t>(m->size, m->data.size());
    uint64_t size_a = a.file ? a.size : std::max<uint64_t>(a.size, a.data.size());
    if (std::max(size_m, size_a) > diff::k_max_detailed_size) {
      add(a.name, diff::size_only_summary(size_m, size_a));
      continue;
    }
    try {
      add(a.name, diff::summary_line(
                      diff::compare(backend::artifact_bytes(*m), backend::artifact_bytes(a))));
    } catch (const std::exception& e) {
      add(a.name, std::string("could not compare: ") + e.what());
    }
  }
  for (const auto& m : reference)
    if (!find(other, m.name)) add(m.name, "missing in this variant");
  return summary.empty() ? "identical" : summary;
}

void annotate_differences(RunOutput& out) {
  // Against the most common outcome of the compiler: kdet's own errors are none (their detail
  // says what went wrong) and are no reference for the others.
  const Variant* modal = modal_outcome(out.variants);
  if (!modal) return;
  for (Variant& v : out.variants) {
    if (&v == modal || is_kdet_error(v.status)) continue;
    if (v.status != modal->status) {
      v.difference = fmt::format("{} where the most common outcome is {}",
                                 backend::to_string(v.status), backend::to_string(modal->status));
      continue;
    }
    if (v.status != backend::Status::ok)
      continue; // same failure class, other code or signal: the detail says it
    v.difference = describe(modal->artifacts, v.artifacts);
  }
}

const backend::Artifact* reach_artifact(const std::vector<backend::Artifact>& artifacts) {
  const backend::Artifact* ptx = nullptr;
  for (const auto& a : artifacts) {
    // A cubin or PTX file past the size impact reads is not what ptxas makes of a kernel.
    if (a.size > diff::k_max_detailed_size) continue;
    std::string bytes = backend::artifact_bytes(a);
    diff::Format f = diff::detect_format(bytes);
    if (f == diff::Format::cubin) return &a;
    if (f == diff::Format::ptx && !ptx) ptx = &a;
  }
  return ptx;
}

VariantReaches variant_reaches(const RunOutput& out, const diff::ReachOptions& options) {
  VariantReaches reaches;
  const Variant* modal = modal_outcome(out.variants);
  if (!modal || modal->status != backend::Status::ok) return {};
  const backend::Artifact* ref = reach_artifact(modal->artifacts);
  if (!ref) return {};
  std::string ref_bytes = backend::artifact_bytes(*ref);
  for (const Variant& v : out.variants) {
    if (&v == modal || v.status != backend::Status::ok) continue;
    const backend::Artifact* a = reach_artifact(v.artifacts);
    if (!a) continue;
    reaches[v.id] = diff::variant_reach(ref_bytes, backend::artifact_bytes(*a), options);
  }
  return reaches;
}

diff::ReachOptions reach_options(const std::vector<std::string>& options,
                                 const std::string& command) {
  diff::ReachOptions o;
  std::vector<std::string> words = options;
  // An exec compiler's template carries its own options ("ptxas -arch=sm_90 {input} ...").
  std::string word;
  for (char c : command + " ") {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  Result<std::string> arch = diff::arch_from_options(words);
  o.arch = arch ? *arch : "";
  o.arch_why = arch.why();
  o.ptxas = diff::find_ptxas("", "KDET_PTXAS");
  return o;
}

} // namespace kdet::engine
