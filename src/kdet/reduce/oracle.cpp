//===- reduce/oracle.cpp - is a candidate still varying? ----------------------===//
#include "kdet/reduce/oracle.hpp"

#include "kdet/backend/backend.hpp"
#include "kdet/engine/executor.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <unistd.h>

namespace kdet::reduce {

Measure measure_of(const engine::RunOutput& out) {
  Measure m;
  m.runs = out.completed;
  m.interrupted = out.interrupted;
  uint64_t modal = 0, modal_failure = 0;
  std::set<std::string> kinds;
  for (const auto& v : out.variants) {
    modal = std::max(modal, v.count);
    kinds.insert(backend::to_string(v.status));
    if (v.status == backend::Status::ok) {
      ++m.ok_variants;
      continue;
    }
    m.failed_runs += v.count;
    if (v.count > modal_failure) {
      modal_failure = v.count;
      m.failure = v.detail;
    }
  }
  // The compiler's own words, where it gave any: the first line of its log.
  for (const auto& rec : out.records)
    if (rec.status != backend::Status::ok && !rec.log.empty()) {
      std::string first = rec.log.substr(0, rec.log.find('\n'));
      if (first.size() > 160) first = first.substr(0, 157) + "...";
      if (!first.empty()) m.failure += (m.failure.empty() ? "" : ": ") + first;
      break;
    }
  m.differing = m.runs - modal;
  for (const auto& k : kinds)
    m.kind += (m.kind.empty() ? "" : "+") + k;
  return m;
}

const char* to_string(Rejection r) {
  switch (r) {
  case Rejection::none:
    return "interesting";
  case Rejection::invalid:
    return "invalid";
  case Rejection::failed:
    return "failed";
  case Rejection::stopped_varying:
    return "stopped varying";
  case Rejection::changed_kind:
    return "changed kind";
  case Rejection::interrupted:
    return "interrupted";
  }
  return "?";
}

uint64_t runs_for_rate(double p) {
  if (p <= 0) return k_max_test_runs;
  if (p >= 0.95) return 2;
  double n = std::ceil(std::log(0.05) / std::log(1 - p));
  return std::clamp<uint64_t>(1 + static_cast<uint64_t>(n), 2, k_max_test_runs);
}

double rate_after(const Measure& m, double previous) {
  if (m.differing > 0) return m.rate();
  return std::min(previous, 1.0 / static_cast<double>(std::max<uint64_t>(1, m.runs)));
}

Oracle::Oracle(engine::RunPlan base, std::string work_dir, std::string extension, bool any_variance,
               engine::Executor* executor)
    : m_base(std::move(base)), m_dir(std::move(work_dir)), m_ext(std::move(extension)),
      m_any(any_variance),
      m_own_executor(executor ? nullptr
                              : std::make_unique<engine::ProcessExecutor>(m_base.workers.pool)),
      m_ex(executor ? *executor : *m_own_executor) {}

void Oracle::set_reference(const std::string& kind, double rate) {
  m_kind = kind;
  m_rate = rate;
}

std::vector<engine::RunOutput> Oracle::execute(const std::vector<std::string>& texts, uint64_t runs,
                                               bool early, bool stop_at_failures) {
  std::vector<engine::RunPlan> plans;
  plans.reserve(texts.size());
  for (const auto& text : texts) {
    std::string path = fmt::format("{}/cand-{}{}", m_dir, m_serial++, m_ext);
    write_file_atomic(path, text);
    engine::RunPlan plan = m_base;
    // The compiler loaded once already: later tests skip their probe worker.
    plan.known.identity = m_identity;
    plan.input_path = path;
    plan.runs = runs;
    plan.stop.outcomes = early ? 2 : 0;
    // A candidate that breaks the compiler should cost two runs, not n.
    plan.stop.after_failures = stop_at_failures ? 2 : 0;
    plans.push_back(std::move(plan));
  }
  std::vector<engine::RunOutput> outs;
  try {
    outs = engine::execute_all(plans, m_ex);
  } catch (...) {
    for (const auto& plan : plans)
      ::unlink(plan.input_path.c_str());
    throw;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    m_compiles += outs[i].completed;
    if (!m_identity && outs[i].completed > 0 && !outs[i].identity.path.empty())
      m_identity = outs[i].identity;
    ::unlink(plans[i].input_path.c_str());
  }
  return outs;
}

Measure Oracle::run(const std::string& text, uint64_t runs, bool early, engine::RunOutput* keep) {
  engine::RunOutput out = std::move(execute({text}, runs, early).front());
  Measure m = measure_of(out);
  if (keep) *keep = std::move(out);
  return m;
}

Measure Oracle::measure_all(const std::string& text, uint64_t runs) {
  return measure_of(execute({text}, runs, false, false).front());
}

namespace {

// The statuses of a kind ("ok+crashed": ok, crashed).
std::set<std::string> statuses(const std::string& kind) {
  std::set<std::string> out;
  size_t p = 0;
  while (p <= kind.size()) {
    size_t e = kind.find('+', p);
    if (e == std::string::npos) e = kind.size();
    out.insert(kind.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// Why a measure of a candidate's runs rejects it, before its kind is judged; none when not.
Rejection rejected_outright(const Measure& m) {
  if (m.interrupted) return Rejection::interrupted;
  // A compile error is never a variant: two outputs of successful compiles are the evidence.
  // Only compile errors: the compiler refused the text (IR that does not parse or verify);
  // else it crashed, hung or gave nothing, which says more about the compiler than the text.
  if (m.ok_variants == 0)
    return m.kind == backend::to_string(backend::Status::compile_error) ? Rejection::invalid
                                                                        : Rejection::failed;
  return Rejection::none;
}

} // namespace

// The same kind: no status the original did not show (a crash where outputs differed).
bool Oracle::same_kind(const Measure& m) const {
  auto theirs = statuses(m_kind);
  auto mine = statuses(m.kind);
  return std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end());
}

std::vector<TestResult> Oracle::interesting_all(const std::vector<std::string>& texts,
                                                uint64_t min_runs) {
  m_tests += texts.size();
  std::vector<TestResult> out(texts.size());
  std::vector<engine::RunOutput> first = execute(texts, std::max(runs_per_test(), min_runs), true);
  // Stopping at the second outcome cannot see a crash that had not happened yet: a candidate
  // that passed is confirmed with k_confirm_runs more runs, all of them, before it counts.
  std::vector<size_t> to_confirm;
  for (size_t i = 0; i < texts.size(); ++i) {
    Measure m = measure_of(first[i]);
    TestResult& t = out[i];
    t.first = m;
    t.why = rejected_outright(m);
    if (t.why == Rejection::none && m_any) {
      if (m.ok_variants + (m.failed_runs ? 1 : 0) < 2) t.why = Rejection::stopped_varying;
    } else if (t.why == Rejection::none) {
      if (!same_kind(m))
        t.why = Rejection::changed_kind;
      else if (m.ok_variants < 2)
        t.why = Rejection::stopped_varying;
      else
        to_confirm.push_back(i);
    }
    t.interesting = t.why == Rejection::none && m_any;
  }
  if (to_confirm.empty()) return out;
  std::vector<std::string> again;
  again.reserve(to_confirm.size());
  for (size_t i : to_confirm)
    again.push_back(texts[i]);
  std::vector<engine::RunOutput> confirming = execute(again, k_confirm_runs, false);
  for (size_t j = 0; j < to_confirm.size(); ++j) {
    Measure c = measure_of(confirming[j]);
    TestResult& t = out[to_confirm[j]];
    t.confirmed = c;
    t.why = rejected_outright(c);
    if (t.why == Rejection::none && !same_kind(c)) t.why = Rejection::changed_kind;
    t.interesting = t.why == Rejection::none;
  }
  return out;
}

namespace {

std::string outputs_in(const Measure& m) {
  return fmt::format(
      "{} in {}", m.ok_variants == 1 ? std::string("one output") : plural(m.ok_variants, "output"),
      plural(m.runs, "run"));
}

} // namespace

std::string describe(const TestResult& t) {
  const Measure& m = t.confirmed && t.why != Rejection::stopped_varying ? *t.confirmed : t.first;
  std::string said = m.failure.empty() ? "" : fmt::format(" ({})", m.failure);
  switch (t.why) {
  case Rejection::none:
    if (!t.confirmed) return fmt::format("accepted: {}", outputs_in(t.first));
    return fmt::format("accepted: {}, confirmed by {} ({})", outputs_in(t.first),
                       plural(t.confirmed->runs, "run"), t.confirmed->kind);
  case Rejection::invalid:
    return fmt::format("invalid: a compile error in each of {}{}", plural(m.runs, "run"), said);
  case Rejection::failed:
    return fmt::format("failed: no successful compile in {} ({}){}", plural(m.runs, "run"), m.kind,
                       said);
  case Rejection::stopped_varying:
    if (m.failed_runs)
      return fmt::format("stopped varying: {}, {} failed", outputs_in(m), m.failed_runs);
    return fmt::format("stopped varying: {}", outputs_in(m));
  case Rejection::changed_kind:
    return fmt::format("changed kind: {} in {}{}{}", m.kind, plural(m.runs, "run"),
                       t.confirmed ? " (confirming runs)" : "", said);
  case Rejection::interrupted:
    return fmt::format("interrupted after {}", plural(m.runs, "run"));
  }
  return "?";
}

TestResult Oracle::interesting(const std::string& text, uint64_t min_runs) {
  return std::move(interesting_all({text}, min_runs).front());
}

} // namespace kdet::reduce
