//===- toml_text_test.cpp - TOML nested too deep is refused before toml++ ------===//
#include "kdet/util/error.hpp"
#include "kdet/util/toml_text.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace kdet {
namespace {

std::string repeat(const std::string& part, size_t n, const char* sep = ".") {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += (i ? sep : "") + part;
  return out;
}

// "line:depth" of the first place deeper than `max`, "" when none.
std::string deep(const std::string& text, size_t max) {
  TomlDepth d = toml_too_deep(text, max);
  return d.line ? std::to_string(d.line) + ":" + std::to_string(d.depth) : "";
}

TEST(TomlText, CountsKeyPartsHeadersArraysAndInlineTables) {
  EXPECT_EQ(deep("a = 1\n", 1), "");
  EXPECT_EQ(deep("a.b.c = 1\n", 3), "");
  EXPECT_EQ(deep("a.b.c = 1\n", 2), "1:3");
  EXPECT_EQ(deep("a . b\t. c = 1\n", 2), "1:3");
  // A header's part counts two: it may name an array of tables ([[x]] then [x.y]: 3 deep).
  EXPECT_EQ(deep("[x.y]\nz = [1]\n", 5), "");
  EXPECT_EQ(deep("[x.y]\nz = [1]\n", 4), "2:5");
  EXPECT_EQ(deep("[ x . y . z ]\n", 5), "1:6");
  EXPECT_EQ(deep("[[a.b]]\nc = 1\n", 4), "2:5");
  EXPECT_EQ(deep("a = { b.c = { d = 1 } }\n", 4), "");
  EXPECT_EQ(deep("a = { b.c = { d = 1 } }\n", 3), "1:4");
  EXPECT_EQ(deep("a = { x = 1, b.c.d = 1 }\n", 3), "1:4");
  EXPECT_EQ(deep("a = [\n  {b = 1},\n  {c.d = 1},\n]\n", 3), "3:4");
  EXPECT_EQ(deep("a = [[[[1]]]]\n", 3), "1:4");
  // A table header resets the depth; an array's end and a new line bring a key again.
  EXPECT_EQ(deep("[a.b.c]\n[d]\ne.f = 1\n", 6), "");
  EXPECT_EQ(deep("[a.b.c]\n[d]\ne.f.g.h.i = 1\n", 6), "3:7");
  EXPECT_EQ(deep("a = [1,\n2]\nb.c.d = 1\n", 2), "3:3");
  EXPECT_EQ(deep("a = {}\nb.c = 1\n", 1), "2:2");
}

TEST(TomlText, SkipsStringsAndComments) {
  EXPECT_EQ(deep("\"a.b.c\" = 1\n'd.e' = 2\n", 1), "");
  EXPECT_EQ(deep("\"a\".'b'.c = 1\n", 2), "1:3");
  EXPECT_EQ(deep("# a.b.c = 1\n[x] # [y.z.w]\n", 2), "");
  EXPECT_EQ(deep("a = \"x.y[{\" # {[\nb.c = 1\n", 1), "2:2");
  EXPECT_EQ(deep("a = \"q\\\"[{\"\nb.c = 1\n", 1), "2:2");
  EXPECT_EQ(deep("a = 'C:\\'\nb.c = 1\n", 1), "2:2");
  EXPECT_EQ(deep("a = \"\"\"\n[x.y.z]\nq.r.s = 1\n\"\"\"\nb = 1\n", 1), "");
  EXPECT_EQ(deep("a = \"\"\"\n\\\n\"\"\"\"\"\nb.c = 1\n", 1), "4:2");
  EXPECT_EQ(deep("a = '''\\'''\nb.c = 1\n", 1), "2:2");
  EXPECT_EQ(deep("a = ''''x'''' \nb.c = 1\n", 1), "2:2");
  EXPECT_EQ(deep("a = 1.5e3\nb = 1979-05-27T07:32:00Z\n", 1), "");
}

TEST(TomlText, ParseRefusesDeepKeysAndHeadersNamingTheLine) {
  for (const std::string& text :
       {"name = \"x\"\n" + repeat("a", 60000) + " = 1\n", "\n[" + repeat("a", 100000) + "]\n",
        "\n" + repeat("\"a\"", 60000) + " = 1\n", "\nx = { " + repeat("a", 60000) + " = 1 }\n"}) {
    try {
      parse_toml(text, "d.toml");
      ADD_FAILURE() << "not refused: " << text.substr(0, 40);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), k_exit_usage);
      EXPECT_NE(std::string(e.what()).find("d.toml:2: nested "), std::string::npos) << e.what();
    }
  }
  // At the bound, toml++ reads it.
  toml::table t = parse_toml(repeat("a", k_toml_max_depth) + " = 1\n", "ok.toml");
  EXPECT_TRUE(t.contains("a"));
  try {
    parse_toml("a = [1\n", "bad.toml");
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(": not valid TOML: "), std::string::npos) << e.what();
  }
}

TEST(TomlText, EveryTomlFileOfTheSourceTreeIsShallow) {
  size_t files = 0;
  for (const char* dir : {"examples", "tests/data", "docs"}) {
    const auto root = std::filesystem::path(KDET_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root)) {
      if (f.path().extension() != ".toml") continue;
      std::ifstream in(f.path());
      std::stringstream ss;
      ss << in.rdbuf();
      EXPECT_EQ(deep(ss.str(), 8), "") << f.path();
      ++files;
    }
  }
  EXPECT_GT(files, 0u);
}

} // namespace
} // namespace kdet
