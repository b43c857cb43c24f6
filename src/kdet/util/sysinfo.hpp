//===- util/sysinfo.hpp - the machine a result was measured on ---------------===//
#pragma once

#include <nlohmann/json.hpp>

namespace kdet {

// OS, kernel, glibc, CPU, cores, memory, ASLR setting, hostname: what a good
// bug report says about where it happened. Cheap; read once per command.
nlohmann::json system_info();

} // namespace kdet
