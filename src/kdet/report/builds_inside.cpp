//===- report/builds_inside.cpp - what builds saw inside the pipeline's processes ===//
#include "kdet/report/builds_inside.hpp"

#include "kdet/report/scan_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace kdet::report {

using capture::BuildsResult;
using capture::Kernel;
using capture::KernelStatus;

namespace {

struct Seen {
  const capture::CompilerInside* ci = nullptr;
  std::vector<size_t> builds;
};

// Every classified file across builds, once, blind ones first.
std::vector<Seen> inside_all(const BuildsResult& r) {
  std::map<std::string, Seen> by;
  std::vector<std::string> order;
  for (size_t b = 0; b < r.builds.size(); ++b)
    for (const auto& ci : r.builds[b].inside) {
      auto [it, fresh] = by.try_emplace(ci.path);
      if (fresh) {
        it->second.ci = &ci;
        order.push_back(ci.path);
      }
      it->second.builds.push_back(b);
    }
  std::vector<Seen> out;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& p : order)
      if ((by[p].ci->seam == capture::Seam::blind) == (pass == 0)) out.push_back(by[p]);
  return out;
}

std::string build_list(const std::vector<size_t>& builds, size_t total) {
  if (builds.size() == total) return total == 2 ? "both builds" : "every build";
  std::string s;
  for (size_t b : builds)
    s += (s.empty() ? "build " : ", ") + std::to_string(b + 1);
  return s;
}

} // namespace

std::string inside_varies_words(const Kernel& k, size_t builds) {
  if (k.status != KernelStatus::nondeterministic || !k.first_varying) return "";
  const auto& st = k.stages[*k.first_varying];
  if (!k.made_inside.empty()) {
    // Tapped stages before it, all the same: the variance is made after the last of them.
    std::string kept;
    for (size_t i = 0; i < *k.first_varying; ++i)
      if (k.stages[i].seam == "tapped") kept = k.stages[i].label;
    const std::string whose = kept.empty() ? "" : k.stages.front().framework;
    return fmt::format(
        "first varies inside the process, upstream of stage {} ({} {}): its input was made by a "
        "compiler kdet did not see ({}); {}",
        *k.first_varying + 1, st.kind, st.program, k.made_inside,
        kept.empty() && k.named_in > 1
            ? fmt::format("{} kept files name all of its entries, so kdet cannot tell which of "
                          "them it was made from (a kept file that varies is listed as a kernel "
                          "of its own)",
                          k.named_in)
        : kept.empty() ? std::string("keep that compiler's files with --artifacts GLOB or a "
                                     "framework tap to name its stage")
                       : fmt::format("{} kept {} is the same in all {} builds, so the variance is "
                                     "made after it, in a stage whose files were not kept",
                                     whose == "--artifacts" ? "the" : whose + "'s", kept, builds));
  }
  if (st.seam == "loaded") {
    // The driver's load seam: the image differs, and no stage before it in this kernel does.
    std::string made, shipped;
    for (const auto& sb : st.builds) {
      if (!sb.made_by.empty()) made = " (" + sb.made_by + ")";
      if (!sb.shipped_in.empty()) shipped = fmt::format("{}", fmt::join(sb.shipped_in, ", "));
    }
    std::string via = st.builds.empty() ? "" : st.builds.front().raw_options;
    if (*k.first_varying == 0 && !shipped.empty())
      return fmt::format("first varies loaded by the driver (stage 1, {}): the fatbin shipped in "
                         "{} differs between builds; it was compiled ahead of time, not by this "
                         "pipeline: the file itself changed",
                         via.empty() ? "a load" : via, shipped);
    return fmt::format("first varies loaded by the driver (stage {}, {}): the module handed to the "
                       "driver differs between builds{}",
                       *k.first_varying + 1, via.empty() ? "a load" : via,
                       *k.first_varying == 0
                           ? fmt::format(", made by a compiler kdet did not see{}", made)
                           : std::string("; every stage before it is the same"));
  }
  if (st.seam != "tapped") return "";
  std::string whose = st.framework == "--artifacts" ? "the kept files'" : st.framework + "'s";
  std::string s = fmt::format("first varies at {} {} stage ({}{}, inside the process{})", whose,
                              st.label, st.from.empty() ? "" : st.from + " -> ", st.label,
                              st.frontend ? "; the frontend's own variance, not a compiler's" : "");
  std::vector<std::string> same;
  for (size_t i = 0; i < *k.first_varying; ++i)
    if (k.stages[i].seam == "tapped") same.push_back(k.stages[i].label);
  if (!st.from.empty() && std::find(same.begin(), same.end(), st.from) == same.end())
    same.insert(same.begin(), st.from);
  if (!same.empty()) {
    std::string list;
    for (size_t i = 0; i < same.size(); ++i)
      list += (i == 0 ? "" : i + 1 == same.size() ? " and " : ", ") + same[i];
    s += fmt::format("; {} the same in all {} builds", list, builds);
  }
  return s;
}

