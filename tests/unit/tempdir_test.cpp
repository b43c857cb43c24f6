// util/tempdir: kdet's temporary folders, and the sweep of those a killed kdet left.
#include "kdet/util/fs.hpp"
#include "kdet/util/tempdir.hpp"
#include "process_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
namespace fs = std::filesystem;

namespace {

// A private TMPDIR for one test.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char* old = std::getenv("TMPDIR");
    m_old = old ? old : "";
    m_dir = make_temp_dir("kdet-tempdir-test");
    ::setenv("TMPDIR", m_dir.c_str(), 1);
  }
  void TearDown() override {
    if (m_old.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", m_old.c_str(), 1);
    remove_tree(m_dir);
  }
  std::string m_dir, m_old;
};

} // namespace

TEST_F(TempDirTest, FolderIsNamedForItsOwnerAndRemovedAfter) {
  std::string path;
  {
    TempDir t("run");
    path = t.path();
    std::string name = fs::path(path).filename();
    EXPECT_EQ(name.rfind("kdet-run-" + std::to_string(::getpid()) + "-", 0), 0u) << name;
    std::ofstream(path + "/file") << "x";
    fs::create_directories(path + "/a/b");
    EXPECT_EQ(sweep_stale_temp_dirs(), 0u); // its owner runs: kept
    EXPECT_TRUE(fs::exists(path + "/file"));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(TempDirTest, SweepRemovesOnlyWhatDeadKdetsLeftAndFollowsNoLink) {
  std::string stale = m_dir + "/kdet-run-" + std::to_string(test::dead_pid()) + "-12345-abcdef";
  fs::create_directories(stale + "/s0");
  std::ofstream(stale + "/s0/input") << "x";
  // A link inside a stale folder is removed, not followed.
  std::string outside = m_dir + "/outside";
  fs::create_directories(outside);
  std::ofstream(outside + "/keep") << "x";
  fs::create_directory_symlink(outside, stale + "/link");
  // A link named like a stale folder is not a folder kdet made.
  fs::create_directory_symlink(outside, m_dir + "/kdet-cache-verify-" +
                                            std::to_string(test::dead_pid()) + "-1-zzzzzz");
  // Not of kdet's form: left alone.
  fs::create_directories(m_dir + "/kdet-e2e.abcdef");
  fs::create_directories(m_dir + "/kdet-run-notapid-1-abcdef");

  EXPECT_EQ(sweep_stale_temp_dirs(), 1u);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(outside + "/keep"));
  EXPECT_TRUE(fs::exists(m_dir + "/kdet-e2e.abcdef"));
  EXPECT_TRUE(fs::exists(m_dir + "/kdet-run-notapid-1-abcdef"));
}
