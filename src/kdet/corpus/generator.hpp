//===- corpus/generator.hpp - synthetic NVVM IR kernels of any size ----------===//
//
// `kdet corpus` writes kernels that look like what a GPU front end emits: many
// pointer parameters, nested counted loops, shared memory (addrspace 3) with
// barriers, float math through NVVM intrinsics (libdevice is never needed),
// data-dependent branches joined by phis, and internal helper functions.
// Every kernel is valid by construction for libNVVM 13.0: the llvm7 dialect
// (typed pointers) for -arch=compute_80/compute_90a, the modern dialect
// (opaque `ptr`) for -arch=compute_100a. Output depends only on the spec:
// the same seed gives byte-identical text on every machine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/gpu/recipe.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kdet::corpus {

// The NVVM IR dialects libNVVM 13.0 accepts (each only for some targets).
enum class Dialect { llvm7, modern };

// Named sizes, in instructions (helpers included).
constexpr size_t k_small_instructions = 150;
constexpr size_t k_medium_instructions = 800;
constexpr size_t k_large_instructions = 4000;
// Elements of each input buffer a kernel reads (a power of two): every load index is
// masked to it, so a kernel never reads outside its inputs whatever its arithmetic.
constexpr uint32_t k_input_elements = 1u << 16;
// Threads a kernel's recipe launches; each writes one element of each output buffer.
constexpr uint32_t k_recipe_threads = 1u << 16;
// Bounds on a numeric --size; below the minimum a kernel has no room for its shape.
constexpr size_t k_min_instructions = 40;
constexpr size_t k_max_instructions = 200000;

// One kernel to generate.
struct KernelSpec {
  std::string name = "kernel"; // kernel function name; must match [A-Za-z_][A-Za-z0-9_]*
  uint64_t seed = 0;
  size_t instructions = k_small_instructions; // target; the result lands within a few percent above
  Dialect dialect = Dialect::llvm7;
};

// A generated module and what it contains.
struct Kernel {
  std::string name;
  std::string text;          // the whole .ll module
  size_t instructions = 0;   // instructions emitted, terminators and phis included
  size_t helpers = 0;        // internal helper functions
  size_t pointer_params = 0; // pointer parameters of the kernel
  size_t loops = 0;
  size_t barriers = 0;
  gpu::Recipe recipe; // how `kdet impact --run` launches it
};

// Generates one kernel; deterministic in `spec`. Throws Error on a bad name or size.
Kernel generate_kernel(const KernelSpec& spec);

// A --size value: a fixed instruction count, or "mixed" (each kernel draws
// small, medium or large from its own seed).
struct SizeChoice {
  bool mixed = false;
  size_t instructions = k_small_instructions;
  std::string label = "small"; // as the user wrote it
};

// Parses small|medium|large|mixed|N; throws Error naming `option` otherwise.
SizeChoice parse_size(const std::string& value, const std::string& option);
// Parses llvm7|modern; throws Error naming `option` otherwise.
Dialect parse_dialect(const std::string& value, const std::string& option);
const char* to_string(Dialect d);
// The libNVVM options a kernel of this dialect is meant for ("-arch=compute_90a -opt=3").
std::string suggested_options(Dialect d);

// A whole corpus: `count` kernels in `out_dir`.
struct CorpusSpec {
  std::string out_dir;
  size_t count = 1;
  SizeChoice size;
  uint64_t seed = 0;
  Dialect dialect = Dialect::llvm7;
};

struct CorpusFile {
  std::string path;        // out_dir/gen_NNNN.ll
  std::string recipe_path; // out_dir/gen_NNNN.recipe.toml
  Kernel kernel;
};

// The spec of the i-th kernel of a corpus (its name, derived seed and size).
KernelSpec corpus_kernel_spec(const CorpusSpec& spec, size_t index);

// Writes the kernels, a recipe beside each, and out_dir/README.txt (seed, size, dialect,
// options, one line per file); creates out_dir. Throws Error naming the folder on failure.
std::vector<CorpusFile> write_corpus(const CorpusSpec& spec);

} // namespace kdet::corpus
