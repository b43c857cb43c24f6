//===- scan/stress.cpp - more runs on B, and B under every address factor ------===//
#include "kdet/scan/stress.hpp"

#include "kdet/engine/interrupt.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/perturb/factors.hpp"
#include "kdet/scan/defaults.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::scan {

std::string stored_manifest_path(const std::string& stored, const std::string& db_path) {
  if (stored.empty() || stored.front() == '/') return stored;
  // Databases made before the path was stored absolute hold it as the scan was given it, from
  // a folder not recorded: the database's own folder first, then the current one.
  const std::filesystem::path beside =
      std::filesystem::path(absolute_path(db_path)).parent_path() / stored;
  std::error_code ec;
  if (std::filesystem::is_regular_file(beside, ec)) return beside.string();
  return absolute_path(stored);
}

Rerunner::Rerunner(const std::map<std::string, std::string>& meta, const std::string& db_path)
    : m_db(db_path) {
  // The stored manifest names the compilers and exec commands to run: as root, another user's
  // database must not become a way to run that user's command (or load their library) as root.
  struct stat st {};
  if (::stat(db_path.c_str(), &st) != 0)
    throw Error::format("{}: {}", db_path, std::strerror(errno));
  if (st.st_uid != ::geteuid())
    throw Error::format("{}: belongs to uid {}, not to this user (uid {}): --settle and --stress "
                        "run the compilers and commands its stored manifest names, so only its "
                        "owner's kdet may re-run its jobs",
                        db_path, st.st_uid, ::geteuid());
  auto text = meta.find("manifest_text");
  auto path = meta.find("manifest");
  if (text == meta.end() || path == meta.end())
    throw Error::format("{}: the database stores no manifest, so its jobs cannot be run again",
                        db_path);
  try {
    m_manifest = std::make_unique<Manifest>(
        parse_manifest(text->second, stored_manifest_path(path->second, db_path)));
    m_compilers = resolve_compilers(*m_manifest);
  } catch (const Error& e) {
    throw Error::format("{}: its stored manifest cannot be run again: {}", db_path, e.what());
  }
  m_jobs = plan_jobs(*m_manifest, m_compilers);
}

const perturb::Setting& Rerunner::setting_of(const store::JobRow& row) {
  if (!m_defaults_known) {
    vary_unnamed(*m_manifest, m_jobs);
    m_defaults_known = true;
  }
  auto it =
      std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) { return j.id == row.id; });
  return it == m_jobs.end() ? m_manifest->setting : m_manifest->compilers[it->compiler].setting;
}

engine::RunOutput Rerunner::run(const store::JobRow& row, const perturb::Setting& setting,
                                uint64_t first, uint64_t runs, size_t stop_at_outcomes,
                                const std::string& stop_at_other_than) const {
  auto it =
      std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) { return j.id == row.id; });
  // The job id covers the input's hash: an edited input plans another id.
  bool edited = std::any_of(m_jobs.begin(), m_jobs.end(), [&](const Job& j) {
    return j.input->name == row.input && j.input_hash != row.input_hash;
  });
  if (edited) throw Error::format("{}: input {} changed since the scan", m_db, row.input);
  if (it == m_jobs.end() || it->input_hash != row.input_hash) {
    // Same input, compiler name, target and option set under another id: the id also
    // covers the compiler's file content, so that file (or where it is found) changed.
    auto same = std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) {
      return j.input->name == row.input && j.input_hash == row.input_hash &&
             m_compilers[j.compiler].name == row.compiler && j.target == row.target &&
             option_set_name(*m_manifest, j) == row.option_set;
    });
    if (same != m_jobs.end()) {
      const ResolvedCompiler& c = m_compilers[same->compiler];
      throw Error::format("{}: compiler {} changed since the scan ({} has content hash {} now, "
                          "so its jobs are new ones)",
                          m_db, c.name, c.path, c.content_hash.substr(0, 12));
    }
    throw Error::format("{}: input {} is no longer in its manifest", m_db, row.input);
  }
  engine::RunPlan plan = job_run_plan(*m_manifest, *it, setting, first, runs, stop_at_outcomes);
  plan.stop.other_than = stop_at_other_than;
  return engine::execute(plan);
}

std::string Rerunner::unusable(const store::JobRow& row, const perturb::Setting& setting) const {
  if (setting.heap != perturb::HeapMode::chaos) return "";
  auto it =
      std::find_if(m_jobs.begin(), m_jobs.end(), [&](const Job& j) { return j.id == row.id; });
  if (it == m_jobs.end()) return ""; // run() says why it cannot run at all
  return perturb::chaos_unusable(m_compilers[it->compiler].config.kind == backend::Kind::exec);
}

