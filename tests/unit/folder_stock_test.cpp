// util/folder_stock: a folder given back is renamed to the next path asked for only while nothing
// was done to it since the stock made it; anything else is removed and a new one made.
#include "kdet/util/folder_stock.hpp"
#include "kdet/util/fs.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

using namespace kdet;

namespace {

class FolderStockTest : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-folder-stock-test"); }
  void TearDown() override { remove_tree(m_dir); }

  std::string path(const std::string& name) const { return m_dir + "/" + name; }
  static struct stat stat_of(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st;
  }
  static bool exists(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0;
  }
  static bool empty_dir(const std::string& p) {
    DIR* d = ::opendir(p.c_str());
    if (!d) return false;
    size_t entries = 0;
    while (const dirent* e = ::readdir(d))
      entries += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    ::closedir(d);
    return entries == 0;
  }

  std::string m_dir;
};

} // namespace

TEST_F(FolderStockTest, AFolderGivenBackBecomesTheNextOneByRename) {
  FolderStock stock;
  stock.make(path("c1-aaaa"));
  const auto first = stat_of(path("c1-aaaa"));
  EXPECT_TRUE(S_ISDIR(first.st_mode));
  stock.give_back(path("c1-aaaa"));
  EXPECT_EQ(stock.spares(), 1u);
  const auto before = std::chrono::system_clock::now();
  stock.make(path("c2-bbbbbb"));
  EXPECT_FALSE(exists(path("c1-aaaa")));
  const auto second = stat_of(path("c2-bbbbbb"));
  EXPECT_EQ(second.st_ino, first.st_ino); // the same folder, moved
  EXPECT_EQ(second.st_mode, first.st_mode);
  EXPECT_TRUE(empty_dir(path("c2-bbbbbb")));
  // Its times are a new folder's: now, not when it was first made.
  const auto mtime = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(second.st_mtim.tv_sec) +
          std::chrono::nanoseconds(second.st_mtim.tv_nsec)));
  EXPECT_GE(mtime, before - std::chrono::milliseconds(20)); // the kernel's clock ticks coarser
  EXPECT_EQ(stock.made(), 1u);
  EXPECT_EQ(stock.reused(), 1u);
  EXPECT_EQ(stock.spares(), 0u);
}

TEST_F(FolderStockTest, AFolderLeftWithAFileInItIsRemovedAndANewOneMade) {
  FolderStock stock;
  stock.make(path("t1-x"));
  write_file_atomic(path("t1-x/left.tmp"), "a compiler's temporary file\n");
  stock.give_back(path("t1-x"));
  stock.make(path("t2-y"));
  EXPECT_FALSE(exists(path("t1-x")));
  EXPECT_TRUE(empty_dir(path("t2-y")));
  EXPECT_EQ(stock.made(), 2u);
  EXPECT_EQ(stock.reused(), 0u);
}

TEST_F(FolderStockTest, AFolderLeftWithAnEmptyFolderInItIsNotReused) {
  FolderStock stock;
  stock.make(path("c1"));
  ASSERT_EQ(::mkdir(path("c1/sub").c_str(), 0755), 0);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  EXPECT_TRUE(empty_dir(path("c2")));
  EXPECT_FALSE(exists(path("c1")));
  EXPECT_EQ(stock.reused(), 0u);
}

// A file written and removed again moves the folder's time: it is then read to be sure, and
// reused since it is empty.
// A folder something was made in is not reused even when emptied again: a folder does not
// shrink, and what else a compiler did to it cannot all be seen.
TEST_F(FolderStockTest, AFolderWrittenAndEmptiedAgainIsNotReused) {
  FolderStock stock;
  stock.make(path("c1"));
  write_file_atomic(path("c1/f"), "x");
  ASSERT_EQ(::unlink(path("c1/f").c_str()), 0);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  EXPECT_EQ(stock.reused(), 0u);
  EXPECT_EQ(stock.made(), 2u);
  EXPECT_TRUE(empty_dir(path("c2")));
  EXPECT_FALSE(exists(path("c1")));
}

// A compiler that hides a file by setting its folder's times back is seen by the change time,
// which no program can set.
TEST_F(FolderStockTest, AFileHiddenBySettingTheFoldersTimesBackIsNotCarriedOn) {
  FolderStock stock;
  stock.make(path("c1"));
  const auto first = stat_of(path("c1"));
  write_file_atomic(path("c1/leak"), "x");
  const timespec times[2] = {first.st_atim, first.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path("c1").c_str(), times, 0), 0);
  ASSERT_EQ(stat_of(path("c1")).st_mtim.tv_nsec, first.st_mtim.tv_nsec);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  EXPECT_EQ(stock.reused(), 0u);
  EXPECT_TRUE(empty_dir(path("c2")));
}

// Extended attributes (and so default ACLs) on the folder itself go with it.
TEST_F(FolderStockTest, AnExtendedAttributeOnTheFolderIsNotCarriedOn) {
  FolderStock stock;
  stock.make(path("c1"));
  if (::setxattr(path("c1").c_str(), "user.kdet", "1", 1, 0) != 0)
    GTEST_SKIP() << "this file system takes no user extended attributes: " << std::strerror(errno);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  EXPECT_EQ(stock.reused(), 0u);
  char buf[8];
  EXPECT_LT(::getxattr(path("c2").c_str(), "user.kdet", buf, sizeof buf), 0);
}

