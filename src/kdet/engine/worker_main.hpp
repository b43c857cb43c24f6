//===- engine/worker_main.hpp - the worker process ---------------------------===//
//
// `kdet __worker ...` is started by the driver (engine/worker.cpp). It loads one
// backend, then serves compile requests from fd 3 and answers on fd 4 until
// EOF. Its stdout and stderr belong to the compiler under test.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace kdet::engine {

inline constexpr const char* k_worker_command = "__worker";

// Runs the worker; returns its exit code.
int worker_main(int argc, char** argv);

} // namespace kdet::engine