uint64_t settle_runs_needed(double a_rate, double margin) {
  constexpr uint64_t k_max = 1000000;
  if (a_rate <= 0) return k_max;
  // upper_bound(0, n) falls monotonically: bisect the least n that meets the margin.
  uint64_t lo = 1, hi = k_max;
  if (stats::upper_bound(0, hi) * margin > a_rate) return k_max;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (stats::upper_bound(0, mid) * margin <= a_rate)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

uint64_t settle(std::vector<Pairing>& pairs, std::deque<store::JobRow>& storage, const RerunFn& run,
                const SettleOptions& options) {
  uint64_t spent = 0;
  for (auto& p : pairs) {
    if (p.label != Label::not_seen) continue;
    double rate = observed_rate(*p.a);
    uint64_t target = options.budget ? options.budget : settle_runs_needed(rate, options.margin);
    store::JobRow& b = storage.emplace_back(*p.b);
    // Rounds doubling from what B has, so a job that varies stops early.
    while (b.runs < target && !b.varies()) {
      uint64_t n = std::min<uint64_t>({target - b.runs, std::max<uint64_t>(b.runs, 16), 4096});
      engine::RunOutput out;
      try {
        out = run(b, {}, b.runs, n, 2, "");
      } catch (const Error& e) {
        p.stress_regime = e.what();
        break;
      }
      if (out.completed == 0) break;
      spent += out.completed;
      p.settle_runs += out.completed;
      store::merge_variants(b, out, b.runs, false);
      if (out.interrupted) break;
      if (stats::upper_bound(b.differing(), b.runs) * options.margin <= rate) break;
    }
    p.b = &b;
    p.label = label_pair(p.a, p.b, options.margin, p.unfixable.empty());
  }
  return spent;
}

std::vector<StressRegime> stress_regimes(const perturb::Setting& base) {
  using perturb::HeapMode;
  using perturb::ProcessMode;
  std::vector<StressRegime> r(4, {"", base});
  r[0].name = "fresh+aslr";
  r[0].setting.process = ProcessMode::fresh;
  r[0].setting.aslr = true;
  r[0].setting.heap = HeapMode::churn;
  r[0].setting.threads = 0;
  r[1].name = "same+churn";
  r[1].setting.process = ProcessMode::same;
  r[1].setting.aslr = true;
  r[1].setting.heap = HeapMode::churn;
  r[1].setting.threads = 0;
  r[2].name = "chaos";
  r[2].setting.process = ProcessMode::both;
  r[2].setting.aslr = true;
  r[2].setting.heap = HeapMode::chaos;
  r[2].setting.threads = 0;
  r[3].name = "threads";
  r[3].setting.process = ProcessMode::both;
  r[3].setting.aslr = true;
  r[3].setting.heap = HeapMode::churn;
  r[3].setting.threads = 4;
  return r;
}

uint64_t stress_runs_per_regime(double a_rate, uint64_t cap) {
  if (a_rate <= 0 || a_rate >= 1) return a_rate >= 1 ? std::min<uint64_t>(8, cap) : cap;
  double n = std::ceil(std::log(0.05) / std::log1p(-a_rate)) + 1;
  return std::min<uint64_t>(cap, std::max<uint64_t>(8, static_cast<uint64_t>(n)));
}

uint64_t stress(std::vector<Pairing>& pairs, const std::vector<StressRegime>& regimes,
                const RerunFn& run, const StressOptions& options, const UnusableFn& unusable) {
  auto usable = [](const Pairing& p) {
    return p.a && p.b && p.a->runs && p.b->runs && !p.b->varies() &&
           p.b->verdict() == engine::Verdict::deterministic;
  };
  std::vector<Pairing*> todo, quiet;
  for (auto& p : pairs)
    if (usable(p)) (p.a->varies() ? todo : quiet).push_back(&p);
  std::mt19937_64 rng(options.sample_seed);
  std::shuffle(quiet.begin(), quiet.end(), rng);
  if (quiet.size() > options.sample) quiet.resize(options.sample);
  for (auto* p : quiet) {
    p->stress_sampled = true;
    todo.push_back(p);
  }
  uint64_t spent = 0;
  for (auto* p : todo) {
    uint64_t n = stress_runs_per_regime(p->a->varies() ? observed_rate(*p->a) : 0, options.cap);
    std::string modal = p->b->modal();
    p->stress = Pairing::Stress::fixed;
    uint64_t first = p->b->runs + p->settle_runs; // past the runs B has, so seeds are new
    for (const auto& reg : regimes) {
      if (unusable)
        if (std::string why = unusable(*p->b, reg.setting); !why.empty()) {
          p->stress_skipped.push_back(fmt::format("{}: {}", reg.name, why));
          continue;
        }
      engine::RunOutput out;
      try {
        // Up to 3 outcomes (B's, a failure, another); B's output and then another is the answer.
        out = run(*p->b, reg.setting, first, n, 3, modal);
      } catch (const Error& e) {
        p->stress = Pairing::Stress::inconclusive;
        p->stress_regime = fmt::format("{}: {}", reg.name, e.what());
        break;
      }
      spent += out.completed;
      p->stress_runs += out.completed;
      first += n;
      uint64_t same = 0, failed = 0;
      for (const auto& v : out.variants) {
        if (v.id == modal)
          same = v.count;
        else if (v.status != backend::Status::ok)
          failed += v.count;
      }
      // Another output is variance under stress; a failure alone says nothing either way.
      if (out.completed > same + failed) {
        p->stress = Pairing::Stress::hidden;
        p->stress_regime = reg.name;
        p->stress_differing = out.completed - same;
        p->stress_regime_runs = out.completed;
        // B varies after all: under stress, not under its scan's setting.
        p->label = p->a->varies() ? Label::nondeterministic_both : Label::regressed;
        break;
      }
      if (failed) {
        p->stress = Pairing::Stress::inconclusive;
        p->stress_regime = fmt::format("{}: {} of {} runs failed", reg.name, failed, out.completed);
        break;
      }
      if (out.completed < n) {
        p->stress = Pairing::Stress::inconclusive;
        p->stress_regime = fmt::format("{}: {} of {} runs done", reg.name, out.completed, n);
        break;
      }
    }
    // --stress-cap below the runs A's rate needs: B's one output in fewer runs than would
    // have caught A's rate is no evidence that the dependence is gone.
    uint64_t needed = p->a->varies() ? stress_runs_per_regime(observed_rate(*p->a),
                                                              std::numeric_limits<uint64_t>::max())
                                     : n;
    if (p->stress == Pairing::Stress::fixed && n < needed) {
      p->stress = Pairing::Stress::inconclusive;
      p->stress_regime = fmt::format("every regime gave B's output, but in {} runs each "
                                     "(--stress-cap), fewer than the {} that A's rate of {:.2g}% "
                                     "needs",
                                     n, needed, 100 * observed_rate(*p->a));
    }
    if (p->stress == Pairing::Stress::fixed)
      p->stress_bound = stats::upper_bound(0, p->stress_runs);
  }
  return spent;
}

ProveStats prove(const std::vector<ProveTarget>& targets, std::deque<store::JobRow>& storage,
                 const std::map<std::string, std::string>& b_meta, const std::string& b_path,
                 const ProveOptions& options) {
  auto rerunner = std::make_shared<Rerunner>(b_meta, b_path);
  RerunFn run = [rerunner](const store::JobRow& row, const perturb::Setting& s, uint64_t first,
                           uint64_t n, size_t stop, const std::string& other_than) {
    return rerunner->run(row, s, first, n, stop, other_than);
  };
  const perturb::Setting setting = rerunner->manifest().setting;
  // Settling re-runs each job in the setting its scan ran it under (its compiler's defaults).
  RerunFn in_setting = [run, rerunner](const store::JobRow& row, const perturb::Setting&,
                                       uint64_t first, uint64_t n, size_t stop,
                                       const std::string& other_than) {
    return run(row, rerunner->setting_of(row), first, n, stop, other_than);
  };
  UnusableFn unusable = [rerunner](const store::JobRow& row, const perturb::Setting& s) {
    return rerunner->unusable(row, s);
  };
  engine::install_interrupt_handler();
  const auto t0 = std::chrono::steady_clock::now();
  ProveStats st;
  for (const ProveTarget& t : targets) {
    if (options.settle)
      st.settled += settle(*t.pairs, storage, in_setting, {t.margin, options.settle_budget});
    if (options.stress)
      st.stressed +=
          stress(*t.pairs, stress_regimes(setting), run, options.stress_options, unusable);
  }
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.interrupted = engine::interrupted();
  return st;
}

} // namespace kdet::scan
