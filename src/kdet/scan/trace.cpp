//===- scan/trace.cpp - a scan's runs as Chrome trace events --------------------===//
#include "kdet/scan/trace.hpp"

#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <set>

namespace kdet::scan {

using Clock = std::chrono::steady_clock;

std::vector<int> assign_lanes(const std::vector<std::pair<double, double>>& spans,
                              const std::vector<int>& keys) {
  std::vector<size_t> order(spans.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return spans[a].first < spans[b].first; });
  std::vector<int> lane(spans.size(), 0);
  int lanes = 0;
  std::set<int> free;                  // lanes free again
  std::map<int, int> last_lane;        // key -> the lane it had last
  using Busy = std::pair<double, int>; // (end, lane), soonest end first
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> in_use;
  for (size_t i : order) {
    const double start = spans[i].first, end = start + std::max(0.0, spans[i].second);
    while (!in_use.empty() && in_use.top().first <= start) {
      free.insert(in_use.top().second);
      in_use.pop();
    }
    int l = -1;
    if (!keys.empty())
      if (auto it = last_lane.find(keys[i]); it != last_lane.end() && free.erase(it->second))
        l = it->second;
    if (l < 0 && !free.empty()) {
      l = *free.begin();
      free.erase(free.begin());
    }
    if (l < 0) l = lanes++;
    in_use.emplace(end, l);
    if (!keys.empty()) last_lane[keys[i]] = l;
    lane[i] = l;
  }
  return lane;
}

ScanTrace::ScanTrace() : m_t0(Clock::now()) {}

double ScanTrace::since_start(double steady_seconds) const {
  return steady_seconds - std::chrono::duration<double>(m_t0.time_since_epoch()).count();
}

void ScanTrace::mark(const std::string& name) {
  const double now = std::chrono::duration<double>(Clock::now() - m_t0).count();
  const double start = m_phases.empty() ? 0.0 : m_phases.back().end;
  m_phases.push_back({name, start, now});
}

void ScanTrace::add_round(const std::string& job, const std::string& label,
                          const engine::RunOutput& out, uint64_t offset) {
  std::vector<Run> runs;
  for (const auto& probe : out.probes) {
    Run p;
    p.probe = true;
    p.start = since_start(probe.started);
    p.seconds = probe.seconds;
    p.thread = probe.thread;
    p.job = job;
    p.label = label;
    runs.push_back(std::move(p));
  }
  for (const auto& r : out.records) {
    if (!r.done || r.started <= 0) continue;
    Run x;
    x.start = since_start(r.started);
    x.seconds = r.seconds;
    x.setup = r.setup_seconds;
    x.compile = r.compile_seconds;
    x.compile_cpu = r.compile_cpu_seconds;
    x.index = offset + r.index;
    x.nth = r.nth_in_worker;
    x.thread = r.thread;
    x.fresh = r.fresh_process;
    x.job = job;
    x.label = label;
    x.status = backend::to_string(r.status);
    x.variant = r.variant.substr(0, 12);
    runs.push_back(std::move(x));
  }
  for (auto& r : runs)
    m_runs.push_back(std::move(r));
}

std::string ScanTrace::json(int slots) const {
  auto us = [](double s) { return std::llround(std::isfinite(s) ? s * 1e6 : 0.0); };
  auto ms = [](double s) { return std::isfinite(s) ? s * 1e3 : 0.0; };
  // A string as a JSON string (escaped, invalid UTF-8 replaced: util/strings json_text).
  auto quoted = [](const std::string& s) {
    const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '-' || c == '_' || c == '.' || c == ' ' || c == '/';
    });
    return plain ? '"' + s + '"' : json_text(nlohmann::json(s), -1);
  };
  // The events are written as text, one at a time: a census's million events never stand as a
  // document tree in memory, and a 1,500-run trace takes milliseconds, not tens of them.
  std::string out = "{\"traceEvents\":[";
  out.reserve(m_runs.size() * 512 + 4096);
  auto it = std::back_inserter(out);
  bool first = true;
  auto next = [&] {
    if (!first) out += ',';
    first = false;
  };
  auto name_thread = [&](int tid, const std::string& name) {
    next();
    fmt::format_to(it, R"({{"ph":"M","name":"thread_name","pid":1,"tid":{},"args":{{"name":{}}}}})",
                   tid, quoted(name));
  };
  // A complete event ("X"): a slice of lane `tid` from `start` for `seconds`; `args` is an
  // object's JSON text, or empty.
  auto slice = [&](const char* cat, const std::string& name_json, int tid, double start,
                   double seconds, const std::string& args = {}) {
    next();
    fmt::format_to(it, R"({{"ph":"X","cat":"{}","name":{},"pid":1,"tid":{},"ts":{},"dur":{})", cat,
                   name_json, tid, us(start), us(seconds));
    if (!args.empty()) fmt::format_to(it, R"(,"args":{})", args);
    out += '}';
  };
  next();
  out += R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"kdet scan"}})";
  name_thread(0, "kdet");
  for (const auto& p : m_phases)
    slice("phase", quoted(p.name), 0, p.start, p.end - p.start);
  std::vector<std::pair<double, double>> spans;
  std::vector<int> threads;
  spans.reserve(m_runs.size());
  for (const auto& r : m_runs) {
    spans.emplace_back(r.start, r.seconds);
    threads.push_back(r.thread);
  }
  std::vector<int> lanes = assign_lanes(spans, threads);
  int n_lanes = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end()) + 1;
  for (int l = 0; l < n_lanes; ++l)
    name_thread(l + 1, "lane " + std::to_string(l + 1));
  // A job's runs share its label and id: each is escaped once.
  std::string last_job, job_json, label_json, last_label;
  for (size_t i = 0; i < m_runs.size(); ++i) {
    const Run& r = m_runs[i];
    const int tid = lanes[i] + 1;
    if (i == 0 || r.job != last_job) job_json = quoted(last_job = r.job);
    if (i == 0 || r.label != last_label) label_json = quoted(last_label = r.label);
    if (r.probe) {
      slice("probe", quoted("load compiler: " + r.label), tid, r.start, r.seconds,
            fmt::format(R"({{"job":{}}})", job_json));
      continue;
    }
    slice("run", label_json, tid, r.start, r.seconds,
          fmt::format(R"({{"job":{},"run":{},"process":"{}","nth_in_worker":{},"status":{},)"
                      R"("variant":{},"setup_ms":{},"compile_ms":{},"compile_cpu_ms":{}}})",
                      job_json, r.index, r.fresh ? "fresh" : "same", r.nth, quoted(r.status),
                      quoted(r.variant), ms(r.setup), ms(r.compile), ms(r.compile_cpu)));
    // Inside the run: getting the worker ready (a start, or a prestarted one's hello), then the
    // compile as the worker timed it; the rest is the reply and its files.
    if (r.setup > 0)
      slice("setup", R"("worker ready")", tid, r.start, std::min(r.setup, r.seconds));
    if (r.compile > 0)
      slice("compile", R"("compile")", tid, r.start + r.setup,
            std::min(r.compile, std::max(0.0, r.seconds - r.setup)));
  }
  const nlohmann::json other = {
      {"schema", "kdet.scan-trace/1"},
      {"kdet_version", k_version},
      {"slots", slots},
      {"runs", std::count_if(m_runs.begin(), m_runs.end(), [](const Run& r) { return !r.probe; })}};
  out += "],\"displayTimeUnit\":\"ms\",\"otherData\":" + json_text(other, -1) + "}\n";
  return out;
}

} // namespace kdet::scan
