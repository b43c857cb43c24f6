// Unit tests for cache/key and cache/store: keys, layout, atomic writes, hash-checked reads.
#include "kdet/cache/key.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::cache;
namespace fs = std::filesystem;

namespace {

KeyMaterial sample_material() {
  KeyMaterial m;
  m.backend = "nvvm";
  m.compiler = {"nvvm", "/usr/local/cuda/lib64/libnvvm.so", "0123456789abcdef0123456789abcdef",
                "libNVVM 2.0"};
  m.options = {"-arch=compute_90a", "-opt=3"};
  m.env = {{"OMP_NUM_THREADS", std::string("1")}};
  m.input_hash = hash_bytes("define void @k() { ret void }");
  m.input_size = 29;
  m.input_name = "k.ll";
  return m;
}

struct ScratchDir {
  std::string path = make_temp_dir("kdet-cache-test");
  ~ScratchDir() { remove_tree(path); }
};

std::vector<backend::Artifact> ptx(const std::string& text) {
  return {{"ptx", text}};
}

} // namespace

TEST(CacheKey, CoversEveryKeyedPartAndNotThePaths) {
  KeyMaterial base = sample_material();
  std::string k = compute_key(base);
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(compute_key(base), k);

  auto changed = [&](auto edit) {
    KeyMaterial m = base;
    edit(m);
    return compute_key(m);
  };
  EXPECT_NE(changed([](KeyMaterial& m) { m.compiler.content_hash[0] = 'f'; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.compiler.version = "libNVVM 2.1"; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.options[1] = "-opt=2"; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.options = {"-opt=3", "-arch=compute_90a"}; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.env[0].second = "2"; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.env[0].second = std::nullopt; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.env.clear(); }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.input_hash = hash_bytes("other"); }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.backend = "nvrtc"; }), k);
  EXPECT_NE(changed([](KeyMaterial& m) { m.command = {"{input}"}; }), k);
  // Where the compiler or the input lives is recorded, not keyed.
  EXPECT_EQ(changed([](KeyMaterial& m) { m.compiler.path = "/opt/other/libnvvm.so"; }), k);
  EXPECT_EQ(changed([](KeyMaterial& m) { m.input_name = "renamed.ll"; }), k);
  // Length prefixes: moving a boundary between options changes the key.
  EXPECT_NE(changed([](KeyMaterial& m) { m.options = {"-arch=compute_90a-opt=3"}; }), k);
}

TEST(CacheKey, JsonRoundTripKeepsTheKey) {
  KeyMaterial m = sample_material();
  nlohmann::json j = to_json(m);
  EXPECT_EQ(j["target"], "compute_90a");
  EXPECT_EQ(compute_key(key_material_from_json(j)), compute_key(m));
  j["schema"] = "kdet.cache.key/0";
  EXPECT_THROW(key_material_from_json(j), Error);
}

TEST(CacheKey, VerifyRateParsing) {
  EXPECT_DOUBLE_EQ(parse_verify_rate("1/32", "--verify-rate"), 1.0 / 32);
  EXPECT_DOUBLE_EQ(parse_verify_rate("1", "--verify-rate"), 1.0);
  EXPECT_DOUBLE_EQ(parse_verify_rate("0", "--verify-rate"), 0.0);
  EXPECT_DOUBLE_EQ(parse_verify_rate("0.25", "--verify-rate"), 0.25);
  EXPECT_THROW(parse_verify_rate("2", "--verify-rate"), Error);
  EXPECT_THROW(parse_verify_rate("1/0", "--verify-rate"), Error);
  EXPECT_THROW(parse_verify_rate("often", "--verify-rate"), Error);
  EXPECT_THROW(parse_verify_rate("0.5x", "--verify-rate"), Error);
  EXPECT_TRUE(sample(1.0));
  EXPECT_FALSE(sample(0.0));
  int hits = 0;
  for (int i = 0; i < 4000; ++i)
    hits += sample(0.25) ? 1 : 0;
  EXPECT_GT(hits, 800);
  EXPECT_LT(hits, 1200);
}

