#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
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

TEST(EnvChanges, SetReplaceAndUnsetInOrder) {
  std::vector<std::string> env = {"A=1", "AB=2", "PATH=/bin"};
  auto out = with_env_changes(env, {"A=9", "PATH", "NEW=x", "AB"});
  EXPECT_EQ(out, (std::vector<std::string>{"A=9", "NEW=x"}));
  // "A" must not touch "AB": keys match up to the '='.
  EXPECT_EQ(with_env_changes({"AB=2"}, {"A"}), std::vector<std::string>{"AB=2"});
}
