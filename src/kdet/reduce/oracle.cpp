//===- reduce/oracle.cpp - is a candidate still varying? ----------------------===//
#include "kdet/reduce/oracle.hpp"

#include "kdet/backend/backend.hpp"
#include "kdet/util/fs.hpp"

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
  uint64_t modal = 0;
  std::set<std::string> kinds;
  for (const auto& v : out.variants) {
    modal = std::max(modal, v.count);
    kinds.insert(backend::to_string(v.status));
    if (v.status == backend::Status::ok)
      ++m.ok_variants;
    else
      m.failed_runs += v.count;
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
  case Rejection::not_compiled:
    return "did not compile";
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

Oracle::Oracle(engine::RunPlan base, std::string work_dir, std::string extension, bool any_variance)
    : m_base(std::move(base)), m_dir(std::move(work_dir)), m_ext(std::move(extension)),
      m_any(any_variance) {}

void Oracle::set_reference(const std::string& kind, double rate) {
  std::lock_guard lock(m_mutex);
  m_kind = kind;
  m_rate = rate;
}

uint64_t Oracle::runs_per_test() const {
  std::lock_guard lock(m_mutex);
  return runs_for_rate(m_rate);
}

Measure Oracle::run(const std::string& text, uint64_t runs, bool early, engine::RunOutput* keep) {
  std::string path = fmt::format("{}/cand-{}{}", m_dir, m_serial++, m_ext);
  write_file_atomic(path, text);
  engine::RunPlan plan = m_base;
  {
    // The compiler loaded once already: later tests skip their probe worker.
    std::lock_guard lock(m_mutex);
    plan.identity = m_identity;
  }
  plan.input_path = path;
  plan.runs = runs;
  plan.stop_at_outcomes = early ? 2 : 0;
  // A candidate that breaks the compiler should cost two runs, not n.
  plan.stop_after_failures = 2;
  engine::RunOutput out = engine::execute(plan);
  m_compiles += out.completed;
  if (out.completed > 0 && !out.identity.path.empty()) {
    std::lock_guard lock(m_mutex);
    if (!m_identity) m_identity = out.identity;
  }
  ::unlink(path.c_str());
  Measure m = measure_of(out);
  if (keep) *keep = std::move(out);
  return m;
}

bool Oracle::interesting(const std::string& text, Measure* confirmed, Rejection* why,
                         uint64_t min_runs) {
  ++m_tests;
  Rejection ignored = Rejection::none;
  Rejection& w = why ? *why : ignored;
  w = Rejection::none;
  std::string kind;
  {
    std::lock_guard lock(m_mutex);
    kind = m_kind;
  }
  Measure m = run(text, std::max(runs_per_test(), min_runs), true);
  if (m.interrupted) return w = Rejection::interrupted, false;
  // A compile error is never a variant: two outputs of successful compiles are the evidence.
  if (m.ok_variants == 0) return w = Rejection::not_compiled, false;
  if (m_any) {
    bool ok = m.ok_variants + (m.failed_runs ? 1 : 0) >= 2;
    if (!ok) w = Rejection::stopped_varying;
    return ok;
  }
  // The same kind: no status the original did not show (a crash where outputs differed).
  auto statuses = [](const std::string& k) {
    std::set<std::string> out;
    size_t p = 0;
    while (p <= k.size()) {
      size_t e = k.find('+', p);
      if (e == std::string::npos) e = k.size();
      out.insert(k.substr(p, e - p));
      p = e + 1;
    }
    return out;
  };
  auto theirs = statuses(kind);
  auto same_kind = [&](const Measure& x) {
    auto mine = statuses(x.kind);
    return std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end());
  };
  if (!same_kind(m)) return w = Rejection::changed_kind, false;
  if (m.ok_variants < 2) return w = Rejection::stopped_varying, false;
  // Stopping at the second outcome cannot see a crash that had not happened yet: confirm with
  // k_confirm_runs more runs, all of them, before the candidate counts.
  Measure c = run(text, k_confirm_runs, false);
  if (confirmed) *confirmed = c;
  if (c.interrupted) return w = Rejection::interrupted, false;
  if (c.ok_variants == 0) return w = Rejection::not_compiled, false;
  if (!same_kind(c)) return w = Rejection::changed_kind, false;
  return true;
}

} // namespace kdet::reduce
