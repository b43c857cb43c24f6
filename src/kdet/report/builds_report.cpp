//===- report/builds_report.cpp - builds compared kernel by kernel -----------===//
#include "kdet/report/builds_report.hpp"

#include "kdet/report/builds_inside.hpp"
#include "kdet/report/junit.hpp"
#include "kdet/report/scan_report.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/util/names.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace kdet::report {

using capture::BuildsResult;
using capture::Kernel;
using capture::KernelStatus;

namespace {

const KernelStatus k_statuses[] = {KernelStatus::nondeterministic, KernelStatus::input_differs,
                                   KernelStatus::not_in_every_build, KernelStatus::same};

struct Count {
  size_t kernels = 0, differ = 0;
};

// A fatbin shipped in a library and loaded alike in every build is no kernel of the
// pipeline's: it is told apart (the shipped line) and counted nowhere else.
bool aside(const Kernel& k) {
  return k.status == KernelStatus::same && k.shipped();
}

size_t counted(const BuildsResult& r) {
  return static_cast<size_t>(
      std::count_if(r.kernels.begin(), r.kernels.end(), [](const Kernel& k) { return !aside(k); }));
}

std::map<std::string, Count> count_by(const BuildsResult& r, std::string Kernel::*field) {
  std::map<std::string, Count> out;
  for (const auto& k : r.kernels) {
    if (aside(k)) continue;
    Count& c = out[(k.*field).empty() ? "(none)" : k.*field];
    ++c.kernels;
    if (k.status != KernelStatus::same) ++c.differ;
  }
  return out;
}

std::string builds_list(const std::vector<size_t>& builds) {
  std::string s;
  for (size_t b : builds)
    s += (s.empty() ? "" : ", ") + std::to_string(b + 1);
  return s;
}

// "stage 1 nvvm libnvvm.so.4 -arch=compute_90a -opt=3"
std::string stage_words(const Kernel& k) {
  if (!k.first_varying) return "";
  const auto& st = k.stages[*k.first_varying];
  std::string s = fmt::format("stage {} of {}: {} {}", *k.first_varying + 1, k.stages.size(),
                              st.kind, st.program);
  if (!st.options.empty()) s += " " + st.options;
  return s;
}

// What the kernel's line says after its name.
std::string kernel_detail(const Kernel& k) {
  switch (k.status) {
  case KernelStatus::nondeterministic: {
    std::string s = inside_varies_words(k, k.present.size());
    if (s.empty()) s = "first varies at " + stage_words(k);
    if (k.difference) {
      const auto& d = *k.difference;
      s += fmt::format("\n      {} {}: {}", d.output_kind,
                       d.within_build ? fmt::format("within build {}", d.build_a + 1)
                                      : fmt::format("build {} vs {}", d.build_a + 1, d.build_b + 1),
                       d.summary);
    }
    if (k.reach) s += "\n      reach: " + k.reach->summary;
    for (const auto& o : k.outputs_seen)
      s += fmt::format("\n      output {} in build {}: {}", o.hash.substr(0, 16),
                       builds_list(o.builds),
                       o.reach ? "reach: " + o.reach->summary : std::string("the most common"));
    s += k.final_output_varies
             ? "\n      final artifact differs"
             : "\n      final artifact is the same in every build (the variance stops there)";
    return s;
  }
  case KernelStatus::input_differs:
    return "the pipeline's own input differs: " + k.input_detail +
           (k.final_output_varies ? "\n      final artifact differs" : "");
  case KernelStatus::not_in_every_build:
    return "compiled in build " + builds_list(k.present) + " only";
  case KernelStatus::same:
    return "";
  }
  return "";
}

std::string summary_line(const BuildsResult& r) {
  size_t differ = r.kernels.size() - r.count(KernelStatus::same);
  size_t total = counted(r);
  std::string s = fmt::format("{} of {} kernel{} differ{} across {} builds", differ, total,
                              total == 1 ? "" : "s", differ == 1 ? "s" : "", r.compared());
  if (total == 0)
    s = fmt::format("no kernel was {} in {} builds", r.kernels.empty() ? "captured" : "compiled",
                    r.compared());
  if (r.compared() < 2)
    s = fmt::format("nothing compared: {} of {} build{} left to compare", r.compared(),
                    r.builds.size(), r.builds.size() == 1 ? "" : "s");
  if (differ) {
    std::string parts;
    for (KernelStatus st : k_statuses)
      if (st != KernelStatus::same && r.count(st))
        parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", r.count(st), to_string(st));
    s += ": " + parts;
  }
  return s;
}

// The kernel's display name, "NAME #2" for the second kernel of that name and target that
// `seen` has counted (text and JUnit number them alike).
std::string numbered_display(std::map<std::string, size_t>& seen, const Kernel& k) {
  size_t n = ++seen[k.target + "\n" + k.display];
  return n == 1 ? k.display : fmt::format("{} #{}", k.display, n);
}

std::string status_word(KernelStatus s) {
  std::string w = to_string(s);
  for (auto& c : w)
    c = static_cast<char>(c == '-' ? '-' : std::toupper(static_cast<unsigned char>(c)));
  return w;
}

} // namespace