TEST(CacheKey, CacheDirPrecedence) {
  const char* h = std::getenv("HOME");
  std::string saved_home = h ? h : "";
  ::setenv("KDET_CACHE_DIR", "/tmp/from-env", 1);
  EXPECT_EQ(resolve_cache_dir("/tmp/explicit"), "/tmp/explicit");
  EXPECT_EQ(resolve_cache_dir(""), "/tmp/from-env");
  ::unsetenv("KDET_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(resolve_cache_dir(""), "/home/someone/.cache/kdet");
  ::setenv("HOME", saved_home.c_str(), 1);
}

TEST(CacheStore, MissThenStoreThenHitWithLayout) {
  ScratchDir t;
  Store s(t.path);
  KeyMaterial m = sample_material();
  std::string key = compute_key(m);
  EXPECT_FALSE(s.lookup(key).hit);

  PutResult p = s.put(key, to_json(m), "input bytes", ptx("PTX A"), Origin{});
  EXPECT_TRUE(p.added);
  EXPECT_EQ(p.variants, 1u);
  EXPECT_EQ(p.first, p.variant);

  std::string edir = t.path + "/v1/entries/" + key.substr(0, 2) + "/" + key;
  EXPECT_TRUE(fs::exists(edir + "/key.json"));
  EXPECT_EQ(read_file(edir + "/input"), "input bytes");
  EXPECT_TRUE(fs::exists(edir + "/variants/" + p.variant + "/meta.json"));
  EXPECT_EQ(read_file(edir + "/variants/" + p.variant + "/a0"), "PTX A");
  EXPECT_TRUE(fs::is_empty(t.path + "/v1/tmp")); // staging cleaned up

  Lookup l = s.lookup(key);
  ASSERT_TRUE(l.hit);
  ASSERT_EQ(l.first.artifacts.size(), 1u);
  EXPECT_EQ(l.first.artifacts[0].name, "ptx");
  EXPECT_EQ(l.first.artifacts[0].data, "PTX A");
  EXPECT_EQ(l.first.meta.how, "fill");
  EXPECT_EQ(l.first.meta.pid, static_cast<int>(::getpid()));
  EXPECT_EQ(s.keys(), std::vector<std::string>{key});
}

TEST(CacheStore, SecondVariantIsKeptNeverOverwritesAndFirstIsServed) {
  ScratchDir t;
  Store s(t.path);
  std::string key = compute_key(sample_material());
  auto a = s.put(key, to_json(sample_material()), "in", ptx("PTX A"), Origin{});
  Origin verify;
  verify.how = "verify";
  auto b = s.put(key, to_json(sample_material()), "in", ptx("PTX B"), verify);
  EXPECT_TRUE(b.added);
  EXPECT_EQ(b.variants, 2u);
  EXPECT_EQ(b.first, a.variant);
  auto again = s.put(key, to_json(sample_material()), "in", ptx("PTX A"), Origin{});
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.variants, 2u);

  Lookup l = s.lookup(key);
  ASSERT_TRUE(l.hit);
  EXPECT_EQ(l.first.artifacts[0].data, "PTX A");
  ASSERT_EQ(l.variants.size(), 2u);
  EXPECT_EQ(l.variants[1], b.variant);
  LoadedVariant vb;
  std::string why;
  ASSERT_TRUE(s.load_variant(key, b.variant, vb, why)) << why;
  EXPECT_EQ(vb.meta.how, "verify");
  EXPECT_EQ(vb.artifacts[0].data, "PTX B");
}

TEST(CacheStore, DamagedArtifactIsAMissWithWarningAndMovedAside) {
  ScratchDir t;
  Store s(t.path);
  std::string key = compute_key(sample_material());
  auto p = s.put(key, to_json(sample_material()), "in", ptx("PTX A, long enough"), Origin{});
  std::string art = s.entry_dir(key) + "/variants/" + p.variant + "/a0";
  {
    std::fstream f(art, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3);
    f.put('#'); // same size, different bytes
  }
  Lookup l = s.lookup(key);
  EXPECT_FALSE(l.hit);
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_NE(l.warnings[0].find("damaged"), std::string::npos);
  EXPECT_FALSE(fs::exists(s.entry_dir(key) + "/variants/" + p.variant));
  bool kept = false;
  for (const auto& e : fs::directory_iterator(t.path + "/v1/damaged"))
    if (e.path().string().find(p.variant) != std::string::npos && e.is_directory()) kept = true;
  EXPECT_TRUE(kept) << "the damaged variant is kept as evidence";
  // Refilling works and the key is served again.
  s.put(key, to_json(sample_material()), "in", ptx("PTX A, long enough"), Origin{});
  EXPECT_TRUE(s.lookup(key).hit);
}

