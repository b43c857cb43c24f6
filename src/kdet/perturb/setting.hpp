//===- perturb/setting.hpp - the perturbation factors of a run ---------------===//
//
// A Setting gives each factor a value. The driver turns it into how workers
// are launched (environment, personality, process reuse); the worker applies
// the in-process part (heap churn before each compile, extra threads).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kdet::perturb {

enum class ProcessMode { same, fresh };
enum class HeapMode { none, churn };

struct Setting {
  ProcessMode process = ProcessMode::same;
  HeapMode heap = HeapMode::churn;
  bool aslr = true;                  // false: workers run with ADDR_NO_RANDOMIZE
  int threads = 0;                   // extra allocating threads in each worker
  std::vector<std::string> env;      // K=V set for the worker (and so the compiler)
  uint64_t seed = 0;                 // master seed; run i uses mix_seed(seed, i)
};

const char* to_string(ProcessMode m);
const char* to_string(HeapMode m);
// Parse a factor value; throws Error naming `option` and the valid values.
ProcessMode parse_process(const std::string& value, const std::string& option);
HeapMode parse_heap(const std::string& value, const std::string& option);
bool parse_aslr(const std::string& value, const std::string& option);

// "process=same heap=churn aslr=on threads=0 seed=0x..."
std::string describe(const Setting& s);
nlohmann::json to_json(const Setting& s);

// True when every factor kdet controls is held fixed: fresh process, no
// churn, ASLR off, no threads. Under it kdet itself adds no variation.
bool all_fixed(const Setting& s);

} // namespace kdet::perturb
