// Unit tests for cache/store and cache/maintain against planted links: a link
// anywhere below DIR/v1 is refused (or skipped with a warning) and nothing
// outside the cache is read, written, appended to or deleted. Also the shared
// (group-writable) mode.
#include "kdet/cache/key.hpp"
#include "kdet/cache/maintain.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/cache/trust.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::cache;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  std::string path = make_temp_dir("kdet-cache-links");
  ~ScratchDir() { remove_tree(path); }
};

std::string key_for(int i) {
  KeyMaterial m;
  m.backend = "capi";
  m.compiler.content_hash = "test-compiler";
  m.input_hash = hash_bytes("input " + std::to_string(i));
  return compute_key(m);
}

// A folder outside the cache holding one file that must survive untouched.
struct Victim {
  std::string dir;
  std::string file;
  explicit Victim(const std::string& base)
      : dir(base + "/victim"), file(base + "/victim/precious") {
    make_dirs(dir);
    write_file_atomic(file, "precious\n");
  }
  bool intact() const {
    std::error_code ec;
    if (!fs::exists(file, ec)) return false;
    return read_file(file) == "precious\n" &&
           fs::directory_iterator(dir) != fs::directory_iterator() &&
           std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1;
  }
};

bool any_mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const auto& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

} // namespace

TEST(CacheLinks, LinkAtTmpIsRefusedAndGcDeletesNothingOutside) {
  ScratchDir t;
  Victim v(t.path);
  Store s(t.path + "/c");
  make_dirs(t.path + "/c/v1");
  fs::create_symlink(v.dir, t.path + "/c/v1/tmp");
  EXPECT_THROW(s.put(key_for(1), {{"n", 1}}, "", {{"ptx", "x"}}, Origin{}), Error);
  GcResult r = gc(s, 0, 0);
  EXPECT_TRUE(v.intact());
  EXPECT_EQ(r.staging_removed, 0u);
  EXPECT_TRUE(any_mentions(r.warnings, "v1/tmp")) << "gc names the link it skipped";
}

TEST(CacheLinks, LinkAtDamagedIsNeverAMoveTarget) {
  ScratchDir t;
  Victim v(t.path);
  Store s(t.path + "/c");
  std::string key = key_for(2);
  PutResult p = s.put(key, {{"n", 2}}, "", {{"ptx", "good bytes"}}, Origin{});
  fs::create_symlink(v.dir, t.path + "/c/v1/damaged");
  write_file_atomic(s.entry_dir(key) + "/variants/" + p.variant + "/a0", "bad bytes!");
  Lookup l = s.lookup(key);
  EXPECT_FALSE(l.hit);
  EXPECT_TRUE(v.intact());
  EXPECT_TRUE(any_mentions(l.warnings, "damaged"));
  GcResult r = gc(s, 0, 0);
  EXPECT_TRUE(v.intact()) << "gc must not delete through a damaged/ link";
}

TEST(CacheLinks, LinkAtALogIsNeverAppendedTo) {
  ScratchDir t;
  Victim v(t.path);
  Store s(t.path + "/c");
  std::string key = key_for(3);
  s.put(key, {{"n", 3}}, "", {{"ptx", "x"}}, Origin{});
  std::string log = s.entry_dir(key) + "/log";
  fs::remove(log);
  fs::create_symlink(v.file, log);
  s.log_event(key, {{"event", "verify"}});
  s.put(key, {{"n", 3}}, "", {{"ptx", "another"}}, Origin{});
  EXPECT_TRUE(v.intact());
  EXPECT_TRUE(any_mentions(s.take_warnings(), "/log"));
  EXPECT_TRUE(s.events(key).empty()) << "a linked log is not read either";
}

TEST(CacheLinks, LinkAtAnEntriesPrefixIsNeverWrittenThrough) {
  ScratchDir t;
  Victim v(t.path);
  Store s(t.path + "/c");
  std::string key = key_for(4);
  make_dirs(t.path + "/c/v1/entries");
  fs::create_symlink(v.dir, t.path + "/c/v1/entries/" + key.substr(0, 2));
  EXPECT_THROW(s.put(key, {{"n", 4}}, "", {{"ptx", "x"}}, Origin{}), Error);
  EXPECT_FALSE(s.lookup(key).hit);
  EXPECT_TRUE(s.keys().empty());
  EXPECT_TRUE(v.intact());
  gc(s, 0, 0);
  EXPECT_TRUE(v.intact());
}

