//===- cli/annotations.cpp - --annotations: GitHub workflow commands ---------===//
#include "kdet/cli/annotations.hpp"

#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

namespace kdet::cli {

namespace {

// GitHub's escaping: % CR LF in the message; also : and , in a property's value.
std::string escape(const std::string& raw, bool property) {
  std::string out;
  for (char c : terminal_text(raw)) { // no control bytes from a capture folder in a CI log
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

// The file an annotation about bundle `id` of capture folder `dir` points at: the bundle's own
// bundle.json where bundles are folders; packed (the default), the manifest that lists it, since
// DIR/bundles/ID is then no file a runner could open.
std::string bundle_file(const std::string& dir, const std::string& id) {
  std::string file = dir + "/bundles/" + id + "/bundle.json";
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 ? file : dir + "/manifest.toml";
}

} // namespace

std::string annotation(const std::string& title, const std::string& file, size_t line,
                       const std::string& message) {
  std::string props;
  if (!file.empty()) props += "file=" + escape(file, true);
  if (!file.empty() && line > 0) props += fmt::format(",line={}", line);
  props += (props.empty() ? "" : ",") + std::string("title=") + escape(title, true);
  return fmt::format("::error {}::{}\n", props, escape(message, false));
}

std::string capture_annotations(const capture::CaptureResult& r) {
  const std::string title = "kdet capture";
  std::string out;
  if (!r.finished && r.pipeline_exit != 0)
    out += annotation(title, "", 0, "the pipeline " + r.pipeline_status);
  if (r.compiles.empty()) out += annotation(title, "", 0, "no compile was captured");
  for (const auto& b : r.bundles) {
    if (!b.varies) continue;
    std::string file = r.out_dir.empty() ? "" : bundle_file(r.out_dir, b.id);
    out += annotation(title, file, 0,
                      fmt::format("bundle {} ({}, {} compiles) gave {} different outputs in one "
                                  "run",
                                  b.id, b.kind, b.compiles, b.outputs.size()));
  }
  return out;
}

std::string builds_annotations(const capture::BuildsResult& r) {
  const std::string title = "kdet capture builds";
  std::string out;
  for (const auto& f : r.failed_builds)
    out += annotation(title, "", 0, f);
  for (const auto& k : r.kernels) {
    if (k.status == capture::KernelStatus::same) continue;
    std::string file;
    size_t at = k.first_varying.value_or(0);
    if (at < k.stages.size() && !k.stages[at].builds.empty()) {
      const auto& sb = k.stages[at].builds.front();
      if (sb.build < r.builds.size()) file = bundle_file(r.builds[sb.build].dir, sb.bundle);
    }
    std::string why = k.difference ? ": " + k.difference->summary : "";
    if (!k.input_detail.empty()) why = ": " + k.input_detail;
    out += annotation(title, file, 0,
                      fmt::format("kernel {} {}{}", k.display, capture::to_string(k.status), why));
  }
  return out;
}

std::string compare_annotations(const std::vector<scan::Pairing>& pairs) {
  const std::string title = "kdet compare";
  std::string out;
  for (const auto& p : pairs) {
    scan::PairGate gate = scan::judge_pair(p);
    if (gate.exit == 0) continue;
    std::string file = p.b ? p.b->input : p.a ? p.a->input : "";
    out += annotation(title, file, 0, p.name() + ": " + gate.why);
  }
  return out;
}

} // namespace kdet::cli