std::string builds_to_text(const BuildsResult& r, bool color, size_t max_listed) {
  auto paint = [color](const std::string& s, const char* code) {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
  };
  std::string out =
      fmt::format("kdet capture: {} builds compared kernel by kernel ({})\n", r.builds.size(),
                  r.warm             ? "warm: kernel caches kept between builds (--warm)"
                  : r.caches.empty() ? "captures made apart"
                                     : fmt::format("cold: {} kernel caches fresh in every build",
                                                   r.caches.size()));
  std::vector<size_t> shipped_in_build(r.builds.size(), 0);
  std::set<std::string> shipped_files;
  size_t shipped = 0;
  for (const auto& k : r.kernels) {
    if (!aside(k)) continue;
    ++shipped;
    for (size_t b : k.present)
      if (b < shipped_in_build.size()) ++shipped_in_build[b];
    for (const auto& st : k.stages)
      for (const auto& sb : st.builds)
        for (const auto& f : sb.shipped_in)
          shipped_files.insert(f.substr(f.find_last_of('/') + 1));
  }
  for (size_t b = 0; b < r.builds.size(); ++b) {
    const auto& i = r.builds[b];
    out += fmt::format("  build {:<3} {:<28} {:>6} compiles {:>6} kernels  {}\n", b + 1,
                       !i.not_compared.empty()          ? "not compared"
                       : i.pipeline_status == "unknown" ? "pipeline not seen"
                                                        : "pipeline " + i.pipeline_status,
                       i.compiles, i.kernels - std::min(i.kernels, shipped_in_build[b]), i.dir);
    for (size_t p = 0; p < i.problems.size() && p < 3; ++p)
      out += "            problem: " + i.problems[p] + "\n";
  }
  for (const auto& f : r.failed_builds)
    out += paint("  FAILED    " + f, "31") + "\n";
  out += inside_text(r);
  std::string line = summary_line(r);
  out += "  result    " +
         paint(line, r.kernels.size() == r.count(KernelStatus::same) ? "32" : "31") + "\n";
  if (shipped) {
    std::string files;
    size_t n = 0;
    for (const auto& f : shipped_files)
      if (n++ < 3) files += (files.empty() ? "" : ", ") + f;
    if (shipped_files.size() > 3) files += fmt::format(" and {} more", shipped_files.size() - 3);
    out += fmt::format("  shipped   {} fatbin{} shipped in {} (compiled ahead of time), loaded "
                       "alike in every build: not counted above\n",
                       shipped, shipped == 1 ? "" : "s", files);
  }
  if (counted(r) && r.kernels.size() == r.count(KernelStatus::same))
    out += "  bound     " + stats::no_variance_seen(r.builds.size(), "build", "a kernel") + "\n";
  // A kernel's output can follow the heap its process left before it: what each build's
  // processes compiled first is part of the rate (one kernel: the same in 10 cold builds when
  // compiled first, different in 5 of 12 when compiled after others).
  if (!r.kernels.empty())
    out += "  note      a build-level rate depends on what each process compiled before a "
           "kernel: builds that compile other kernels first, or in another order, can show "
           "another rate\n";
  auto tallies = [&](const char* label, std::string Kernel::*field) {
    auto by = count_by(r, field);
    if (by.size() < 2 && !(by.size() == 1 && by.begin()->second.differ)) return;
    std::string s;
    for (const auto& [name, c] : by)
      s += (s.empty() ? "" : "; ") + fmt::format("{} {} of {}", name, c.differ, c.kernels);
    out += fmt::format("  {:<9} {}\n", label, s);
  };
  if (diff::ReachCensus c = capture::reach_census(r); c.total)
    out += "  reach     " + c.line("kernel") + "\n";
  tallies("by target", &Kernel::target);
  tallies("by first", &Kernel::compiler);
  size_t listed = 0;
  std::map<std::string, size_t> seen; // one name twice (two kernels of one name): "#2"
  for (const auto& k : r.kernels) {
    if (k.status == KernelStatus::same) continue;
    if (listed++ == max_listed) {
      out += fmt::format("  ... and {} more (--json, --report-html)\n",
                         r.kernels.size() - r.count(KernelStatus::same) - max_listed);
      break;
    }
    out += fmt::format("  {} {}{}\n      {}\n", paint(status_word(k.status), "1"),
                       numbered_display(seen, k), k.target.empty() ? "" : " (" + k.target + ")",
                       kernel_detail(k));
    for (const auto& n : k.notes)
      out += "      note: " + n + "\n";
    if (!k.next.empty()) out += "      next: " + k.next + "\n";
  }
  if (r.interrupted) out += "  interrupted: the builds done so far are compared\n";
  return out;
}

