// Unit tests for cache/maintain: gc under a size limit, stats, size parsing.
#include "kdet/cache/key.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <cmath>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>

using namespace kdet;
using namespace kdet::cache;

namespace {

struct ScratchDir {
  std::string path = make_temp_dir("kdet-cache-gc");
  ~ScratchDir() { remove_tree(path); }
};

std::string key_for(int i) {
  KeyMaterial m;
  m.backend = "capi";
  m.compiler.content_hash = "test-compiler";
  m.input_hash = hash_bytes("input " + std::to_string(i));
  return compute_key(m);
}

void set_used(Store& s, const std::string& key, long t) {
  timespec ts[2] = {{t, 0}, {t, 0}};
  ::utimensat(AT_FDCWD, (s.entry_dir(key) + "/log").c_str(), ts, 0);
  ::utimensat(AT_FDCWD, (s.entry_dir(key) + "/key.json").c_str(), ts, 0);
}

} // namespace

TEST(CacheGc, ParseSize) {
  EXPECT_EQ(parse_size("500", "--max-size"), 500u);
  EXPECT_EQ(parse_size("64K", "--max-size"), 64u * 1024);
  EXPECT_EQ(parse_size("2g", "--max-size"), 2ull << 30);
  EXPECT_EQ(parse_size("10MB", "--max-size"), 10u << 20);
  EXPECT_THROW(parse_size("lots", "--max-size"), Error);
  EXPECT_EQ(parse_size("15T", "--max-size"), 15ull << 40);
  // 16777216T is 2^64 bytes: it used to wrap to 0 and empty the cache.
  EXPECT_THROW(parse_size("16777216T", "--max-size"), Error);
  EXPECT_THROW(parse_size("18446744073709551616", "--max-size"), Error);
  EXPECT_THROW(parse_size("-1", "--max-size"), Error);
  EXPECT_EQ(parse_size("18446744073709551615", "--max-size"), UINT64_MAX);
  EXPECT_THROW(check_staging_age(-1, "--staging-age"), Error);
  EXPECT_THROW(check_staging_age(std::nan(""), "--staging-age"), Error);
  EXPECT_EQ(check_staging_age(0, "--staging-age"), 0);
}

TEST(CacheGc, ShrinksBelowLimitLeastRecentlyUsedFirstKeepingEvidence) {
  ScratchDir t;
  Store s(t.path);
  std::vector<std::string> keys;
  const std::string blob(20000, 'x');
  for (int i = 0; i < 10; ++i) {
    keys.push_back(key_for(i));
    s.put(keys[i], {{"n", i}}, "", {{"ptx", blob + std::to_string(i)}}, Origin{});
  }
  // Key 0 is the oldest but holds two variants: evidence, removed last.
  s.put(keys[0], {{"n", 0}}, "", {{"ptx", blob + "other"}}, Origin{});
  for (int i = 0; i < 10; ++i)
    set_used(s, keys[i], 1000000 + i * 10);
  set_used(s, keys[3], 2000000); // key 3 used most recently

  // A stale staging folder (a writer killed mid-write) and a fresh one.
  std::string stale = s.make_staging().path(); // its writer is gone: unlocked
  timespec old[2] = {{1000, 0}, {1000, 0}};
  ::utimensat(AT_FDCWD, stale.c_str(), old, 0);
  std::string fresh = s.make_staging().path();
  Staging live = s.make_staging(); // a write in progress: locked, and old
  ::utimensat(AT_FDCWD, live.path().c_str(), old, 0);

  auto before = cache_stats(s);
  EXPECT_EQ(before["keys"], 10);
  EXPECT_EQ(before["variants"], 11);
  uint64_t limit = 100000;
  GcResult r = gc(s, limit);
  EXPECT_EQ(r.staging_removed, 1u);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(fresh));
  EXPECT_TRUE(std::filesystem::exists(live.path()))
      << "a locked staging folder is a write in progress";
  gc(s, UINT64_MAX, 0);
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "age 0 removes every abandoned staging folder";
  EXPECT_TRUE(std::filesystem::exists(live.path()))
      << "even age 0 never removes a write in progress";
  EXPECT_LE(r.bytes_after, limit);
  EXPECT_GT(r.keys_removed, 0u);
  EXPECT_TRUE(s.lookup(keys[0], false).hit) << "the multi-variant key (evidence) survives";
  EXPECT_TRUE(s.lookup(keys[3], false).hit) << "the most recently used key survives";
  EXPECT_FALSE(s.lookup(keys[1], false).hit)
      << "the least recently used single-variant key goes first";
  auto after = cache_stats(s);
  EXPECT_EQ(after["keys"].get<uint64_t>(), 10 - r.keys_removed);
  EXPECT_EQ(after["keys_with_variants"], 1);

  // A limit of zero empties the cache, evidence included.
  gc(s, 0);
  EXPECT_TRUE(s.keys().empty());
}

// A writer makes its staging folder under a dot name, locks it, then renames it into view. One
// killed between the first two steps leaves an unlocked dot folder: age 0 removes it at once,
// while a dot folder whose writer holds the lock (it is about to rename) stays.
TEST(CacheGc, AgeZeroRemovesAWriterKilledAtBirthAndKeepsOneBeingBorn) {
  ScratchDir t;
  Store s(t.path);
  s.make_staging(); // makes tmp/ (and leaves an abandoned folder, removed below too)
  std::string tmp = t.path + "/v1/tmp";
  std::string dead = tmp + "/.4242.0.dead";
  std::string born = tmp + "/.4242.1.born";
  ASSERT_EQ(::mkdir(dead.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(born.c_str(), 0700), 0);
  int lock = ::open(born.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);

  GcResult r = gc(s, UINT64_MAX, 0);
  EXPECT_EQ(r.staging_removed, 2u);
  EXPECT_FALSE(std::filesystem::exists(dead)) << "nobody will rename a dead writer's folder";
  EXPECT_TRUE(std::filesystem::exists(born)) << "its writer holds the lock: a write in progress";
  ::close(lock);
  // Once that writer is gone too, nothing is left.
  gc(s, UINT64_MAX, 0);
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
  // A writer still makes a folder in a tmp/ that gc is emptying.
  Staging again = s.make_staging();
  EXPECT_TRUE(std::filesystem::exists(again.path()));
}
