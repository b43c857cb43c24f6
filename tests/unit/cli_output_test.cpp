// cli/output: the colour and progress decision tables, the progress line's steady clock
// format, and --json writing through util/fs's write_output.
#include "kdet/cli/output.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
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
  EXPECT_EQ(Output(a).progress(), ProgressMode::off);
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

TEST(CliOutput, ProgressModeTable) {
  TerminalFacts tty{true, "", "xterm"}, dumb{true, "", "dumb"}, pipe{false, "", "xterm"};
  EXPECT_EQ(decide_progress(false, false, tty), ProgressMode::redraw);
  EXPECT_EQ(decide_progress(false, true, tty), ProgressMode::redraw);
  EXPECT_EQ(decide_progress(false, false, dumb), ProgressMode::lines);
  EXPECT_EQ(decide_progress(false, false, pipe), ProgressMode::off);
  EXPECT_EQ(decide_progress(false, true, pipe), ProgressMode::lines);
  EXPECT_EQ(decide_progress(true, true, tty), ProgressMode::off);
  EXPECT_EQ(decide_progress(true, true, pipe), ProgressMode::off);
}

TEST(CliOutput, ClockTextKeepsOneFormat) {
  EXPECT_EQ(clock_text(0), "0:00");
  EXPECT_EQ(clock_text(7.4), "0:07");
  EXPECT_EQ(clock_text(58.78), "0:59");
  EXPECT_EQ(clock_text(63), "1:03");
  EXPECT_EQ(clock_text(3599.4), "59:59");
  EXPECT_EQ(clock_text(3723), "1:02:03");
  EXPECT_EQ(clock_text(-1), "?");
  EXPECT_EQ(clock_text(std::nan("")), "?");
  EXPECT_EQ(progress_tail(30, 2.0, 63), "30 runs, 15.0 runs/s, elapsed 0:02, ETA 1:03");
  EXPECT_EQ(progress_tail(1, 0, std::nan("")), "1 run, 0.0 runs/s, elapsed 0:00");
  EXPECT_EQ(progress_tail(30, 2.0, 0, false), "15.0 runs/s, elapsed 0:02, ETA 0:00");
}

// What a plain (off-terminal) progress line writes while `drive` shows lines on it.
std::string plain_progress(const std::function<void(ProgressLine&)>& drive) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  if (f == nullptr) return "open_memstream failed";
  {
    ProgressLine line(ProgressMode::lines, f);
    drive(line);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

TEST(CliOutput, PlainProgressLinesHaveNoEscapes) {
  EXPECT_EQ(plain_progress([](ProgressLine& line) {
              line.show("first");
              line.show("second, too soon"); // within k_progress_line_interval of the first
              line.show("last", true);
              line.clear();
            }),
            "first\nlast\n");
}

// A last line the same as the line before (a one-job scan) is written once.
TEST(CliOutput, PlainProgressLineIsNotRepeated) {
  EXPECT_EQ(plain_progress([](ProgressLine& line) {
              line.show("[1/1 jobs] done");
              line.show("[1/1 jobs] done", true);
            }),
            "[1/1 jobs] done\n");
}

} // namespace
