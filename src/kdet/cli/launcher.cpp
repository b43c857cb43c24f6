//===- cli/launcher.cpp - `kdet cc COMPILER ARGS...`: telling it, and running it uncached ===//
//
// The cached path is cc_launcher_main (cli/cache.cpp). What runs the compiler as it is lives
// here: for what kdet cannot cache, a failing compile, and kdet's own trouble (no temporary
// folder, no cache folder), which never fails the build's compile step (docs/CACHE.md).
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/launcher.hpp"

#include "kdet/util/exec.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet::cli {

bool is_cc_launcher(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[1], "cc") != 0 || argv[2][0] == '-') return false;
  for (int i = 3; i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) return false;
  std::string program = find_program(argv[2]);
  struct stat st {};
  return !program.empty() && ::stat(program.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(program.c_str(), X_OK) == 0;
}

int run_uncached(const std::vector<std::string>& argv, const std::string& trouble) {
  if (!trouble.empty())
    fmt::print(stderr, "kdet cc: warning: {}; the compile runs uncached\n", trouble);
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  int e = errno;
  fmt::print(stderr, "kdet cc: cannot run {}: {}\n", argv[0], std::strerror(e));
  return e == ENOENT ? 127 : 126;
}

} // namespace kdet::cli
