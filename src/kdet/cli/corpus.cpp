// PLACEHOLDER until the corpus generator lands: registers corpus.
#include "kdet/cli/main.hpp"
#include "kdet/util/error.hpp"

namespace kdet::cli {
void add_corpus(CLI::App& root, Action& action) {
  auto* cmd = root.add_subcommand("corpus", "(not built yet)");
  cmd->callback([&action] { action = []() -> int { throw Error("kdet corpus is not built yet"); }; });
}
} // namespace kdet::cli
