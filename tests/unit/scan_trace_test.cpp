// scan/trace: lanes for a scan's runs, and the trace of a round.
#include "kdet/scan/trace.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

using namespace kdet;

namespace {

// The most intervals [start, start + length) open at one moment (an end at a start does not
// overlap it).
int most_at_once(const std::vector<std::pair<double, double>>& spans) {
  std::vector<std::pair<double, int>> edges;
  for (const auto& [start, length] : spans) {
    edges.emplace_back(start, +1);
    edges.emplace_back(start + length, -1);
  }
  std::sort(edges.begin(), edges.end()); // at one time, ends (-1) before starts
  int open = 0, most = 0;
  for (const auto& e : edges)
    most = std::max(most, open += e.second);
  return most;
}

} // namespace

TEST(ScanTrace, LanesNeverOverlapAndAreNoMoreThanRunsAtOnce) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::pair<double, double>> spans;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) // whole numbers, so that ends meet starts exactly
      spans.emplace_back(static_cast<double>(rng() % 50), static_cast<double>(1 + rng() % 12));
    // Odd trials key the spans by thread: the preference must not break the promises.
    std::vector<int> keys;
    if (trial % 2)
      for (int i = 0; i < n; ++i)
        keys.push_back(static_cast<int>(rng() % 5));
    std::vector<int> lane = scan::assign_lanes(spans, keys);
    ASSERT_EQ(lane.size(), spans.size());
    std::map<int, std::vector<std::pair<double, double>>> by_lane;
    for (size_t i = 0; i < spans.size(); ++i)
      by_lane[lane[i]].emplace_back(spans[i].first, spans[i].first + spans[i].second);
    for (auto& [l, s] : by_lane) {
      std::sort(s.begin(), s.end());
      for (size_t i = 1; i < s.size(); ++i)
        ASSERT_LE(s[i - 1].second, s[i].first) << "trial " << trial << ", lane " << l;
    }
    // Lanes are 0..k-1 with k the most runs at once: none is wasted.
    EXPECT_EQ(static_cast<int>(by_lane.size()), most_at_once(spans)) << "trial " << trial;
    EXPECT_EQ(by_lane.rbegin()->first + 1, static_cast<int>(by_lane.size()));
  }
}

TEST(ScanTrace, AThreadKeepsItsLaneWhenItIsFree) {
  // Thread 2's second run starts when both lanes are free: it keeps lane 1, not the lowest.
  std::vector<std::pair<double, double>> spans = {{0, 2}, {0, 3}, {3, 1}, {3.5, 1}};
  EXPECT_EQ(scan::assign_lanes(spans, {1, 2, 2, 1}), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(scan::assign_lanes(spans), (std::vector<int>{0, 1, 0, 1}));
}

TEST(ScanTrace, ARunEndingWhereAnotherBeginsSharesItsLane) {
  EXPECT_EQ(scan::assign_lanes({{0, 1}, {1, 1}, {0.5, 1}}), (std::vector<int>{0, 0, 1}));
  EXPECT_TRUE(scan::assign_lanes({}).empty());
}

TEST(ScanTrace, ARoundsRunsAndProbeBecomeEventsInsideTheirRun) {
  scan::ScanTrace trace;
  trace.mark("setup");
  engine::RunOutput out;
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  out.probes.push_back({now, 0.010, 7});
  out.records.resize(3);
  for (uint64_t i = 0; i < 3; ++i) {
    auto& r = out.records[i];
    r.index = i;
    r.done = i < 2; // the third was not reached: not traced
    r.started = now + 0.011 + 0.006 * static_cast<double>(i);
    r.seconds = 0.005;
    r.setup_seconds = 0.001;
    r.compile_seconds = 0.003;
    r.status = backend::Status::ok;
    r.nth_in_worker = static_cast<int>(i) + 1;
    r.thread = 7;
  }
  trace.add_round("job1", "saxpy.ll 80 O3", out, 8);
  trace.mark("runs");
  nlohmann::json doc = nlohmann::json::parse(trace.json(4));
  EXPECT_EQ(doc["otherData"]["slots"], 4);
  EXPECT_EQ(doc["otherData"]["runs"], 2);
  std::map<std::string, int> cats;
  std::vector<uint64_t> run_numbers;
  for (const auto& e : doc["traceEvents"]) {
    std::string cat = e.value("cat", "");
    ++cats[cat];
    if (cat == "run") {
      run_numbers.push_back(e["args"]["run"].get<uint64_t>());
      EXPECT_EQ(e["tid"], 1) << "runs one after another share the probe's lane";
      EXPECT_EQ(e["dur"], 5000);
      EXPECT_EQ(e["args"]["job"], "job1");
    }
    if (cat == "compile") {
      EXPECT_EQ(e["dur"], 3000);
    }
    if (cat == "setup") {
      EXPECT_EQ(e["dur"], 1000);
    }
  }
  EXPECT_EQ(run_numbers, (std::vector<uint64_t>{8, 9})); // offset + index
  EXPECT_EQ(cats["probe"], 1);
  EXPECT_EQ(cats["compile"], 2);
  EXPECT_EQ(cats["setup"], 2);
  EXPECT_EQ(cats["phase"], 2);
}

TEST(ScanTrace, NamesThatNeedEscapingStayValidJson) {
  scan::ScanTrace trace;
  engine::RunOutput out;
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  out.probes.push_back({now, 0.010, 3});
  out.records.resize(1);
  auto& r = out.records[0];
  r.done = true;
  r.started = now + 0.02;
  r.seconds = 0.005;
  r.compile_seconds = 0.004;
  r.status = backend::Status::ok;
  r.thread = 3;
  r.variant = "abc\"def";
  const std::string label = "dir \"q\"\\x\n\t\x01 \xff\xfe.ll 80 O3"; // quotes, controls, bad UTF-8
  trace.add_round("job\"1", label, out, 0);
  trace.mark("phase \"one\"");
  nlohmann::json doc = nlohmann::json::parse(trace.json(1)); // throws on invalid JSON
  int runs = 0, probes = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "run") {
      ++runs;
      EXPECT_EQ(e["args"]["job"], "job\"1");
      EXPECT_EQ(e["args"]["variant"], "abc\"def");
      EXPECT_EQ(e["name"].get<std::string>().substr(0, 13), "dir \"q\"\\x\n\t\x01 ");
    }
    if (cat == "probe") {
      ++probes;
      EXPECT_EQ(e["args"]["job"], "job\"1");
    }
    if (cat == "phase") {
      EXPECT_EQ(e["name"], "phase \"one\"");
    }
  }
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(probes, 1);
}

TEST(ScanTrace, AnEmptyJobAndLabelStayValidJson) {
  scan::ScanTrace trace;
  engine::RunOutput out;
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  out.records.resize(1);
  out.records[0].done = true;
  out.records[0].started = now;
  out.records[0].seconds = 0.001;
  trace.add_round("", "", out, 0);
  trace.mark("runs");
  nlohmann::json doc = nlohmann::json::parse(trace.json(1)); // throws on invalid JSON
  int runs = 0;
  for (const auto& e : doc["traceEvents"])
    if (e.value("cat", "") == "run") {
      ++runs;
      EXPECT_EQ(e["name"], "");
      EXPECT_EQ(e["args"]["job"], "");
    }
  EXPECT_EQ(runs, 1);
}
