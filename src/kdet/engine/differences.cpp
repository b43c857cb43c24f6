// Names how each variant differs from the most common one, with kdet diff's classification
// (artifacts past diff::k_max_detailed_size are compared by hash and size only).
#include "kdet/diff/diff.hpp"
#include "kdet/engine/runner.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdet::engine {

void annotate_differences(RunOutput& out) {
  if (out.variants.size() < 2) return;
  const Variant& modal = out.variants.front();
  for (size_t i = 1; i < out.variants.size(); ++i) {
    Variant& v = out.variants[i];
    if (v.status != modal.status) {
      v.difference = fmt::format("{} where the most common outcome is {}",
                                 backend::to_string(v.status), backend::to_string(modal.status));
      continue;
    }
    if (v.status != backend::Status::ok)
      continue; // same failure class, other code or signal: the detail says it
    std::string summary;
    for (const auto& a : v.artifacts) {
      const backend::Artifact* m = nullptr;
      for (const auto& b : modal.artifacts)
        if (b.name == a.name) m = &b;
      std::string part;
      if (!m)
        part = "only in this variant";
      else if (m->hash == a.hash && m->size == a.size)
        continue;
      else if (std::max(m->size, a.size) > diff::k_max_detailed_size)
        part = diff::size_only_summary(m->size, a.size);
      else {
        try {
          part = diff::summary_line(
              diff::compare(backend::artifact_bytes(*m), backend::artifact_bytes(a)));
        } catch (const std::exception& e) {
          part = std::string("could not compare: ") + e.what();
        }
      }
      summary += fmt::format("{}{}: {}", summary.empty() ? "" : "; ", a.name, part);
    }
    v.difference = summary;
  }
}

} // namespace kdet::engine
