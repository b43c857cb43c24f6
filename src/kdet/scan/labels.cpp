//===- scan/labels.cpp - compiler comparison labels ----------------------------===//
#include "kdet/scan/labels.hpp"

#include "kdet/util/error.hpp"

#include <algorithm>
#include <map>

namespace kdet::scan {

const char* to_string(Label label) {
  switch (label) {
  case Label::identical:
    return "identical";
  case Label::changed:
    return "changed";
  case Label::fixed:
    return "fixed";
  case Label::not_seen:
    return "not-seen";
  case Label::regressed:
    return "regressed";
  case Label::nondeterministic_both:
    return "nondeterministic-both";
  case Label::failed:
    return "failed";
  case Label::missing:
    return "missing";
  }
  return "?";
}

const char* to_string(Pairing::Stress s) {
  switch (s) {
  case Pairing::Stress::fixed:
    return "fixed under stress";
  case Pairing::Stress::hidden:
    return "hidden";
  case Pairing::Stress::inconclusive:
    return "inconclusive";
  case Pairing::Stress::not_run:
    break;
  }
  return "";
}

double observed_rate(const store::JobRow& j) {
  return j.runs ? static_cast<double>(j.differing()) / static_cast<double>(j.runs) : 0.0;
}

namespace {

// A's and B's job under one key compiled different bytes of the input (it was edited between the
// two scans): such a pair is never labelled fixed (Pairing::unfixable).
bool input_differs(const store::JobRow& a, const store::JobRow& b) {
  return !a.input_hash.empty() && !b.input_hash.empty() && a.input_hash != b.input_hash;
}

} // namespace

Label label_pair(const store::JobRow* a, const store::JobRow* b, double margin, bool may_fix) {
  if (!a || !b || a->runs == 0 || b->runs == 0) return Label::missing;
  bool va = a->varies(), vb = b->varies();
  if (va && vb) return Label::nondeterministic_both;
  if (vb) return Label::regressed;
  // A compiler that now fails has not been fixed.
  if (a->verdict() == engine::Verdict::failed || b->verdict() == engine::Verdict::failed)
    return Label::failed;
  if (va)
    return may_fix && b->upper_bound() * margin <= observed_rate(*a) ? Label::fixed
                                                                     : Label::not_seen;
  return a->modal() == b->modal() ? Label::identical : Label::changed;
}

std::string Pairing::name(size_t name_width) const {
  const store::JobRow* j = b && !b->kernels.empty() ? b : a;
  if (!j || j->kernels.empty()) return key;
  return display_names(j->kernels, name_width) + " (" + key + ")";
}

std::vector<Pairing> pair_jobs(const std::vector<store::JobRow>& a_jobs, const std::string& ca,
                               const std::vector<store::JobRow>& b_jobs, const std::string& cb,
                               double margin, bool same_setting) {
  auto key = [](const store::JobRow& j) {
    return j.input + " " + (j.target.empty() ? "-" : j.target) + " " + j.option_set;
  };
  std::map<std::string, Pairing> by_key;
  for (const auto& j : a_jobs)
    if (j.compiler == ca) by_key[key(j)].a = &j;
  for (const auto& j : b_jobs)
    if (j.compiler == cb) by_key[key(j)].b = &j;
  std::vector<Pairing> out;
  for (auto& [k, p] : by_key) {
    p.key = k;
    // An input edited between A's scan and B's is another compile: B's one output there says
    // nothing of A's variance on the old one.
    if (p.a && p.b && input_differs(*p.a, *p.b))
      p.unfixable = "input";
    else if (!same_setting)
      p.unfixable = "setting";
    p.label = label_pair(p.a, p.b, margin, p.unfixable.empty());
    if (p.a && p.b && p.b->runs && !p.b->varies() && p.b->verdict() != engine::Verdict::failed) {
      p.b_is_a_variant = 0;
      for (size_t i = 0; i < p.a->variants.size(); ++i)
        if (p.a->variants[i].id == p.b->modal()) p.b_is_a_variant = static_cast<int>(i) + 1;
    }
    out.push_back(p);
  }
  return out;
}

std::array<size_t, k_all_labels.size()> count_labels(const std::vector<Pairing>& pairs) {
  std::array<size_t, k_all_labels.size()> n{};
  for (const auto& p : pairs)
    ++n[static_cast<size_t>(p.label)];
  return n;
}

CompareAnswers answer(const std::vector<Pairing>& pairs) {
  CompareAnswers r;
  for (const auto& p : pairs) {
    if (!p.a || !p.b || p.a->runs == 0 || p.b->runs == 0) continue;
    ++r.b_jobs;
    if (p.stress != Pairing::Stress::not_run) ++r.stressed;
    if (p.stress == Pairing::Stress::fixed) ++r.stress_fixed;
    if (p.stress == Pairing::Stress::inconclusive) ++r.stress_inconclusive;
    if (p.stress == Pairing::Stress::hidden) {
      ++r.stress_hidden;
      ++r.hidden_by_regime[p.stress_regime];
    }
    if (p.b->varies() || p.stress == Pairing::Stress::hidden) {
      ++r.b_varies;
    } else if (p.b->verdict() == engine::Verdict::deterministic) {
      ++r.b_one_output;
      r.b_weakest_bound = std::max(r.b_weakest_bound, p.b->upper_bound());
    }
    if (!p.a->varies()) continue;
    ++r.a_varied;
    if (p.b_is_a_variant > 0) {
      ++r.b_emits_a_variant;
      ++r.by_a_variant[p.b_is_a_variant];
    } else if (p.b_is_a_variant == 0) {
      ++r.b_emits_new;
    } else {
      ++r.b_no_single_output;
    }
  }
  return r;
}

bool b_varies_alone(const Pairing& p) {
  return p.label == Label::missing && p.b && p.b->runs > 0 && p.b->varies();
}

bool b_never_ran(const Pairing& p) {
  return p.a && p.a->runs > 0 && p.b && p.b->runs == 0;
}

PairGate judge_pair(const Pairing& p) {
  if (p.stress == Pairing::Stress::hidden)
    return {k_exit_nondeterministic, "hidden: B varies under stress (" + p.stress_regime + ")"};
  if (p.label == Label::regressed || p.label == Label::nondeterministic_both)
    return {k_exit_nondeterministic, std::string(to_string(p.label)) + ": B varies"};
  if (b_varies_alone(p)) return {k_exit_nondeterministic, "not in A, varies in B"};
  if (p.label == Label::failed && p.b && p.b->verdict() == engine::Verdict::failed)
    return {k_exit_compiler_failed, "B failed on every run"};
  if (b_never_ran(p)) return {k_exit_compiler_failed, "B never ran it (its scan stopped early)"};
  return {};
}

int compare_exit_code(const std::vector<Pairing>& pairs) {
  bool failed = false, compared = false;
  for (const auto& p : pairs) {
    int exit = judge_pair(p).exit;
    if (exit == k_exit_nondeterministic) return exit;
    failed |= exit == k_exit_compiler_failed;
    compared |= p.a && p.b && p.a->runs > 0 && p.b->runs > 0;
  }
  // B not judged where A was (its scan stopped early), or nowhere: as a capture that
  // captured nothing, the gate cannot pass.
  return failed || !compared ? k_exit_compiler_failed : k_exit_deterministic;
}

bool any_regressed(const std::vector<Pairing>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(),
                     [](const Pairing& p) { return p.label == Label::regressed; });
}

} // namespace kdet::scan