TEST(CacheLinks, LinkedArtifactOrMetaIsDamageNotARead) {
  ScratchDir t;
  Victim v(t.path);
  Store s(t.path + "/c");
  std::string key = key_for(5);
  PutResult p = s.put(key, {{"n", 5}}, "", {{"ptx", "precious\n"}}, Origin{});
  std::string a0 = s.entry_dir(key) + "/variants/" + p.variant + "/a0";
  fs::remove(a0);
  fs::create_symlink(v.file, a0); // same bytes, so only the link check can refuse it
  EXPECT_FALSE(s.lookup(key).hit);
  EXPECT_TRUE(v.intact());
}

TEST(CacheLinks, LinkAtV1IsRefused) {
  ScratchDir t;
  Victim v(t.path);
  make_dirs(t.path + "/c");
  fs::create_symlink(v.dir, t.path + "/c/v1");
  Store s(t.path + "/c");
  EXPECT_THROW(s.put(key_for(6), {{"n", 6}}, "", {{"ptx", "x"}}, Origin{}), Error);
  EXPECT_FALSE(s.lookup(key_for(6)).hit);
  gc(s, 0, 0);
  EXPECT_TRUE(v.intact());
}

TEST(CacheShared, GroupWritableCacheMakesAppendedFilesGroupWritableAndRecordsNot) {
  ScratchDir t;
  std::string dir = t.path + "/shared";
  make_dirs(dir);
  ::chmod(dir.c_str(), 02775);
  mode_t old = ::umask(022);
  Store s(dir);
  EXPECT_TRUE(s.shared());
  std::string key = key_for(7);
  PutResult p = s.put(key, {{"n", 7}}, "input", {{"ptx", "x"}}, Origin{});
  s.count('h'); // the served-compile counters, appended as the log is
  ::umask(old);
  auto mode = [](const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode(dir + "/v1"), 02775u);
  EXPECT_EQ(mode(s.entry_dir(key)), 02775u);
  EXPECT_EQ(mode(s.entry_dir(key) + "/log"), 0664u);
  EXPECT_EQ(mode(dir + "/v1/counters"), 0664u);
  // Files written once are records of trust: no other member may rewrite them.
  EXPECT_EQ(mode(s.entry_dir(key) + "/key.json"), 0644u);
  EXPECT_EQ(mode(s.entry_dir(key) + "/variants/" + p.variant + "/a0"), 0644u);
  EXPECT_EQ(mode(s.entry_dir(key) + "/variants/" + p.variant + "/meta.json"), 0644u);

  ScratchDir u;
  Store priv(u.path + "/private");
  make_dirs(u.path + "/private");
  ::chmod((u.path + "/private").c_str(), 0755);
  Store priv2(u.path + "/private");
  EXPECT_FALSE(priv2.shared());
}

