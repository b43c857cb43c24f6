//===- reduce/passes.cpp - the reduction passes, one table --------------------===//
#include "kdet/reduce/passes.hpp"

#include "kdet/reduce/ir_lexer.hpp"
#include "kdet/reduce/passes_ir.hpp"
#include "kdet/util/fs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kdet::reduce {

namespace {

Split whole_lines(const std::string& text, bool (*pick)(const std::string& line, bool in_body)) {
  Split s;
  bool body = false;
  for (auto& l : split_lines(text)) {
    Segment seg{l, "", -1};
    if (pick(l, body)) seg.chunk = static_cast<int>(s.chunks++);
    // A body opens on a `define ... {` line (IR) or a `{` line of its own (PTX).
    if (l.starts_with("}"))
      body = false;
    else if ((l.starts_with("define ") && l.find('{') != std::string::npos) || l.starts_with("{"))
      body = true;
    s.segments.push_back(std::move(seg));
  }
  return s;
}

// Blocks as chunks: a line `end` gives an end for (npos: none) opens a block through that line;
// every other line stays where it is.
Split line_blocks(const std::string& text,
                  size_t (*end)(const std::vector<std::string>& lines, size_t at)) {
  auto lines = split_lines(text);
  Split s;
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t j = end(lines, i);
    if (j == std::string::npos) {
      s.segments.push_back({lines[i], "", -1});
      continue;
    }
    std::string block;
    for (size_t k = i; k <= j; ++k)
      block += lines[k];
    s.segments.push_back({block, "", static_cast<int>(s.chunks++)});
    i = j;
  }
  return s;
}

// An `.entry` or `.func` with its body, through the `}` that starts a line; a declaration
// without a body is no block.
Split ptx_functions(const std::string& text) {
  return line_blocks(text, [](const std::vector<std::string>& lines, size_t i) {
    const auto& l = lines[i];
    bool head = !std::isspace(static_cast<unsigned char>(l.empty() ? ' ' : l[0])) &&
                (l.find(".entry ") != std::string::npos || l.find(".func ") != std::string::npos);
    if (!head) return std::string::npos;
    size_t j = i;
    while (j < lines.size() && !lines[j].starts_with("}"))
      ++j;
    return j == lines.size() ? std::string::npos : j;
  });
}

// A `.section` block (debug info as LLVM's NVPTX back end writes it: `\t.section .debug_info`,
// then `\t{` ... `\t}`, or all on one line), one chunk each.
Split ptx_sections(const std::string& text) {
  return line_blocks(text, [](const std::vector<std::string>& lines, size_t i) {
    if (!ir::trim_left(lines[i]).starts_with(".section")) return std::string::npos;
    size_t j = i;
    if (lines[i].find('}') == std::string::npos)
      while (j + 1 < lines.size() && !ir::trim_left(lines[j]).starts_with("}"))
        ++j;
    return j;
  });
}

// A line at the top level, outside every body and section: a declaration (`.global`,
// `.extern`, `.file`, a prototype) or a comment. The header (.version, .target, .address_size)
// stays. Braces and parentheses balanced on one line (an initializer `= {95, 67}`) keep it at
// the top level; an entry's parameter list is not.
Split ptx_decls(const std::string& text) {
  Split s;
  int depth = 0;
  for (auto& l : split_lines(text)) {
    int net = 0;
    bool in_string = false;
    for (size_t i = 0; i < l.size(); ++i) {
      char c = l[i];
      if (c == '"') in_string = !in_string;
      if (in_string) continue;
      if (c == '/' && i + 1 < l.size() && l[i + 1] == '/') break;
      net += c == '{' || c == '(' ? 1 : c == '}' || c == ')' ? -1 : 0;
    }
    std::string t = ir::trim_left(l);
    bool header =
        t.starts_with(".version") || t.starts_with(".target") || t.starts_with(".address_size");
    // What opens a body or a section is another pass's; a prototype (`.func f(...);`) is a decl.
    bool opens =
        t.starts_with(".section") ||
        ((t.find(".entry ") != std::string::npos || t.find(".func ") != std::string::npos) &&
         t.find(';') == std::string::npos);
    bool pick =
        depth == 0 && net == 0 && !header && !opens && (t.starts_with(".") || t.starts_with("//"));
    s.segments.push_back({l, "", pick ? static_cast<int>(s.chunks++) : -1});
    depth = std::max(0, depth + net);
  }
  return s;
}

Split ptx_lines(const std::string& text) {
  return whole_lines(text, [](const std::string& l, bool body) {
    std::string t = ir::trim_left(l);
    return body && !t.empty() && t.find(';') != std::string::npos;
  });
}

Split text_lines(const std::string& text) {
  return whole_lines(text, [](const std::string&, bool) { return true; });
}

} // namespace

TextFormat format_of(const std::string& path) {
  std::string ext = file_extension(path);
  if (ext == "ll") return TextFormat::nvvm_ir;
  if (ext == "ptx") return TextFormat::ptx;
  for (const char* c : {"cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp"})
    if (ext == c) return TextFormat::cxx;
  return TextFormat::text;
}

const char* to_string(TextFormat format) {
  switch (format) {
  case TextFormat::nvvm_ir:
    return "nvvm-ir";
  case TextFormat::ptx:
    return "ptx";
  case TextFormat::cxx:
    return "c++";
  case TextFormat::text:
    return "text";
  }
  return "text";
}

const std::vector<Pass>& pass_table() {
  // NVVM IR gets no line pass: every IR pass keeps the module parseable, so a
  // compiler that accepts anything cannot lead the reduction to broken IR.
  static const std::vector<Pass> table = {
      {"ll-functions", TextFormat::nvvm_ir, ir::ll_functions},
      {"ll-bodies", TextFormat::nvvm_ir, ir::ll_bodies},
      {"ll-branches", TextFormat::nvvm_ir, ir::ll_branches_else},
      {"ll-branches-then", TextFormat::nvvm_ir, ir::ll_branches_then},
      {"ll-instructions", TextFormat::nvvm_ir, ir::ll_instructions},
      {"ll-debug", TextFormat::nvvm_ir, ir::ll_debug},
      {"ll-attachments", TextFormat::nvvm_ir, ir::ll_attachments},
      {"ll-attributes", TextFormat::nvvm_ir, ir::ll_attributes},
      {"ll-metadata", TextFormat::nvvm_ir, ir::ll_metadata},
      {"ptx-functions", TextFormat::ptx, ptx_functions},
      {"ptx-sections", TextFormat::ptx, ptx_sections},
      {"ptx-decls", TextFormat::ptx, ptx_decls},
      {"ptx-lines", TextFormat::ptx, ptx_lines},
      {"lines", TextFormat::text, text_lines},
  };
  return table;
}

std::string render(const Split& split, const std::vector<size_t>& keep) {
  std::vector<char> kept(split.chunks, 0);
  for (size_t k : keep)
    kept[k] = 1;
  std::string out;
  for (const auto& s : split.segments)
    out += (s.chunk < 0 || kept[static_cast<size_t>(s.chunk)]) ? s.text : s.removed;
  return out;
}

std::string cleanup(TextFormat format, const std::string& text) {
  return format == TextFormat::nvvm_ir ? ir::ll_cleanup(text) : text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t n = text.find('\n', p);
    size_t end = n == std::string::npos ? text.size() : n + 1;
    out.push_back(text.substr(p, end - p));
    p = end;
  }
  return out;
}

} // namespace kdet::reduce
