//===- scan/trace.cpp - a scan's runs as Chrome trace events --------------------===//
#include "kdet/scan/trace.hpp"

#include "kdet/util/strings.hpp"
#include "kdet/version.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
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
  std::lock_guard<std::mutex> lock(m_mu);
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
  std::lock_guard<std::mutex> lock(m_mu);
  for (auto& r : runs)
    m_runs.push_back(std::move(r));
}

std::string ScanTrace::json(int slots) const {
  std::lock_guard<std::mutex> lock(m_mu);
  auto us = [](double s) { return std::llround(s * 1e6); };
  // Each event is written out as it is made: a census's million events never stand as one
  // document tree in memory, only as text.
  std::string events;
  auto add = [&](const nlohmann::json& e) {
    if (!events.empty()) events += ',';
    events += json_text(e, -1);
  };
  auto name_thread = [&](int tid, const std::string& name) {
    add({{"ph", "M"},
         {"name", "thread_name"},
         {"pid", 1},
         {"tid", tid},
         {"args", {{"name", name}}}});
  };
  // A complete event ("X"): a slice of lane `tid` from `start` for `seconds`.
  auto slice = [&](const char* cat, const std::string& name, int tid, double start, double seconds,
                   nlohmann::json args = nullptr) {
    nlohmann::json e = {{"ph", "X"},  {"cat", cat},      {"name", name},      {"pid", 1},
                        {"tid", tid}, {"ts", us(start)}, {"dur", us(seconds)}};
    if (!args.is_null()) e["args"] = std::move(args);
    add(e);
  };
  add({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "kdet scan"}}}});
  name_thread(0, "kdet");
  for (const auto& p : m_phases)
    slice("phase", p.name, 0, p.start, p.end - p.start);
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
  for (size_t i = 0; i < m_runs.size(); ++i) {
    const Run& r = m_runs[i];
    const int tid = lanes[i] + 1;
    if (r.probe) {
      slice("probe", "load compiler: " + r.label, tid, r.start, r.seconds, {{"job", r.job}});
      continue;
    }
    slice("run", r.label, tid, r.start, r.seconds,
          {{"job", r.job},
           {"run", r.index},
           {"process", r.fresh ? "fresh" : "same"},
           {"nth_in_worker", r.nth},
           {"status", r.status},
           {"variant", r.variant},
           {"setup_ms", r.setup * 1e3},
           {"compile_ms", r.compile * 1e3}});
    // Inside the run: getting the worker ready (a start, or a prestarted one's hello), then the
    // compile as the worker timed it; the rest is the reply and its files.
    if (r.setup > 0) slice("setup", "worker ready", tid, r.start, std::min(r.setup, r.seconds));
    if (r.compile > 0)
      slice("compile", "compile", tid, r.start + r.setup,
            std::min(r.compile, std::max(0.0, r.seconds - r.setup)));
  }
  const nlohmann::json other = {
      {"schema", "kdet.scan-trace/1"},
      {"kdet_version", k_version},
      {"slots", slots},
      {"runs", std::count_if(m_runs.begin(), m_runs.end(), [](const Run& r) { return !r.probe; })}};
  return "{\"traceEvents\":[" + events +
         "],\"displayTimeUnit\":\"ms\",\"otherData\":" + json_text(other, -1) + "}\n";
}

} // namespace kdet::scan