std::string inside_text(const BuildsResult& r) {
  std::string out;
  for (const auto& s : inside_all(r)) {
    if (s.ci->seam != capture::Seam::blind) continue;
    out += fmt::format("  BLIND     {} ({}): kdet cannot see the compiles inside it; loaded in "
                       "{}\n",
                       s.ci->words(), s.ci->path, build_list(s.builds, r.builds.size()));
  }
  size_t taps = 0;
  for (const auto& b : r.builds)
    taps += b.taps;
  if (taps)
    out += fmt::format("  taps      {} stage files kept ({}/taps of each build)\n", taps,
                       r.builds.empty() ? "" : "build-K");
  for (const auto& v : r.recorded)
    out += "  recorded  " + v + "\n";
  if (!r.varied.empty()) {
    std::string f;
    for (const auto& v : r.varied)
      f += (f.empty() ? "" : ", ") + v;
    out += "  varied    between builds: " + f + "\n";
  }
  bool blind = !out.empty() && out.find("BLIND") != std::string::npos;
  if (r.kernels.empty() && blind)
    out += "  warning   no compile was seen while a compiler kdet cannot see into was loaded: "
           "blind, not clean;\n            keep its files with --artifacts GLOB (docs/CAPTURE.md, "
           "\"Stage taps\")\n";
  size_t failed = 0;
  for (const auto& k : r.kernels)
    failed += k.compile_failed;
  if (failed)
    out += fmt::format("  failed    {} kernel{} failed to compile in every build: nothing they "
                       "made to compare (notes below)\n",
                       failed, failed == 1 ? "" : "s");
  return out;
}

nlohmann::json inside_json(const BuildsResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : inside_all(r)) {
    nlohmann::json builds = nlohmann::json::array();
    for (size_t b : s.builds)
      builds.push_back(b + 1);
    list.push_back({{"path", s.ci->path},
                    {"inside", s.ci->inside},
                    {"seam", to_string(s.ci->seam)},
                    {"words", s.ci->words()},
                    {"builds", builds}});
  }
  return list;
}

std::string inside_html(const BuildsResult& r) {
  auto all = inside_all(r);
  if (all.empty()) return "";
  std::string out = "<h2>Compilers inside the pipeline's processes</h2>\n<table><thead><tr>"
                    "<th>seam</th><th>file</th><th>inside</th><th>builds</th></tr></thead>"
                    "<tbody>\n";
  for (const auto& s : all) {
    std::string inside;
    for (const auto& i : s.ci->inside)
      inside += (inside.empty() ? "" : ", ") + i;
    out += fmt::format("<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td>"
                       "<td>{}</td></tr>\n",
                       s.ci->seam == capture::Seam::blind ? "bad" : "", to_string(s.ci->seam),
                       xml_escape(s.ci->path), xml_escape(inside),
                       xml_escape(build_list(s.builds, r.builds.size())));
  }
  out += "</tbody></table>\n<p>blind: kdet sees none of the compiles inside that file; "
         "interposed: its API is wrapped; command: a compiler command kdet ran; driver: the "
         "CUDA driver's own JIT.</p>\n";
  return out;
}

} // namespace kdet::report