nlohmann::json builds_to_json(const BuildsResult& r) {
  nlohmann::json builds = nlohmann::json::array();
  for (size_t b = 0; b < r.builds.size(); ++b) {
    const auto& i = r.builds[b];
    builds.push_back({{"index", b + 1},
                      {"dir", i.dir},
                      {"pipeline", {{"status", i.pipeline_status}, {"exit_code", i.pipeline_exit}}},
                      {"seconds", i.seconds},
                      {"log", i.log.empty() ? nlohmann::json(nullptr) : nlohmann::json(i.log)},
                      {"compiles", i.compiles},
                      {"bundles", i.bundles},
                      {"kernels", i.kernels},
                      {"probes", i.probes},
                      {"taps", i.taps},
                      {"problems", i.problems}});
    if (!i.not_compared.empty()) builds.back()["not_compared"] = i.not_compared;
    if (!i.status_problem.empty()) builds.back()["status_problem"] = i.status_problem;
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& st : k.stages) {
      nlohmann::json per = nlohmann::json::array();
      for (const auto& sb : st.builds)
        per.push_back(
            {{"build", sb.build + 1},
             {"bundle", sb.bundle},
             {"compiles", sb.compiles},
             {"inputs", sb.input_hashes},
             {"outputs", sb.outputs},
             {"file", sb.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(sb.file)},
             {"made_by", sb.made_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(sb.made_by)},
             {"shipped_in", sb.shipped_in.empty() ? nlohmann::json(nullptr)
                                                  : nlohmann::json(fmt::format(
                                                        "{}", fmt::join(sb.shipped_in, ", ")))}});
      stages.push_back({{"kind", st.kind},
                        {"program", st.program},
                        {"library", st.library},
                        {"options", st.options},
                        {"seam", st.seam},
                        {"framework", st.framework},
                        {"label", st.label},
                        {"from", st.from},
                        {"frontend", st.frontend},
                        {"by_name", st.by_name},
                        {"builds", per}});
    }
    nlohmann::json first = nullptr;
    if (k.first_varying) {
      const auto& st = k.stages[*k.first_varying];
      first = {{"index", *k.first_varying + 1},
               {"kind", st.kind},
               {"program", st.program},
               {"library", st.library},
               {"options", st.options}};
      if (k.difference) {
        const auto& d = *k.difference;
        first["output"] = d.output_kind;
        first["change"] = d.change;
        first["summary"] = d.summary;
        first["hashes"] = {d.hash_a, d.hash_b};
        first["builds"] = {d.build_a + 1, d.build_b + 1};
        first["within_build"] = d.within_build;
      }
    }
    nlohmann::json present = nlohmann::json::array();
    for (size_t b : k.present)
      present.push_back(b + 1);
    kernels.push_back({{"name", k.name},
                       {"display", k.display},
                       {"status", to_string(k.status)},
                       {"target", k.target},
                       {"compiler", k.compiler},
                       {"builds", present},
                       {"first_nondeterministic_stage", first},
                       {"final_output_nondeterministic", k.final_output_varies},
                       {"input_detail", k.input_detail.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(k.input_detail)},
                       {"notes", k.notes},
                       {"next", k.next.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.next)},
                       {"stages", stages},
                       {"made_inside", k.made_inside.empty() ? nlohmann::json(nullptr)
                                                             : nlohmann::json(k.made_inside)},
                       {"compile_failed", k.compile_failed}});
    if (k.reach) kernels.back()["reach"] = diff::to_json(*k.reach);
    if (!k.outputs_seen.empty()) {
      nlohmann::json seen = nlohmann::json::array();
      for (const auto& o : k.outputs_seen) {
        nlohmann::json ob = nlohmann::json::array();
        for (size_t b : o.builds)
          ob.push_back(b + 1);
        seen.push_back({{"hash", o.hash},
                        {"builds", ob},
                        {"reach", o.reach ? diff::to_json(*o.reach) : nlohmann::json(nullptr)}});
      }
      kernels.back()["outputs_seen"] = seen;
    }
  }
  nlohmann::json by_status = nlohmann::json::object();
  for (KernelStatus st : k_statuses)
    by_status[to_string(st)] = r.count(st);
  auto tally = [&](std::string Kernel::*field) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, c] : count_by(r, field))
      j[name] = {{"kernels", c.kernels}, {"differ", c.differ}};
    return j;
  };
  nlohmann::json summary = {{"text", summary_line(r)},
                            {"kernels", r.kernels.size()},
                            {"shipped", r.kernels.size() - counted(r)},
                            {"by_status", by_status},
                            {"by_target", tally(&Kernel::target)},
                            {"by_compiler", tally(&Kernel::compiler)}};
  if (diff::ReachCensus c = capture::reach_census(r); c.total) {
    summary["reach"] = c.to_json();
    summary["reach_text"] = c.line("kernel");
  }
  return {{"schema", k_builds_schema},
          {"warm", r.warm},
          {"caches", r.caches},
          {"builds", builds},
          {"failed_builds", r.failed_builds},
          {"interrupted", r.interrupted},
          {"summary", std::move(summary)},
          {"exit_code", builds_exit_code(r)},
          {"kernels", kernels},
          {"compilers_inside", inside_json(r)},
          {"artifacts", r.artifacts},
          {"recorded", r.recorded},
          {"varied", r.varied}};
}

