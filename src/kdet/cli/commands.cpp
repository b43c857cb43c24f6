// The subcommand table: each cli/<command>.cpp defines add_<command>().
#include "kdet/cli/main.hpp"

namespace kdet::cli {

void add_run(CLI::App& root, Action& action);
void add_diff(CLI::App& root, Action& action);       // cli/diff.cpp
void add_impact(CLI::App& root, Action& action);     // cli/impact.cpp
void add_explain(CLI::App& root, Action& action);    // cli/explain.cpp
void add_exec(CLI::App& root, Action& action);       // cli/exec.cpp
void add_scan(CLI::App& root, Action& action);       // cli/scan.cpp
void add_merge(CLI::App& root, Action& action);      // cli/scan.cpp
void add_compare(CLI::App& root, Action& action);    // cli/scan.cpp
void add_corpus(CLI::App& root, Action& action);     // cli/corpus.cpp
void add_cache(CLI::App& root, Action& action);      // cli/cache.cpp
void add_cc(CLI::App& root, Action& action);         // cli/cache.cpp
void add_capture(CLI::App& root, Action& action);    // cli/capture.cpp
void add_reduce(CLI::App& root, Action& action);     // cli/reduce.cpp
void add_completion(CLI::App& root, Action& action); // cli/completion.cpp

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"run", add_run},       {"diff", add_diff},
      {"impact", add_impact}, {"explain", add_explain},
      {"exec", add_exec},     {"scan", add_scan},
      {"merge", add_merge},   {"compare", add_compare},
      {"corpus", add_corpus}, {"cache", add_cache},
      {"cc", add_cc},         {"capture", add_capture},
      {"reduce", add_reduce}, {"completion", add_completion},
  };
  return table;
}

} // namespace kdet::cli
