//===- scan/trace.hpp - `kdet scan --trace`: where a scan's wall time went ----===//
//
// Collects every recorded run of a scan (when it began, how long its worker took to be ready,
// its compile) and the scan's own phases, and writes them as a Chrome trace-event JSON file,
// which Perfetto (ui.perfetto.dev) and chrome://tracing show as one lane per busy slot. The runs
// are laid out on lanes after the scan (assign_lanes), since every round's runs are driven by
// one loop in one thread (scan/scheduler.hpp): no thread is a slot.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/engine/runner.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kdet::scan {

// A lane for each interval [first, first + second), given in any order: in order of start, each
// takes the lane its key (the thread that ran it) had last, if that lane is free at its start, or
// else the lowest free lane. No two intervals of a lane overlap, and there are no more lanes than
// intervals overlapping at one moment. An interval that ends where another begins may share its
// lane. `keys` is empty or one per interval.
std::vector<int> assign_lanes(const std::vector<std::pair<double, double>>& spans,
                              const std::vector<int>& keys = {});

class ScanTrace {
public:
  // The scan begins now: every time in the trace counts from here.
  ScanTrace();

  // The kdet phase `name` lasted from the previous mark (or the start) until now.
  void mark(const std::string& name);

  // The recorded runs of one round of job `job` (`label` names it for people), whose run
  // indices start at `offset` within the job.
  void add_round(const std::string& job, const std::string& label, const engine::RunOutput& out,
                 uint64_t offset);

  // The trace as JSON text (Chrome trace-event format, times in microseconds); `slots` is the
  // scan's --jobs, written beside the events.
  std::string json(int slots) const;

private:
  struct Run {
    double start = 0, seconds = 0, setup = 0, compile = 0; // start: seconds since the scan began
    double compile_cpu = 0; // the compile's CPU as its worker read it
    uint64_t index = 0;
    int nth = 0, thread = 0;
    bool fresh = false;
    bool probe = false; // the round's first worker, started to load the compiler before its runs
    std::string job, label, status, variant;
  };
  struct Phase {
    std::string name;
    double start = 0, end = 0;
  };
  double since_start(double steady_seconds) const;

  std::chrono::steady_clock::time_point m_t0;
  std::vector<Run> m_runs;
  std::vector<Phase> m_phases;
};

} // namespace kdet::scan
