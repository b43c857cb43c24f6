#include "kdet/report/run_report.hpp"

#include "kdet/engine/compiler_log.hpp"
#include "kdet/perturb/registry.hpp"
#include "kdet/stats/evidence.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"
#include "kdet/util/sysinfo.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdet::report {

using engine::Assessment;
using engine::RunOutput;
using engine::Verdict;

namespace {

std::string short_id(const std::string& id) {
  return id.substr(0, 12);
}

// kdet's own CPU time over the whole command: everything less the compiles.
double kdet_cpu_seconds(const RunOutput& out) {
  return std::max(0.0, out.cpu_total_seconds - out.cpu_compile_seconds);
}

// The "cpu" object: the command's CPU time (kdet, its workers and the compilers they ran),
// the compiles' share of it, and kdet's own, in total and per completed run.
nlohmann::json cpu_json(const RunOutput& out) {
  uint64_t done = 0;
  double worker_own = 0;
  for (const auto& r : out.records)
    if (r.done) {
      ++done;
      worker_own += r.own_cpu_seconds;
    }
  const double own = kdet_cpu_seconds(out);
  return {
      {"total_seconds", out.cpu_total_seconds},
      {"compile_seconds", out.cpu_compile_seconds},
      {"kdet_seconds", own},
      {"kdet_share_of_compile", out.cpu_compile_seconds > 0 ? own / out.cpu_compile_seconds : 0.0},
      {"kdet_seconds_per_run", done ? own / static_cast<double>(done) : 0.0},
      {"worker_kdet_seconds", worker_own}};
}

double median_compile(const RunOutput& out) {
  std::vector<double> v;
  for (const auto& r : out.records)
    if (r.done && r.status == backend::Status::ok) v.push_back(r.compile_seconds);
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string artifacts_brief(const engine::Variant& v) {
  if (v.status != backend::Status::ok)
    return v.detail.empty() ? backend::to_string(v.status) : v.detail;
  std::string s;
  for (const auto& a : v.artifacts) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {}", a.name, human_bytes(a.size));
  }
  return s.empty() ? "no artifacts" : s;
}

// "32 crashed (killed by signal 11 (SIGSEGV))" for the failed verdict.
std::string failure_breakdown(const RunOutput& out) {
  std::string s;
  for (const auto& v : out.variants) {
    if (!s.empty()) s += "; ";
    s += fmt::format("{} {}", v.count, backend::to_string(v.status));
    if (!v.detail.empty()) s += ": " + v.detail;
  }
  return s;
}

// The reach of variant `id`, or nullptr.
const diff::VariantReach* reach_of(const engine::VariantReaches* reaches, const std::string& id) {
  if (!reaches) return nullptr;
  auto it = reaches->find(id);
  return it == reaches->end() ? nullptr : &it->second;
}

} // namespace

std::string bound_sentence(double upper_bound, double confidence) {
  return fmt::format("fewer than {} of runs would differ, at {:.0f}% confidence",
                     percent(upper_bound), confidence * 100);
}

// Which regimes the runs covered, with how many runs each (exec compilers are a new process every
// run).
static nlohmann::json regimes_json(const RunOutput& out) {
  bool exec = out.plan.backend.kind == backend::Kind::exec;
  uint64_t fresh = 0, same = 0;
  for (const auto& r : out.records) {
    if (!r.done) continue;
    if (r.fresh_process || exec)
      ++fresh;
    else
      ++same;
  }
  nlohmann::json covered = nlohmann::json::array();
  if (fresh) covered.push_back("across-processes");
  if (same > 1) covered.push_back("inside-process");
  return {{"covered", covered},
          {"fresh_process_runs", fresh},
          {"same_process_runs", same},
          {"statement", perturb::describe_regime(out.plan.setting, exec)}};
}

