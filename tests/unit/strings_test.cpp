#include "kdet/util/error.hpp"
#include "kdet/util/strings.hpp"

#include <gtest/gtest.h>

using namespace kdet;

TEST(SplitCommand, SplitsLikeAShellWithoutRunningOne) {
  auto argv = split_command(R"(ptxas -arch=sm_90a '{input}' -o "out put" a\ b)");
  ASSERT_EQ(argv.size(), 6u);
  EXPECT_EQ(argv[0], "ptxas");
  EXPECT_EQ(argv[2], "{input}");
  EXPECT_EQ(argv[4], "out put");
  EXPECT_EQ(argv[5], "a b");
}

TEST(SplitCommand, UnclosedQuoteIsAnError) {
  EXPECT_THROW(split_command("nvcc 'oops"), Error);
}

TEST(Substitute, ReplacesKnownPlaceholdersOnly) {
  EXPECT_EQ(substitute("{input} -o {output} {other}", {{"input", "a.ptx"}, {"output", "b"}}),
            "a.ptx -o b {other}");
}

TEST(ParseSeed, AcceptsHexAndDecimal) {
  EXPECT_EQ(parse_seed("0x10"), 16u);
  EXPECT_EQ(parse_seed("42"), 42u);
  EXPECT_FALSE(parse_seed("4x2").has_value());
  EXPECT_FALSE(parse_seed("").has_value());
}

TEST(ShellJoin, QuotesWhatNeedsIt) {
  EXPECT_EQ(shell_join({"kdet", "run", "a b", "it's"}), "kdet run 'a b' 'it'\\''s'");
}
