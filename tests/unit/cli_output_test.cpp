// cli/output: the colour decision table, and --json writing through util/fs's write_output.
#include "kdet/cli/output.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::cli;
namespace fs = std::filesystem;

namespace {

struct Case {
  ColorMode mode;
  bool tty;
  const char* no_color;
  const char* term;
  bool color;
};

// Every mode against tty or not, NO_COLOR unset/empty/set, and TERM dumb or not.
const Case k_table[] = {
    // auto: colour only on a terminal, without a non-empty NO_COLOR, and not TERM=dumb.
    {ColorMode::automatic, true, "", "xterm", true},
    {ColorMode::automatic, true, "1", "xterm", false},
    {ColorMode::automatic, true, "0", "xterm", false}, // any non-empty value, even "0"
    {ColorMode::automatic, true, "", "dumb", false},
    {ColorMode::automatic, true, "", "", true}, // TERM unset is not dumb
    {ColorMode::automatic, false, "", "xterm", false},
    {ColorMode::automatic, false, "1", "xterm", false},
    // always: what the user asked for, whatever NO_COLOR, TERM or the stream say.
    {ColorMode::always, true, "", "xterm", true},
    {ColorMode::always, true, "1", "xterm", true},
    {ColorMode::always, false, "", "xterm", true},
    {ColorMode::always, false, "1", "dumb", true},
    // never: never.
    {ColorMode::never, true, "", "xterm", false},
    {ColorMode::never, true, "1", "xterm", false},
    {ColorMode::never, false, "", "xterm", false},
};

TEST(CliOutput, ColorDecisionTable) {
  for (const auto& c : k_table) {
    TerminalFacts f{c.tty, c.no_color, c.term};
    EXPECT_EQ(decide_color(c.mode, f), c.color)
        << "mode " << static_cast<int>(c.mode) << " tty " << c.tty << " NO_COLOR='" << c.no_color
        << "' TERM='" << c.term << "'";
  }
}

TEST(CliOutput, ParsesColorModesAndNamesTheOptionOnError) {
  EXPECT_EQ(parse_color_mode("auto"), ColorMode::automatic);
  EXPECT_EQ(parse_color_mode("always"), ColorMode::always);
  EXPECT_EQ(parse_color_mode("never"), ColorMode::never);
  try {
    parse_color_mode("sometimes");
    FAIL() << "no error for --color sometimes";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("--color sometimes"), std::string::npos) << m;
    EXPECT_NE(m.find("auto, always and never"), std::string::npos) << m;
  }
}

// Output reads NO_COLOR itself: with --color always it still colours, with auto it cannot
// (the test's stdout is not a terminal under ctest, and NO_COLOR is set besides).
TEST(CliOutput, OutputHonoursTheModeOverTheEnvironment) {
  ::setenv("NO_COLOR", "1", 1);
  OutputArgs a;
  a.color = "always";
  EXPECT_TRUE(Output(a).color());
  a.color = "auto";
  EXPECT_FALSE(Output(a).color());
  ::unsetenv("NO_COLOR");
  a.color = "never";
  EXPECT_FALSE(Output(a).color());
}

TEST(CliOutput, JsonOnStdoutMovesTheTextToStderr) {
  OutputArgs a;
  EXPECT_EQ(Output(a).text_stream(), stdout);
  a.json_path = "-";
  EXPECT_TRUE(Output(a).json_to_stdout());
  EXPECT_EQ(Output(a).text_stream(), stderr);
  a.quiet = true;
  EXPECT_FALSE(Output(a).progress());
}

class CliOutputFiles : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-cli-output-test"); }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string m_dir;
};

TEST_F(CliOutputFiles, WritesJsonToAFile) {
  OutputArgs a;
  a.json_path = m_dir + "/r.json";
  Output(a).write_json({{"schema", "kdet.test/1"}});
  EXPECT_EQ(read_file(a.json_path), "{\n  \"schema\": \"kdet.test/1\"\n}\n");
}

TEST_F(CliOutputFiles, NoJsonOptionWritesNothing) {
  OutputArgs a;
  Output(a).write_json({{"x", 1}});
  EXPECT_TRUE(fs::is_empty(m_dir));
}

// A private null device stands where --json points: it is written through, never replaced.
TEST_F(CliOutputFiles, NeverReplacesADeviceNode) {
  std::string null = m_dir + "/null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (not root?): " << std::strerror(errno);
  OutputArgs a;
  a.json_path = null;
  Output(a).write_json({{"x", 1}});
  struct stat st {};
  ASSERT_EQ(::lstat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced";
}

// A link to nothing is refused: --json never creates the file a planted link names.
TEST_F(CliOutputFiles, RefusesALinkToNothing) {
  std::string link = m_dir + "/r.json", target = m_dir + "/elsewhere";
  fs::create_symlink(target, link);
  OutputArgs a;
  a.json_path = link;
  EXPECT_THROW(Output(a).write_json({{"x", 1}}), Error);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::is_symlink(link));
}

} // namespace