nlohmann::json record_to_json(const engine::RunRecord& r) {
  nlohmann::json arts = nlohmann::json::array();
  for (const auto& a : r.artifacts)
    arts.push_back({{"name", a.name}, {"hash", a.hash}, {"size", a.size}});
  nlohmann::json j = {
      {"run", r.index + 1},
      {"seed", fmt::format("{:#x}", r.seed)},
      {"slot", r.slot},
      {"worker", r.worker},
      {"worker_pid", r.worker_pid},
      {"nth_in_worker", r.nth_in_worker},
      {"regime", r.fresh_process ? "fresh-process" : "same-process"},
      {"status", backend::to_string(r.status)},
      {"variant", r.variant},
      {"artifacts", arts},
      {"seconds", r.seconds},
      {"compile_seconds", r.compile_seconds},
      {"churn_seconds", r.churn_seconds},
      {"compile_cpu_seconds", r.compile_cpu_seconds},
      {"kdet_cpu_seconds", r.own_cpu_seconds},
      {"log_hash", r.log_hash},
  };
  if (r.status != backend::Status::ok) {
    j["code"] = r.code;
    j["signal"] = r.signal;
    j["detail"] = r.detail;
  }
  if (!r.log.empty()) j["log"] = r.log;
  return j;
}

nlohmann::json run_to_json(const RunOutput& out, const Assessment& a, const std::string& input_hash,
                           bool with_records, const engine::VariantReaches* reaches,
                           const nlohmann::json* replay) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : out.variants) {
    nlohmann::json arts = nlohmann::json::array();
    for (const auto& art : v.artifacts)
      arts.push_back({{"name", art.name}, {"size", art.size}, {"hash", art.hash}});
    nlohmann::json jv = {{"id", v.id},
                         {"count", v.count},
                         {"first_run", v.first_run + 1},
                         {"status", backend::to_string(v.status)},
                         {"artifacts", arts}};
    if (!v.detail.empty()) jv["detail"] = v.detail;
    if (!v.difference.empty()) jv["difference"] = v.difference;
    if (const diff::VariantReach* r = reach_of(reaches, v.id)) jv["reach"] = diff::to_json(*r);
    variants.push_back(std::move(jv));
  }
  uint64_t need_1pct = stats::runs_to_bound(0.01, a.confidence);
  nlohmann::json j = {
      {"schema", k_run_schema},
      {"kdet", {{"version", k_version}, {"command_line", command_line()}}},
      {"started_at", out.started_at},
      {"input", {{"path", out.plan.input_path}, {"hash", input_hash}}},
      {"compiler",
       {{"backend", out.identity.backend},
        {"path", out.identity.path},
        {"content_hash", out.identity.content_hash},
        {"version", out.identity.version},
        {"options", out.plan.options}}},
      {"setting", perturb::to_json(out.plan.setting)},
      {"regimes", regimes_json(out)},
      {"environment", system_info()},
      {"verdict", engine::to_string(a.verdict)},
      {"exit_code", a.exit_code},
      {"interrupted", out.interrupted},
      {"stopped_early", out.stopped_early},
      {"out_of_time", out.out_of_time},
      {"runs",
       {{"planned", out.plan.runs},
        {"completed", out.completed},
        {"counted", a.runs},
        {"kdet_errors", a.kdet_errors},
        {"ok", a.ok_runs},
        {"jobs", out.plan.jobs},
        {"timeout_seconds", static_cast<double>(out.plan.timeout.count()) / 1000},
        {"workers_started", out.workers_started},
        {"workers_prestarted", out.workers_prestarted}}},
      {"rate",
       {{"differing_runs", a.differing},
        {"observed", a.rate},
        {"confidence", a.confidence},
        {"interval", {a.interval.low, a.interval.high}},
        {"upper_bound", a.upper_bound},
        // Deterministic with this false is the verdict line's NO VARIANCE SEEN.
        {"rate_of_interest", stats::k_rate_of_interest},
        {"excludes_rate_of_interest", stats::excludes_rate_of_interest(a.upper_bound)},
        {"runs_for_1pct_bound", need_1pct}}},
      {"variants", variants},
      {"timing",
       {{"wall_seconds", out.wall_seconds},
        {"median_compile_seconds", median_compile(out)},
        {"worker_start_seconds", out.worker_start_seconds}}},
      {"warnings", out.warnings},
      {"defaults", {{"varied", out.default_varied}, {"probe_runs", out.probe_runs}}},
  };
  if (out.cpu_total_seconds > 0) j["cpu"] = cpu_json(out);
  if (reaches && !reaches->empty()) {
    diff::ReachCensus census;
    for (const auto& [id, r] : *reaches)
      census.add(r);
    j["reach_census"] = census.to_json();
  }
  if (!out.compiler_changed.empty()) j["compiler_changed"] = out.compiler_changed;
  if (!out.exec_artifact.empty()) {
    j["exec"] = {{"artifact", out.exec_artifact},
                 {"slot_paths", out.slot_paths_unshared.empty() ? "shared" : "per-slot"}};
    if (!out.slot_paths_unshared.empty()) j["exec"]["slot_paths_reason"] = out.slot_paths_unshared;
  }
  if (with_records) {
    nlohmann::json recs = nlohmann::json::array();
    for (const auto& r : out.records)
      if (r.done) recs.push_back(record_to_json(r));
    j["records"] = std::move(recs);
  }
  if (replay) j["replay"] = *replay;
  return j;
}

