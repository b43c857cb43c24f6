//===- util/sysinfo.hpp - the machine a result was measured on ---------------===//
#pragma once

#include <nlohmann/json.hpp>

namespace kdet {

// OS, kernel, glibc, CPU, cores (online and usable: util/cores.hpp), memory, ASLR setting,
// hostname: what a good bug report says about where it happened. Cheap; read once per command.
nlohmann::json system_info();

// The exact command line this process was started with, shell-quoted; set
// once by main, read by every result that records how it was produced.
void set_command_line(std::string line);
const std::string& command_line();

} // namespace kdet
