//===- diff/sass_reader.hpp - reads and canonicalises SASS listings --------===//
//
// Internal to diff/. Reads the listings of `nvdisasm FILE` and `cuobjdump -sass
// FILE` (one reader for both; a tolerant one: it never throws, and what it
// cannot place is skipped) and turns each function into canonical lines:
// registers renamed by first use, branch targets as labels named by first use,
// so two listings that differ only in register allocation or code addresses
// read the same. Constant bank offsets and immediates are kept: they are meaning.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kdet::diff::detail {

// One instruction as listed: predicate, opcode and operands, whitespace collapsed,
// without its /*address*/, its encoding comment and the closing ';'.
struct SassInstruction {
  std::string text;
  uint64_t address = 0;
  size_t line = 0; // 1-based line of the listing
};

// One function (a `.text.<name>` section of nvdisasm, a `Function : <name>` of cuobjdump).
struct SassFunction {
  std::string name;
  std::vector<SassInstruction> instructions;
  std::map<std::string, uint64_t> labels;    // nvdisasm's label definitions -> address they mark
  std::map<std::string, size_t> label_lines; // -> 1-based listing line of the definition
};

// A whole listing, functions in listing order.
struct SassListing {
  std::vector<SassFunction> functions;
};

// Reads an nvdisasm or cuobjdump -sass listing. Never throws.
SassListing read_sass(std::string_view text);

// One register or label occurrence inside a canonical line.
struct SassToken {
  bool label = false;
  std::string prefix; // register class ("R", "UR", "P", "UP", "B"); empty for labels
  uint32_t sym = 0;   // index into SassCanonical::names
};

// An instruction or label definition cut around its register and label tokens:
// pieces.size() == toks.size() + 1.
struct SassLine {
  std::vector<std::string> pieces;
  std::vector<SassToken> toks;
  size_t index = 0;        // 1-based position in the canonical listing
  bool definition = false; // a label definition line, not an instruction
  size_t instruction = 0;  // index into SassFunction::instructions: the instruction, or the
                           // one a definition marks
};

// A function's canonical form.
struct SassCanonical {
  std::vector<SassLine> lines;
  std::vector<std::string> names; // canonical name per symbol, given by first use
  size_t instructions = 0;
};

// Canonicalises a function: registers (R, UR, P, UP, B; RZ, URZ, PT, UPT kept) are renamed
// per class in order of first use (R0, R1, ...), branch targets that are instructions of the
// function (nvdisasm's `(label), cuobjdump's absolute addresses) become labels .L_x_0, ...
// in order of first use, with a definition line before the instruction they mark.
SassCanonical canonicalise(const SassFunction& f);

// A canonical line with the given names (or, when `names` is null, with register and label
// numbers erased: the line's shape).
std::string render(const SassLine& line, const std::vector<std::string>* names);

// The canonical lines as text.
std::vector<std::string> canonical_text(const SassCanonical& c);

// The listing's own labels by the address they mark (the first name of each; the function's
// own name aside): what listed_text() and listed_line() look definitions up in.
using LabelsByAddress = std::map<uint64_t, std::string>;
LabelsByAddress labels_by_address(const SassFunction& f);

// A canonical line as the listing has it: "/*0130*/ BRA `(.L_x_3);" with the listing's own
// registers and targets, or for a definition the listing's label at that address ("(target)"
// when it names none, as cuobjdump's).
std::string listed_text(const SassLine& line, const SassFunction& f, const LabelsByAddress& labels);

// The listing line of a canonical line: its instruction's, or for a definition the listing's
// label line (the marked instruction's when the listing names no label there).
size_t listed_line(const SassLine& line, const SassFunction& f, const LabelsByAddress& labels);

} // namespace kdet::diff::detail
