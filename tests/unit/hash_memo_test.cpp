//===- tests/unit/hash_memo_test.cpp - remembered file hashes -----------------===//
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/hash_memo.hpp"

#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

using namespace kdet;

namespace {

class HashMemo : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = make_temp_dir("kdet-hashmemo-test");
    m_memo = m_dir + "/memo";
    m_file = m_dir + "/lib.so";
    write_file_atomic(m_file, "first content");
    age(m_file);
  }
  void TearDown() override { remove_tree(m_dir); }

  // Sets the file's mtime an hour back (its ctime stays now: the memo must still wait for it).
  static void age(const std::string& path) {
    struct utimbuf t {};
    t.actime = t.modtime = ::time(nullptr) - 3600;
    ::utime(path.c_str(), &t);
  }

  // The one entry in the memo folder ("" when there is none).
  std::string entry() const {
    std::string found;
    if (DIR* d = ::opendir(m_memo.c_str())) {
      while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') found = m_memo + "/" + e->d_name;
      ::closedir(d);
    }
    return found;
  }

  std::string m_dir, m_memo, m_file;
};

} // namespace

TEST_F(HashMemo, AFreshlyChangedFileIsHashedButNotRemembered) {
  // Its ctime is now: a change within the timestamps' granularity could go unseen.
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), hash_file(m_file));
  EXPECT_EQ(entry(), "");
}

TEST_F(HashMemo, ARememberedHashIsUsedWhileTheFileIsUnchanged) {
  // Write an entry as kdet would for a settled file, then make the file's content differ
  // behind the memo's back without touching its stamps: the memo's answer shows it was used.
  const std::string real = hash_file(m_file);
  struct stat st {};
  ASSERT_EQ(::stat(m_file.c_str(), &st), 0);
  make_dirs(m_memo);
  ::chmod(m_memo.c_str(), 0700);
  const std::string fake(32, 'a');
  char key[64];
  std::snprintf(key, sizeof key, "%lx-%lx", static_cast<unsigned long>(st.st_dev),
                static_cast<unsigned long>(st.st_ino));
  const std::string line =
      "kdet-file-hash 1 " + std::to_string(st.st_size) + " " +
      std::to_string(st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec) + " " +
      std::to_string(st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec) + " " + fake + "\n";
  write_file_atomic(m_memo + "/" + key, line);
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), fake);
  EXPECT_EQ(remembered_file_hash(m_file, ""), real) << "no memo folder: always hashed";

  // Any change moves ctime: the entry no longer matches and the file is hashed again.
  write_file_atomic(m_file + ".tmp", "other content");
  ::rename((m_file + ".tmp").c_str(), m_file.c_str());
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), hash_file(m_file));
  EXPECT_NE(remembered_file_hash(m_file, m_memo), fake);
}

TEST_F(HashMemo, AnEntryThatIsALinkOrDamagedIsIgnored) {
  struct stat st {};
  ASSERT_EQ(::stat(m_file.c_str(), &st), 0);
  make_dirs(m_memo);
  char key[64];
  std::snprintf(key, sizeof key, "%lx-%lx", static_cast<unsigned long>(st.st_dev),
                static_cast<unsigned long>(st.st_ino));
  const std::string real = hash_file(m_file);
  // A planted link to a file with a forged entry: never followed.
  const std::string forged = m_dir + "/forged";
  write_file_atomic(forged, "kdet-file-hash 1 " + std::to_string(st.st_size) + " 0 0 " +
                                std::string(32, 'b') + "\n");
  ASSERT_EQ(::symlink(forged.c_str(), (m_memo + "/" + key).c_str()), 0);
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), real);
  // Garbage in the entry: hashed again.
  ::unlink((m_memo + "/" + key).c_str());
  write_file_atomic(m_memo + "/" + key, "garbage\n");
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), real);
}

TEST_F(HashMemo, ASettledFileIsRememberedOnlyInAPrivateFolder) {
  // Judged three seconds from now, the file's ctime is over two seconds old: settled.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t later = (static_cast<int64_t>(now.tv_sec) + 3) * 1000000000 + now.tv_nsec;
  const std::string real = hash_file(m_file);
  make_dirs(m_memo);
  ::chmod(m_memo.c_str(), 0777);
  EXPECT_EQ(remembered_file_hash(m_file, m_memo, later), real);
  EXPECT_EQ(entry(), "") << "nothing is written into a folder others can write";

  remove_tree(m_memo);
  EXPECT_EQ(remembered_file_hash(m_file, m_memo, later), real);
  struct stat st {};
  ASSERT_EQ(::stat(m_memo.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_NE(entry(), "");
  const std::string text = read_file(entry());
  EXPECT_EQ(text.substr(0, 17), "kdet-file-hash 1 ");
  EXPECT_NE(text.find(real), std::string::npos);
  EXPECT_EQ(remembered_file_hash(m_file, m_memo), real);
}

TEST(HashMemoDir, TheEnvironmentChoosesTheFolder) {
  const char* old = std::getenv("KDET_HASH_MEMO");
  std::string saved = old ? old : "";
  ::setenv("KDET_HASH_MEMO", "off", 1);
  EXPECT_EQ(hash_memo_dir(), "");
  ::setenv("KDET_HASH_MEMO", "/some/where", 1);
  EXPECT_EQ(hash_memo_dir(), "/some/where");
  if (old)
    ::setenv("KDET_HASH_MEMO", saved.c_str(), 1);
  else
    ::unsetenv("KDET_HASH_MEMO");
}
