//===- cli/corpus.cpp - `kdet corpus`: write a folder of synthetic kernels ----===//
#include "kdet/cli/main.hpp"
#include "kdet/cli/numbers.hpp"
#include "kdet/cli/output.hpp"
#include "kdet/corpus/generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace kdet::cli {

namespace {

struct CorpusArgs {
  std::string out_dir;
  size_t count = 0;
  std::string size = "medium";
  std::string seed = "0";
  std::string dialect = "llvm7";
  bool force = false;
  OutputArgs output; // --quiet only
};

int do_corpus(const CorpusArgs& args) {
  corpus::CorpusSpec spec;
  spec.out_dir = args.out_dir;
  spec.count = args.count;
  spec.size = corpus::parse_size(args.size, "--size");
  spec.dialect = corpus::parse_dialect(args.dialect, "--dialect");
  auto seed = parse_seed(args.seed);
  if (!seed)
    throw Error::format("--seed {}: must be a decimal or 0x-prefixed hex integer", args.seed);
  spec.seed = *seed;
  // Another corpus's gen_NNNN.ll files (or anything else) left beside the new ones would be
  // taken for part of it by a scan that globs the folder.
  std::error_code ec;
  if (!args.force && std::filesystem::is_directory(args.out_dir, ec) &&
      std::filesystem::directory_iterator(args.out_dir, ec) !=
          std::filesystem::directory_iterator())
    throw Error::format("--out {}: the folder is not empty; choose an empty or new folder, or "
                        "give --force to write into it anyway",
                        args.out_dir);
  auto files = corpus::write_corpus(spec);
  if (!args.output.quiet) {
    size_t total = 0;
    for (const auto& f : files)
      total += f.kernel.instructions;
    fmt::print("wrote {} ({}, {} dialect) to {}\ncompile with: {}\n",
               plural(files.size(), "kernel"), plural(total, "instruction"),
               corpus::to_string(spec.dialect), spec.out_dir,
               corpus::suggested_options(spec.dialect));
  }
  return 0;
}

} // namespace

void add_corpus(CLI::App& root, Action& action) {
  auto args = std::make_shared<CorpusArgs>();
  auto* cmd =
      root.add_subcommand("corpus", "Write N synthetic NVVM IR kernels (deterministic for a seed)");
  cmd->footer(
      "Examples:\n"
      "  kdet corpus --out corpus --count 100 --size mixed --seed 7\n"
      "  kdet corpus --out big --count 4 --size large --dialect modern\n"
      "  kdet corpus --out one --count 1 --size 20000\n"
      "llvm7 kernels (typed pointers) compile with libNVVM 13.0 for -arch=compute_80 and\n"
      "compute_90a; modern kernels (opaque ptr) for -arch=compute_100a; -opt=0..3 for both.");
  cmd->add_option("--out,-o", args->out_dir, "Folder to write gen_NNNN.ll and README.txt into")
      ->required();
  cmd->add_option("--count,-n", args->count, "Number of kernels")
      ->required()
      ->check(whole_option({1, 1000000}));
  cmd->add_option(
      "--size", args->size,
      "small (~150 instructions), medium (~800), large (~4000), mixed, or a number of instructions "
      "(default medium)");
  cmd->add_option("--seed", args->seed,
                  "Seed (decimal or 0x hex; default 0); same seed, same files");
  cmd->add_option("--dialect", args->dialect,
                  "llvm7 (typed pointers, default) or modern (opaque ptr)");
  cmd->add_flag("--force", args->force,
                "Write into --out even when it is not empty (files of the same name are replaced)");
  add_quiet_option(cmd, args->output, "Print nothing on success");
  cmd->callback([args, &action] { action = [args] { return do_corpus(*args); }; });
}

} // namespace kdet::cli
