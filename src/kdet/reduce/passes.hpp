//===- reduce/passes.hpp - the reduction passes, one table --------------------===//
//
// A pass splits a text into segments, some of them chunks that a candidate may
// drop (or replace by a smaller stand-in); ddmin picks which chunks stay.
// A format's fixup then removes what the drop left unused (dead instructions,
// declarations, metadata), so the NVVM IR passes keep a module parseable.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace kdet::reduce {

// cxx: C, C++ and CUDA C++ sources, reduced by cvise when it is there (reduce/cvise.hpp).
enum class TextFormat { nvvm_ir, ptx, cxx, text };

// The format the passes treat INPUT as, from its extension (.ll, .ptx, .cu/.cuh/.cpp/.cc/.cxx/
// .c/.h/.hpp, anything else).
TextFormat format_of(const std::string& path);
const char* to_string(TextFormat format);

struct Segment {
  std::string text;
  std::string removed; // what stands in when the chunk is dropped
  int chunk = -1;      // -1: always kept
};

struct Split {
  std::vector<Segment> segments;
  size_t chunks = 0;
};

struct Pass {
  const char* name;
  TextFormat format;
  Split (*split)(const std::string& text);
};

// Every pass, in the order they run (cheap structural ones first).
const std::vector<Pass>& pass_table();

// The text with only the chunks in `keep` (ascending) kept.
std::string render(const Split& split, const std::vector<size_t>& keep);

// Removes what is left unused, to a fixpoint: for NVVM IR, instructions whose
// value nothing uses, declarations and globals nothing names, metadata nothing
// refers to (and kernel annotations of functions no longer defined); identity otherwise.
std::string cleanup(TextFormat format, const std::string& text);

// Lines of `text`, each with its newline (the last one may lack it).
std::vector<std::string> split_lines(const std::string& text);

} // namespace kdet::reduce
