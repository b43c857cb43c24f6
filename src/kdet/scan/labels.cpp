//===- scan/labels.cpp - compiler comparison labels ----------------------------===//
#include "kdet/scan/labels.hpp"

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
  case Label::regressed:
    return "regressed";
  case Label::varies_both:
    return "varies-both";
  case Label::failed:
    return "failed";
  case Label::missing:
    return "missing";
  }
  return "?";
}

Label label_pair(const store::JobRow* a, const store::JobRow* b) {
  if (!a || !b || a->runs == 0 || b->runs == 0) return Label::missing;
  bool va = a->varies(), vb = b->varies();
  if (va && vb) return Label::varies_both;
  if (va) return Label::fixed;
  if (vb) return Label::regressed;
  if (a->verdict() == engine::Verdict::failed || b->verdict() == engine::Verdict::failed)
    return Label::failed;
  return a->modal() == b->modal() ? Label::identical : Label::changed;
}

std::vector<Pairing> pair_jobs(const std::vector<store::JobRow>& a_jobs, const std::string& ca,
                               const std::vector<store::JobRow>& b_jobs, const std::string& cb) {
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
    p.label = label_pair(p.a, p.b);
    out.push_back(p);
  }
  return out;
}

std::array<size_t, 7> count_labels(const std::vector<Pairing>& pairs) {
  std::array<size_t, 7> n{};
  for (const auto& p : pairs)
    ++n[static_cast<size_t>(p.label)];
  return n;
}

int compare_exit_code(const std::vector<Pairing>& pairs) {
  for (const auto& p : pairs)
    if (p.label == Label::regressed) return 1;
  return 0;
}

} // namespace kdet::scan
