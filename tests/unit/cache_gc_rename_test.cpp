// Unit test for cache/maintain's gc when it cannot rename an entry out of the live tree.
#include "kdet/cache/key.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::cache;

// gc renames an entry into a staging folder before removing it (readers see it whole or gone).
// When that rename fails, the entry must still be removed, in place: it once was silently kept,
// so a cache over its limit stayed over it. A bind mount of the entry's parent onto itself, in a
// private mount namespace of a child process, makes the rename fail with EXDEV.
TEST(CacheGcRename, EntryIsRemovedWhenItCannotBeRenamed) {
  const std::string root = make_temp_dir("kdet-cache-gc-rename");
  KeyMaterial m;
  m.backend = "capi";
  m.compiler.content_hash = "test-compiler";
  m.input_hash = hash_bytes("input");
  const std::string key = compute_key(m);
  std::string entry;
  {
    Store s(root);
    s.put(key, {{"n", 1}}, "", {{"ptx", std::string(4096, 'x')}}, Origin{});
    entry = s.entry_dir(key);
  }
  ASSERT_TRUE(std::filesystem::is_directory(entry));
  const std::string shard = std::filesystem::path(entry).parent_path().string();

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // 77: no private mount namespace here (no CAP_SYS_ADMIN); the mount stays inside the child.
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(shard.c_str(), shard.c_str(), nullptr, MS_BIND, nullptr) != 0)
      ::_exit(77);
    Store s(root);
    GcResult r = gc(s, 0, 1e9);
    ::_exit(r.keys_removed == 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    remove_tree(root);
    GTEST_SKIP() << "needs a private mount namespace (unshare(CLONE_NEWNS) and a bind mount)";
  }
  EXPECT_EQ(WEXITSTATUS(status), 0) << "gc did not count the entry as removed";
  EXPECT_FALSE(std::filesystem::exists(entry)) << entry << " is still there after gc";
  remove_tree(root);
}
