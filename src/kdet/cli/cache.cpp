// PLACEHOLDER until the cache module lands: registers cache and cc.
#include "kdet/cli/main.hpp"
#include "kdet/util/error.hpp"

namespace kdet::cli {
static void pending(CLI::App& root, Action& action, const char* name) {
  auto* cmd = root.add_subcommand(name, "(not built yet)");
  cmd->callback([&action, name] { action = [name]() -> int { throw Error::format("kdet {} is not built yet", name); }; });
}
void add_cache(CLI::App& root, Action& action) { pending(root, action, "cache"); }
void add_cc(CLI::App& root, Action& action) { pending(root, action, "cc"); }
} // namespace kdet::cli