// The trust model: a group member's variant is passed over, never served, until this user's own
// compile gives the same artifacts; a log line or a trust marker the member writes changes
// nothing, since they own what they write.
TEST(CacheShared, AnotherMembersVariantIsNotServedUntilThisUsersCompileGivesIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to hand files to another uid";
  ScratchDir t;
  std::string dir = t.path + "/shared";
  make_dirs(dir);
  ::chmod(dir.c_str(), 02775);
  Store s(dir);
  const std::string key = key_for(8);
  const uid_t member = 65533;
  auto plant = [&](const std::string& data) {
    PutResult p = s.put(key, {{"n", 8}}, "input", {{"ptx", data}}, Origin{});
    std::string v = s.entry_dir(key) + "/variants/" + p.variant;
    for (const auto& e : fs::directory_iterator(v))
      EXPECT_EQ(::lchown(e.path().c_str(), member, member), 0);
    EXPECT_EQ(::lchown(v.c_str(), member, member), 0);
    return p.variant;
  };
  const std::string planted = plant("planted");
  Lookup l = s.lookup(key);
  EXPECT_FALSE(l.hit);
  EXPECT_EQ(l.untrusted, std::vector<std::string>{planted});
  // The member plants this user's marker and a log line that orders theirs first: still not.
  write_file_atomic(s.entry_dir(key) + "/variants/" + planted + "/trusted.0", "");
  ::lchown((s.entry_dir(key) + "/variants/" + planted + "/trusted.0").c_str(), member, member);
  s.log_event(key, {{"event", "variant"}, {"variant", planted}});
  EXPECT_FALSE(s.trusted(key, planted));
  EXPECT_FALSE(s.lookup(key).hit);
  // This user's compile gives other artifacts: stored, and served; the planted one never.
  PutResult mine = s.put(key, {{"n", 8}}, "input", {{"ptx", "mine"}}, Origin{});
  l = s.lookup(key);
  ASSERT_TRUE(l.hit);
  EXPECT_EQ(l.first.meta.id, mine.variant);
  EXPECT_EQ(l.variants.size(), 2u);
  // A member's variant that this user's compile gives byte for byte becomes trusted.
  const std::string key2 = key_for(9);
  std::string same;
  {
    PutResult p = s.put(key2, {{"n", 9}}, "input", {{"ptx", "same"}}, Origin{});
    std::string v = s.entry_dir(key2) + "/variants/" + p.variant;
    ::lchown((v + "/meta.json").c_str(), member, member);
    same = p.variant;
  }
  EXPECT_FALSE(s.lookup(key2).hit);
  s.put(key2, {{"n", 9}}, "input", {{"ptx", "same"}}, Origin{});
  EXPECT_TRUE(s.trusted(key2, same));
  EXPECT_TRUE(s.lookup(key2).hit);
  // The cache folder's owner is trusted as this user is.
  ASSERT_EQ(::chown(dir.c_str(), member, member), 0);
  EXPECT_TRUE(Store(dir).trusted(key, planted));
}

// A record of trust counts only where it belongs and while nobody else can rewrite it: a
// meta.json others can write, one moved under another key, and bytes that differ from the
// record's SHA-256 are never served.
TEST(CacheShared, ARecordCountsOnlyInItsPlaceAndWhileNobodyElseCanWriteIt) {
  ScratchDir t;
  std::string dir = t.path + "/shared";
  make_dirs(dir);
  ::chmod(dir.c_str(), 02775);
  Store s(dir);
  const std::string k1 = key_for(20), k2 = key_for(21);
  PutResult p1 = s.put(k1, {{"n", 20}}, "input", {{"ptx", "one"}}, Origin{});
  PutResult p2 = s.put(k2, {{"n", 21}}, "input", {{"ptx", "two"}}, Origin{});
  const std::string v1 = s.entry_dir(k1) + "/variants/" + p1.variant;
  const std::string v2 = s.entry_dir(k2) + "/variants/" + p2.variant;
  ASSERT_TRUE(s.trusted(k1, p1.variant));
  std::optional<TrustRecord> r = s.trust(k1, p1.variant);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->sha256.size(), 1u);
  EXPECT_EQ(r->sha256[0].second, sha256_hex("one"));

  // Writable by the group (as an earlier kdet left it): no record.
  ::chmod((v1 + "/meta.json").c_str(), 0664);
  std::string why;
  EXPECT_FALSE(s.trust(k1, p1.variant, &why));
  EXPECT_NE(why.find("writable by other users"), std::string::npos) << why;
  EXPECT_FALSE(s.lookup(k1).hit);
  ::chmod((v1 + "/meta.json").c_str(), 0644);

  // k2's variant moved under k1 (k1's own moved away): it names k2, so it is no record for k1.
  fs::rename(v1, v1 + ".gone");
  fs::rename(v2, s.entry_dir(k1) + "/variants/" + p2.variant);
  EXPECT_FALSE(s.trust(k1, p2.variant, &why));
  EXPECT_FALSE(s.lookup(k1).hit);
  fs::rename(s.entry_dir(k1) + "/variants/" + p2.variant, v2);
  fs::rename(v1 + ".gone", v1);

  // Bytes that are not the record's: the record's SHA-256 refuses them, whatever meta.json says.
  LoadedVariant lv;
  TrustRecord wrong = *r;
  wrong.sha256[0].second = sha256_hex("other");
  EXPECT_FALSE(s.load_variant(k1, p1.variant, lv, why, &wrong));
  EXPECT_NE(why.find("SHA-256"), std::string::npos) << why;
  EXPECT_TRUE(s.load_variant(k1, p1.variant, lv, why, &*r)) << why;
  EXPECT_TRUE(s.lookup(k1).hit);
}
