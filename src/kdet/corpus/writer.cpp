//===- corpus/writer.cpp - a folder of generated kernels and its README -------===//
#include "kdet/corpus/generator.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <fmt/format.h>

namespace kdet::corpus {

const char* to_string(Dialect d) {
  return d == Dialect::llvm7 ? "llvm7" : "modern";
}

std::string suggested_options(Dialect d) {
  return d == Dialect::llvm7 ? "-arch=compute_90a -opt=3 (or compute_80; -opt=0..3)"
                             : "-arch=compute_100a -opt=3 (-opt=0..3)";
}

Dialect parse_dialect(const std::string& value, const std::string& option) {
  if (value == "llvm7") return Dialect::llvm7;
  if (value == "modern") return Dialect::modern;
  throw Error::format("{} {}: must be llvm7 (typed pointers, for compute_80/compute_90a) or modern "
                      "(opaque ptr, for compute_100a)",
                      option, value);
}

SizeChoice parse_size(const std::string& value, const std::string& option) {
  SizeChoice c;
  c.label = value;
  if (value == "small")
    c.instructions = k_small_instructions;
  else if (value == "medium")
    c.instructions = k_medium_instructions;
  else if (value == "large")
    c.instructions = k_large_instructions;
  else if (value == "mixed")
    c.mixed = true;
  else if (auto n = parse_u64(value); n && *n >= k_min_instructions && *n <= k_max_instructions)
    c.instructions = static_cast<size_t>(*n);
  else
    throw Error::format(
        "{} {}: must be small (~{}), medium (~{}), large (~{} instructions), mixed, or a "
        "number of instructions between {} and {}",
        option, value, k_small_instructions, k_medium_instructions, k_large_instructions,
        k_min_instructions, k_max_instructions);
  return c;
}

KernelSpec corpus_kernel_spec(const CorpusSpec& spec, size_t index) {
  KernelSpec k;
  k.name = fmt::format("gen_{:04}", index);
  k.seed = mix_seed(spec.seed, index);
  k.dialect = spec.dialect;
  k.instructions = spec.size.instructions;
  if (spec.size.mixed) { // half small, a third medium, the rest large
    uint64_t r = mix_seed(k.seed, 0x73697a65) % 100;
    k.instructions = r < 50   ? k_small_instructions
                     : r < 85 ? k_medium_instructions
                              : k_large_instructions;
  }
  return k;
}

std::vector<CorpusFile> write_corpus(const CorpusSpec& spec) {
  if (spec.count == 0) throw Error("--count 0: give at least 1 kernel to write");
  make_dirs(spec.out_dir);
  std::vector<CorpusFile> files;
  std::string listing;
  size_t total = 0;
  for (size_t i = 0; i < spec.count; ++i) {
    KernelSpec ks = corpus_kernel_spec(spec, i);
    CorpusFile f{fmt::format("{}/{}.ll", spec.out_dir, ks.name),
                 fmt::format("{}/{}.recipe.toml", spec.out_dir, ks.name), generate_kernel(ks)};
    write_file_atomic(f.path, f.kernel.text);
    write_file_atomic(
        f.recipe_path,
        gpu::to_toml(f.kernel.recipe,
                     fmt::format("How `kdet impact A B --run --recipe {}.recipe.toml` "
                                 "launches {}\n(`kdet corpus`, seed {:#x}).",
                                 ks.name, ks.name, ks.seed)));
    total += f.kernel.instructions;
    listing += fmt::format(
        "  {}.ll  {}, {}, {}, {}, {}\n", ks.name, plural(f.kernel.instructions, "instruction"),
        plural(f.kernel.pointer_params, "pointer param"), plural(f.kernel.helpers, "helper"),
        plural(f.kernel.loops, "loop"), plural(f.kernel.barriers, "barrier"));
    files.push_back(std::move(f));
  }
  std::string readme = fmt::format(
      "Synthetic NVVM IR kernels written by `kdet corpus`.\n"
      "\n"
      "seed     {:#x}\n"
      "size     {}\n"
      "dialect  {}\n"
      "count    {}\n"
      "options  {}\n"
      "\n"
      "The same seed, size, dialect and count give byte-identical files.\n"
      "Regenerate: kdet corpus --out DIR --count {} --size {} --seed {:#x} --dialect {}\n"
      "Each file holds one kernel (the function named like the file) and its internal helpers;\n"
      "gen_NNNN.recipe.toml beside it says how `kdet impact --run` launches it (grid, block,\n"
      "arguments). The kernels are race-free: two launches of one cubin give the same bits.\n"
      "\n"
      "files ({} instructions in all):\n{}",
      spec.seed, spec.size.label, to_string(spec.dialect), spec.count,
      suggested_options(spec.dialect), spec.count, spec.size.label, spec.seed,
      to_string(spec.dialect), total, listing);
  write_file_atomic(spec.out_dir + "/README.txt", readme);
  return files;
}

} // namespace kdet::corpus
