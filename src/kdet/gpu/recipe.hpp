//===- gpu/recipe.hpp - how to launch a kernel for `kdet impact --run` -------===//
//
// A recipe names a kernel, its grid and block, its dynamic shared memory and
// its arguments in order: buffers (an element type, a count, contents that
// are zero or seeded random, whether they are compared after the launch) and
// scalars. It is a small TOML file (docs/IMPACT.md, "Dynamic reach"); `kdet
// corpus` writes one beside each kernel. The buffers' contents depend only on
// the recipe, so every launch of every variant starts from the same bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kdet::gpu {

// Element and scalar types.
enum class Type { u8, i32, u32, f32, i64, u64, f64 };

// "u8", "i32", ... (the recipe's spelling).
const char* to_string(Type type);
// Bytes of one element.
size_t size_of(Type type);
// What the comparison counts: "bytes", "floats", "doubles", "32-bit integers", ...
const char* unit_name(Type type);

// Largest buffer a recipe may ask for (one argument).
constexpr uint64_t k_max_buffer_bytes = 16ULL << 30;

// One kernel argument.
struct RecipeArg {
  enum class Kind { buffer, scalar };
  Kind kind = Kind::buffer;
  std::string name; // a label for reports ("in0"); "arg N" when the recipe gives none
  int line = 0;     // where the recipe gives it
  Type type = Type::f32;
  // buffer
  uint64_t elements = 0;
  bool random = true; // seeded random contents, else zero
  uint64_t seed = 0;
  bool output = true; // compared between variants after the launch
  // scalar: the value's bytes (little-endian, size_of(type) of them)
  uint64_t bits = 0;

  uint64_t bytes() const { return elements * size_of(type); }
};

// A whole recipe.
struct Recipe {
  std::string path; // the file, for messages
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0; // dynamic shared memory
  std::vector<RecipeArg> args;
};

// Parses a recipe; throws kdet::Error "PATH:LINE: message" on anything wrong.
Recipe parse_recipe(const std::string& text, const std::string& path);

// The recipe as TOML that parse_recipe reads back to the same recipe (comments aside).
std::string to_toml(const Recipe& recipe, const std::string& comment);

// A buffer's initial contents: zeros, or random from its seed (floats uniform in [-1, 1),
// integers and bytes uniform over all their bits). Deterministic on every machine.
std::string initial_contents(const RecipeArg& arg);

// "256" or "16x16x1".
std::string dims_text(const std::array<uint32_t, 3>& dims);

} // namespace kdet::gpu
