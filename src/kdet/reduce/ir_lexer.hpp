//===- reduce/ir_lexer.hpp - names in LLVM/NVVM IR text, as frontends write them ===//
//
// What the IR passes need of the text, for IR as real frontends emit it (numba,
// Triton, clang, kdet corpus): names after a sigil (`@f`, `%x`, `!5`, `#0`),
// written bare or quoted (`@"_ZN6cudapy..."`, `%".1"`; a quoted name and its bare
// spelling are one name), numbered ones (`%0`, `6:`); string literals (`c"..."`,
// `!"kernel"`, `"target-features"="..."`), which hold no names; and `;` comments.
// No parse of the grammar beyond that: the passes work line by line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kdet::reduce::ir {

bool ident_char(char c);

// A name token: its key (unquoted, escapes as written) and where it ends.
struct Name {
  std::string key;
  size_t begin = 0; // the sigil
  size_t end = 0;   // one past the name
};

// The name whose sigil is at s[at]; false when none starts there (`!"..."` is a string,
// not a name, and `!{` or `%` alone are no names).
bool read_name(const std::string& s, size_t at, Name& out);

// The key of the name at the start of `s` (`%x = ...` -> "x"), or "".
std::string leading_name(const std::string& s, char sigil);

// Calls fn for each name with `sigil` outside strings and comments, in order.
void for_each_name(const std::string& text, char sigil, const std::function<void(const Name&)>& fn);

// How often each name with `sigil` occurs outside strings and comments.
std::map<std::string, int> name_counts(const std::string& text, char sigil);

// `text` with each name of `sigil` whose key is in `to` replaced by its value, which is
// written as it is (e.g. "undef", or "%v1" with its sigil).
std::string replace_names(const std::string& text, char sigil,
                          const std::map<std::string, std::string>& to);

// `sigil` + `key`, quoted when the key is not a bare identifier.
std::string spell(char sigil, const std::string& key);

// The line without its `;` comment (outside strings) and trailing blanks; the newline stays.
std::string strip_comment(const std::string& line);

// The line from its first character that is neither a space nor a tab ("" when none).
std::string trim_left(const std::string& line);

// The label a line defines (`bb3:`, `"B66":`, `6:`), or "".
std::string label_of(const std::string& line);

// The @name a `define`/`declare` line defines or declares.
std::string function_name(const std::string& line);

// True when the line (comment stripped) ends with the `{` that opens a function body.
bool opens_body(const std::string& line);

// True when the key is a number (`%0`, `@1`): LLVM requires these in sequence.
bool numbered(const std::string& key);

} // namespace kdet::reduce::ir
