//===- corpus/ir_builder.hpp - text IR functions, dialect types, seeded choices ===//
//
// Internal to the corpus generator. IrFunction holds a function body as
// labelled blocks of instruction lines; a phi whose incoming block is not known
// yet (a loop header's back edge) reserves its line and is patched later.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/corpus/generator.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kdet::corpus {

// A small deterministic generator (splitmix64). Unlike the standard
// distributions its results do not depend on the C++ library, so a seed gives
// the same corpus with any toolchain.
class Rng {
public:
  explicit Rng(uint64_t seed) : m_state(seed) {}

  // Next 64 random bits.
  uint64_t next() {
    uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // A number in [0, n); n must be positive.
  uint64_t below(uint64_t n) { return next() % n; }
  // True with the given probability in percent.
  bool chance(int percent) { return static_cast<int>(below(100)) < percent; }
  // One element of a non-empty vector.
  template <typename T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

private:
  uint64_t m_state;
};

// Spelling of pointer types in each dialect.
struct Types {
  Dialect dialect;

  // A pointer to global data of `elem` ("float*" or "ptr addrspace(1)").
  std::string global(const std::string& elem) const {
    return dialect == Dialect::llvm7 ? elem + "*" : "ptr addrspace(1)";
  }
  // A pointer into shared memory ("float addrspace(3)*" or "ptr addrspace(3)").
  std::string shared(const std::string& elem) const {
    return dialect == Dialect::llvm7 ? elem + " addrspace(3)*" : "ptr addrspace(3)";
  }
};

// One function body under construction.
class IrFunction {
public:
  using Slot = std::pair<size_t, size_t>; // block, line

  // A fresh value name (%vN, N counting up in emission order).
  std::string value() { return "%v" + std::to_string(m_values++); }
  // A fresh block label (without the %).
  std::string label() { return "bb" + std::to_string(m_labels++); }
  // Starts a new block; the previous one must have ended with a terminator.
  void start_block(std::string name) { m_blocks.push_back({std::move(name), {}}); }
  // Appends an instruction to the current block.
  void emit(std::string line) {
    m_blocks.back().lines.push_back(std::move(line));
    ++m_instructions;
  }
  // Reserves an instruction line to be filled by patch() (counts as emitted).
  Slot reserve() {
    emit("");
    return {m_blocks.size() - 1, m_blocks.back().lines.size() - 1};
  }
  void patch(Slot slot, std::string line) {
    m_blocks[slot.first].lines[slot.second] = std::move(line);
  }
  // Label of the block being filled.
  const std::string& current() const { return m_blocks.back().name; }
  size_t instructions() const { return m_instructions; }
  // The body: "label:\n  inst\n..." with a blank line between blocks.
  std::string render() const {
    std::string out;
    for (size_t b = 0; b < m_blocks.size(); ++b) {
      if (b) out += '\n';
      out += m_blocks[b].name + ":\n";
      for (const auto& line : m_blocks[b].lines)
        out += "  " + line + "\n";
    }
    return out;
  }

private:
  struct Block {
    std::string name;
    std::vector<std::string> lines;
  };
  std::vector<Block> m_blocks;
  size_t m_values = 0;
  size_t m_labels = 0;
  size_t m_instructions = 0;
};

} // namespace kdet::corpus