std::string builds_to_junit(const BuildsResult& r) {
  size_t failures = r.kernels.size() - r.count(KernelStatus::same);
  std::string cases;
  for (const auto& f : r.failed_builds)
    cases += fmt::format("    <testcase classname=\"kdet.builds.pipeline\" name=\"{}\">"
                         "<error message=\"{}\"/></testcase>\n",
                         xml_escape(f.substr(0, f.find(':'))), xml_escape(f));
  std::map<std::string, size_t> seen; // one name twice (two kernels of one name): "#2"
  for (const auto& k : r.kernels) {
    std::string name = numbered_display(seen, k);
    cases += fmt::format("    <testcase classname=\"kdet.builds.{}\" name=\"{}\">",
                         xml_escape(k.target.empty() ? "kernel" : k.target), xml_escape(name));
    if (k.status != KernelStatus::same) {
      std::string detail = kernel_detail(k);
      for (const auto& n : k.notes)
        detail += "\nnote: " + n;
      if (!k.next.empty()) detail += "\nnext: " + k.next;
      detail += "\nname: " + k.name;
      cases += fmt::format(
          "<failure message=\"{}\">{}</failure>",
          xml_escape(std::string(to_string(k.status)) + ": " + detail.substr(0, detail.find('\n'))),
          xml_escape(detail));
    }
    cases += "</testcase>\n";
  }
  return junit_document("kdet capture builds",
                        fmt::format("kernels across {} builds", r.builds.size()),
                        {r.kernels.size(), failures, r.failed_builds.size(), std::nullopt}, cases);
}

std::string capture_to_junit(const capture::CaptureResult& r) {
  std::string cases;
  size_t tests = 0, failures = 0, errors = 0;
  auto error_case = [&](const std::string& name, const std::string& message) {
    ++tests;
    ++errors;
    cases += fmt::format("    <testcase classname=\"kdet.capture.pipeline\" name=\"{}\"><error "
                         "message=\"{}\"/></testcase>\n",
                         xml_escape(name), xml_escape(message));
  };
  if (!r.finished && r.pipeline_exit != 0)
    error_case("pipeline", "the pipeline " + r.pipeline_status);
  if (r.compiles.empty()) error_case("pipeline", "no compile was captured");
  for (const auto& b : r.bundles) {
    ++tests;
    std::string name = b.kernels.empty()
                           ? "bundle " + b.id
                           : fmt::format("{} (bundle {})", display_names(b.kernels), b.id);
    cases += fmt::format("    <testcase classname=\"kdet.capture.{}\" name=\"{}\">"
                         "<properties><property name=\"kernels\" value=\"{}\"/></properties>",
                         xml_escape(b.kind), xml_escape(name),
                         xml_escape(fmt::format("{}", fmt::join(b.kernels, " "))));
    if (b.varies) {
      ++failures;
      cases += fmt::format("<failure message=\"{}\"/>",
                           xml_escape(fmt::format("bundle {} ({}, {} compiles) gave {} different "
                                                  "outputs in one run",
                                                  b.id, b.kind, b.compiles, b.outputs.size())));
    }
    cases += "</testcase>\n";
  }
  return junit_document("kdet capture", "captured bundles", {tests, failures, errors, std::nullopt},
                        cases);
}

int builds_exit_code(const BuildsResult& r) {
  // Probes alone (`ptxas --version`) are no build of kernels: nothing was captured.
  if (r.interrupted) return 130;
  if (!r.failed_builds.empty() || r.kernels.empty()) return 3;
  return r.count(KernelStatus::same) == r.kernels.size() ? 0 : 1;
}

} // namespace kdet::report