namespace {

// Runs that ended in kdet's own error: how many, the first one's why, and that no verdict counts
// them (engine::is_kdet_error).
std::string lost_line(const RunOutput& out, const Assessment& a) {
  std::string first;
  for (const auto& r : out.records)
    if (r.done && engine::is_kdet_error(r.status)) {
      first = fmt::format("run {}: {}", r.index + 1, r.detail);
      break;
    }
  return fmt::format("lost      {} run{} ended in an error of kdet's own, not an outcome of the "
                     "compiler ({}); the verdict counts the other {}\n",
                     a.kdet_errors, a.kdet_errors == 1 ? "" : "s", first, a.runs);
}

} // namespace

std::string run_to_text(const RunOutput& out, const Assessment& a, bool color,
                        const std::string& input_display, const engine::VariantReaches* reaches) {
  auto paint = [&](const std::string& s, const char* code) {
    return color ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
  };
  std::string s;
  s += fmt::format("input     {}\n", input_display);
  s += fmt::format("compiler  {}: {} ({}, {})\n", out.identity.backend, out.identity.version,
                   out.identity.path, out.identity.content_hash.substr(0, 12));
  if (!out.plan.options.empty()) s += fmt::format("options   {}\n", shell_join(out.plan.options));
  s += fmt::format("setting   {}\n", perturb::describe(out.plan.setting));
  if (!out.default_varied.empty())
    s += fmt::format("varied    {} (not given, so varied; give a level to hold one still)\n",
                     fmt::join(out.default_varied, ", "));
  if (out.exec_artifact == "stdout")
    s += "artifact  the command's stdout (the template names no {output})\n";
  if (!out.exec_artifact.empty() && out.plan.jobs > 1 && !out.slot_paths_unshared.empty())
    s += fmt::format(
        "slots     each slot has its own folder ({}): a compiler that writes its {{output}} or "
        "{{workdir}} path into its output can differ by slot; --jobs 1 avoids it\n",
        out.slot_paths_unshared);
  s += fmt::format(
      "regimes   {}\n",
      perturb::describe_regime(out.plan.setting, out.plan.backend.kind == backend::Kind::exec));
  std::string runs_note =
      out.interrupted
          ? fmt::format(" (interrupted: {} of {} planned runs done)", a.runs, out.plan.runs)
      : out.stopped_early && out.plan.stop.after_failures > 0 && a.ok_runs == 0
          ? fmt::format(" (ended after {} failures with no success; {} planned)", a.runs,
                        out.plan.runs)
      : out.out_of_time ? fmt::format(" (the time budget of {} ran out; {} planned)",
                                      human_seconds(out.plan.stop.seconds), out.plan.runs)
      : out.stopped_early
          ? fmt::format(" (stopped at the first differing run; {} planned)", out.plan.runs)
          : "";
  switch (a.verdict) {
  case Verdict::deterministic:
    // The word is the evidence's: DETERMINISTIC only where the bound excludes a 1-in-16 rate.
    if (stats::excludes_rate_of_interest(a.upper_bound))
      s += fmt::format("verdict   {}: all {} runs gave the same output{}\n",
                       paint("DETERMINISTIC", "1;32"), a.runs, runs_note);
    else
      s += fmt::format("verdict   {} in {} ({}){}\n", paint("NO VARIANCE SEEN", "1;33"),
                       plural(a.runs, "run"), stats::unseen_rate_clause(a.upper_bound), runs_note);
    s += fmt::format("bound     {}", stats::no_variance_seen(a.runs, "run"));
    if (a.upper_bound > 0.01)
      s += fmt::format("; {} runs would bound it below 1% (--max-rate 0.01)",
                       stats::runs_to_bound(0.01, a.confidence));
    s += "\n";
    break;
  case Verdict::nondeterministic:
    s += fmt::format("verdict   {}: {} distinct outcomes in {} runs{}\n",
                     paint("NONDETERMINISTIC", "1;31"), a.outcomes, a.runs, runs_note);
    s += fmt::format(
        "rate      {} of runs ({} of {}) differ from the most common outcome (95% CI {} to {})\n",
        percent(a.rate), a.differing, a.runs, percent(a.interval.low), percent(a.interval.high));
    break;
  case Verdict::failed:
    if (a.runs == 0) { // every run ended in kdet's own error: the compiler was never measured
      s += fmt::format("verdict   {}: no run reached an outcome of the compiler; each ended in "
                       "an error of kdet's own (see lost){}\n",
                       paint("FAILED", "1;33"), runs_note);
      break;
    }
    s += fmt::format("verdict   {}: the compiler failed on every run ({}){}\n",
                     paint("FAILED", "1;33"), failure_breakdown(out), runs_note);
    // The compiler's own first error line (libNVVM's "-arch=compute_999 is an unsupported
    // option"), so the summary says why without opening --out.
    for (const auto& r : out.records) {
      std::string line = r.done ? engine::first_error_line(r.log) : "";
      if (line.empty()) continue;
      s += fmt::format("error     {} (run {})\n", line, r.index + 1);
      break;
    }
    break;
  case Verdict::no_runs:
    s += fmt::format("verdict   no run completed{}\n", runs_note);
    break;
  case Verdict::none:
    // The runs may mix two compilers: what they gave is listed, but no verdict is drawn.
    s += fmt::format("verdict   {}: the compiler changed while the runs went on (see the "
                     "warning), so they may mix two compilers{}\n",
                     paint("NONE", "1;33"), runs_note);
    break;
  case Verdict::explained:
  case Verdict::inconclusive:
    break; // explain's conclusions: assess() never draws them
  }
  if (a.kdet_errors > 0) s += lost_line(out, a);
  if (a.verdict != Verdict::no_runs) {
    s += fmt::format("variants  {}\n", out.variants.size());
    size_t shown = 0;
    for (const auto& v : out.variants) {
      if (++shown > 20) {
        s += fmt::format("  ... {} more (see --out or --json)\n", out.variants.size() - 20);
        break;
      }
      s += fmt::format("  {}  {:>5} run{}  first run {:<5} {}", short_id(v.id), v.count,
                       v.count == 1 ? " " : "s", v.first_run + 1, artifacts_brief(v));
      if (!v.difference.empty()) s += "  differs: " + v.difference;
      s += "\n";
      if (const diff::VariantReach* r = reach_of(reaches, v.id))
        s += fmt::format("  {:12}  reach: {}\n", "", r->summary);
    }
    if (reaches && reaches->size() > 1) {
      diff::ReachCensus census;
      for (const auto& [id, r] : *reaches)
        census.add(r);
      s += fmt::format("reach     {}\n", census.line("variant"));
    }
  }
  s += fmt::format("time      {} (median compile {}, worker start + load {})\n",
                   human_seconds(out.wall_seconds), human_seconds(median_compile(out)),
                   human_seconds(out.worker_start_seconds));
  if (out.cpu_total_seconds > 0) {
    const double own = kdet_cpu_seconds(out);
    s += fmt::format("cpu       compile {}, kdet {}", human_seconds(out.cpu_compile_seconds),
                     human_seconds(own));
    if (out.cpu_compile_seconds > 0)
      s += fmt::format(" ({:.2f} % of the compile CPU)", 100 * own / out.cpu_compile_seconds);
    s += "\n";
  }
  for (const auto& w : out.warnings)
    s += fmt::format("warning   {}\n", w);
  return s;
}

} // namespace kdet::report