TEST_F(FolderStockTest, AFolderWhoseModeChangedIsNotReused) {
  FolderStock stock;
  stock.make(path("c1"));
  const auto first = stat_of(path("c1"));
  ASSERT_EQ(::chmod(path("c1").c_str(), 0700), 0);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  const auto second = stat_of(path("c2"));
  EXPECT_EQ(second.st_mode & 07777, first.st_mode & 07777); // mkdir's mode, as the first had
  EXPECT_EQ(stock.reused(), 0u);
}

TEST_F(FolderStockTest, ALinkPutInAFoldersPlaceIsRemovedNeverFollowed) {
  FolderStock stock;
  stock.make(path("c1"));
  ASSERT_EQ(::mkdir(path("elsewhere").c_str(), 0755), 0);
  write_file_atomic(path("elsewhere/keep"), "not the stock's\n");
  remove_tree(path("c1"));
  ASSERT_EQ(::symlink(path("elsewhere").c_str(), path("c1").c_str()), 0);
  stock.give_back(path("c1"));
  stock.make(path("c2"));
  EXPECT_FALSE(exists(path("c1")));
  EXPECT_TRUE(exists(path("elsewhere/keep")));
  const auto second = stat_of(path("c2"));
  EXPECT_TRUE(S_ISDIR(second.st_mode));
  EXPECT_TRUE(empty_dir(path("c2")));
  EXPECT_EQ(stock.reused(), 0u);
}

TEST_F(FolderStockTest, ASpareIsNeverRenamedOverAnExistingPath) {
  FolderStock stock;
  stock.make(path("c1"));
  stock.give_back(path("c1"));
  ASSERT_EQ(::mkdir(path("taken").c_str(), 0755), 0);
  write_file_atomic(path("taken/mine"), "x");
  stock.make(path("taken")); // mkdir -p: an existing folder is fine, and kept as it was
  EXPECT_TRUE(exists(path("taken/mine")));
  EXPECT_EQ(stock.reused(), 0u);
}

TEST_F(FolderStockTest, APathItDidNotMakeIsRemovedWhenGivenBack) {
  FolderStock stock;
  ASSERT_EQ(::mkdir(path("other").c_str(), 0755), 0);
  write_file_atomic(path("other/f"), "x");
  stock.give_back(path("other"));
  EXPECT_FALSE(exists(path("other")));
  EXPECT_EQ(stock.spares(), 0u);
}

TEST_F(FolderStockTest, MakeCreatesMissingParentsAndNamesAFolderItCannotMake) {
  FolderStock stock;
  stock.make(path("a/b/c"));
  EXPECT_TRUE(S_ISDIR(stat_of(path("a/b/c")).st_mode));
  write_file_atomic(path("file"), "x");
  try {
    stock.make(path("file/sub"));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(path("file/sub")), std::string::npos) << e.what();
  }
}

TEST_F(FolderStockTest, SparesOfAFolderThatGoesMoveToThePark) {
  FolderStock stock(true);
  ASSERT_EQ(::mkdir(path("round1").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(path("round2").c_str(), 0755), 0);
  stock.make(path("round1/c1"));
  const auto first = stat_of(path("round1/c1"));
  stock.give_back(path("round1/c1"));
  stock.leave(path("round1"));
  EXPECT_FALSE(exists(path("round1/c1")));
  remove_tree(path("round1"));
  EXPECT_EQ(stock.spares(), 1u);
  stock.make(path("round2/c7"));
  EXPECT_EQ(stat_of(path("round2/c7")).st_ino, first.st_ino);
  EXPECT_EQ(stock.reused(), 1u);
}

TEST_F(FolderStockTest, WithoutAParkSparesGoWithTheirFolder) {
  FolderStock stock;
  ASSERT_EQ(::mkdir(path("round1").c_str(), 0755), 0);
  stock.make(path("round1/c1"));
  stock.give_back(path("round1/c1"));
  stock.leave(path("round1"));
  EXPECT_EQ(stock.spares(), 0u);
  EXPECT_TRUE(exists(path("round1/c1"))); // left for the folder's owner to remove
  stock.make(path("c2"));
  EXPECT_EQ(stock.made(), 2u);
}

TEST_F(FolderStockTest, KeepsAtMostItsBoundOfSpares) {
  FolderStock stock;
  const size_t n = FolderStock::k_max_spares + 3;
  for (size_t i = 0; i < n; ++i)
    stock.make(path("f" + std::to_string(i)));
  for (size_t i = 0; i < n; ++i)
    stock.give_back(path("f" + std::to_string(i)));
  EXPECT_EQ(stock.spares(), FolderStock::k_max_spares);
  for (size_t i = FolderStock::k_max_spares; i < n; ++i)
    EXPECT_FALSE(exists(path("f" + std::to_string(i))));
}

// A compiler that puts a link in its input folder's place: kdet's removal of its input copy must
// not reach the file of that name where the link points.
TEST_F(FolderStockTest, UnlinkInFolderNeverGoesThroughALinkInTheFoldersPlace) {
  ASSERT_EQ(::mkdir(path("victim").c_str(), 0755), 0);
  write_file_atomic(path("victim/in.ll"), "precious");
  ASSERT_EQ(::symlink(path("victim").c_str(), path("p1").c_str()), 0);
  unlink_in_folder(path("p1/in.ll"));
  EXPECT_TRUE(exists(path("victim/in.ll")));
  ASSERT_EQ(::mkdir(path("p2").c_str(), 0755), 0);
  write_file_atomic(path("p2/in.ll"), "kdet's copy");
  unlink_in_folder(path("p2/in.ll"));
  EXPECT_FALSE(exists(path("p2/in.ll")));
}