TEST(CacheStore, TruncatedOrMissingMetaIsAMiss) {
  ScratchDir t;
  Store s(t.path);
  std::string key = compute_key(sample_material());
  auto p = s.put(key, to_json(sample_material()), "in", ptx("PTX A"), Origin{});
  write_file_atomic(s.entry_dir(key) + "/variants/" + p.variant + "/meta.json", "{\"id\": \"");
  Lookup l = s.lookup(key);
  EXPECT_FALSE(l.hit);
  EXPECT_EQ(l.warnings.size(), 1u);
}

TEST(CacheStore, ConcurrentWritersInForkedProcessesLoseNothing) {
  ScratchDir t;
  std::string key = compute_key(sample_material());
  constexpr int k_writers = 8;
  std::vector<pid_t> pids;
  for (int i = 0; i < k_writers; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      Store s(t.path);
      for (int j = 0; j < 20; ++j) // each writer stores its own variant and a shared one
        s.put(key, to_json(sample_material()), "in",
              ptx(j % 2 ? "shared" : "writer " + std::to_string(i)), Origin{});
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  Store s(t.path);
  auto order = s.variant_order(key);
  EXPECT_EQ(order.size(), static_cast<size_t>(k_writers + 1));
  for (const auto& v : order) {
    LoadedVariant lv;
    std::string why;
    EXPECT_TRUE(s.load_variant(key, v, lv, why)) << why;
  }
  size_t logged = 0;
  for (const auto& e : s.events(key))
    logged += e.value("event", "") == "variant" ? 1 : 0;
  EXPECT_EQ(logged, order.size()) << "each variant logged exactly once";
  EXPECT_TRUE(s.lookup(key).hit);
}

TEST(CacheStore, AnArtifactPastItsRecordedSizeIsRefusedUnread) {
  // A member of a shared cache decides the size of what it plants (docs/CACHE.md, "Bounds"):
  // a 60 GiB sparse artifact must be refused by its size, never read (std::bad_alloc before).
  ScratchDir t;
  Store s(t.path);
  std::string key = compute_key(sample_material());
  auto p = s.put(key, to_json(sample_material()), "in", ptx("PTX A"), Origin{});
  std::optional<TrustRecord> record = s.trust(key, p.variant);
  ASSERT_TRUE(record.has_value());
  ASSERT_EQ(record->size.size(), 1u);
  EXPECT_EQ(record->size[0].second, 5u);
  const std::string vdir = s.entry_dir(key) + "/variants/" + p.variant;
  const off_t huge = off_t{60} << 30;
  ASSERT_EQ(::truncate((vdir + "/a0").c_str(), huge), 0);
  LoadedVariant lv;
  std::string why;
  EXPECT_FALSE(s.load_variant(key, p.variant, lv, why, &*record));
  EXPECT_NE(why.find("fails its size check"), std::string::npos) << why;

  // A meta.json naming the huge size (a swapped folder's): the record's size still bounds it.
  const std::string meta_text = read_file(vdir + "/meta.json");
  auto meta = nlohmann::json::parse(meta_text);
  meta["artifacts"][0]["size"] = static_cast<uint64_t>(huge);
  write_file_atomic(vdir + "/meta.json", meta.dump());
  why.clear();
  EXPECT_FALSE(s.load_variant(key, p.variant, lv, why, &*record));
  EXPECT_NE(why.find("not the size its record of trust names"), std::string::npos) << why;
  // Without a record (report, verify): no meta.json size past the caller's bound is read.
  why.clear();
  EXPECT_FALSE(s.load_variant(key, p.variant, lv, why, nullptr, uint64_t{1} << 20));
  EXPECT_EQ(why.rfind("too large", 0), 0u) << why;

  // The lookup moves it aside as damaged: a miss, never an exception.
  write_file_atomic(vdir + "/meta.json", meta_text);
  Lookup l = s.lookup(key);
  EXPECT_FALSE(l.hit);
  EXPECT_FALSE(fs::exists(vdir));
}
