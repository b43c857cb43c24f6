#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/strings.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

TEST(Utf8, ValidTextIsKeptAndStrayBytesBecomeLatin1Characters) {
  EXPECT_TRUE(kdet::valid_utf8("caf\xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(kdet::valid_utf8("caf\xe9"));
  EXPECT_FALSE(kdet::valid_utf8("\xc0\xaf"));         // overlong '/'
  EXPECT_FALSE(kdet::valid_utf8("\xed\xa0\x80"));     // a surrogate
  EXPECT_FALSE(kdet::valid_utf8("\xf4\x90\x80\x80")); // past U+10FFFF
  EXPECT_EQ(kdet::utf8_safe("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(kdet::utf8_safe("caf\xe9"), "caf\xc3\xa9");
  EXPECT_EQ(kdet::utf8_safe("\xff\xc3"), "\xc3\xbf\xc3\x83"); // a truncated sequence too
}

TEST(Utf8, JsonOfBytesThatAreNotUtf8NeverThrows) {
  nlohmann::json j = {{"name", "caf\xe9.ll"}, {"opts", {"-D\xff"}}, {"k\xe9y", 1}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  std::string text;
  ASSERT_NO_THROW(text = kdet::json_text(j, -1));
  auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["name"], "caf\u00e9.ll");
  EXPECT_EQ(back["opts"][0], "-D\u00ff");
  EXPECT_EQ(back["k\u00e9y"], 1);
}

TEST(Xml, EscapesMarkupAndNeverEmitsWhatXmlForbids) {
  EXPECT_EQ(kdet::xml_text("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(kdet::xml_text("a\x01"
                           "b\tc\n"),
            "a\u2401"
            "b\tc\n");
  EXPECT_EQ(kdet::xml_text(std::string("\0", 1)), "\u2400");
  EXPECT_EQ(kdet::xml_text("caf\xe9"), "caf\u00e9");
  EXPECT_EQ(kdet::xml_text("\xef\xbf\xbe"), "\ufffd"); // U+FFFE
}

TEST(Terminal, ControlBytesAreShownNeverSent) {
  // An OSC that retitles the terminal, a clear screen, hidden text, a carriage return that
  // overwrites a line, DEL, and C1 both as a raw byte and as UTF-8 (U+009B, a one-byte CSI).
  EXPECT_EQ(kdet::terminal_text("\x1b]0;pwned\x07"
                                "a\x1b[2J\x1b[8mb\rc\x7f"),
            "\\x1b]0;pwned\\x07a\\x1b[2J\\x1b[8mb\\x0dc\\x7f");
  EXPECT_EQ(kdet::terminal_text("x\x9b"
                                "1m y\xc2\x9b"
                                "2J"),
            "x\\u009b1m y\\u009b2J");
  EXPECT_EQ(kdet::terminal_text("tab\tand\nnewline, caf\xc3\xa9 \xe2\x9c\x93"),
            "tab\tand\nnewline, caf\u00e9 \u2713");
  // kdet's own colours stay with keep_color; anything else with an ESC is shown.
  EXPECT_EQ(kdet::terminal_text("\x1b[1mVARIES\x1b[0m \x1b[31;1mx\x1b[0m", true),
            "\x1b[1mVARIES\x1b[0m \x1b[31;1mx\x1b[0m");
  EXPECT_EQ(kdet::terminal_text("\x1b[8mhidden\x1b[2J\x1b[1", true),
            "\\x1b[8mhidden\\x1b[2J\\x1b[1");
  EXPECT_EQ(kdet::terminal_text("\x1b[1m", false), "\\x1b[1m");
}

TEST(Strings, HumanSecondsPastAnHourCountsHours) {
  EXPECT_EQ(human_seconds(59), "59.00 s");
  EXPECT_EQ(human_seconds(125), "2 min 5 s");
  EXPECT_EQ(human_seconds(105 * 3600.0 + 30 * 60), "105 h 30 min");
}
