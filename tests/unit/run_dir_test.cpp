// store/run_dir: the `kdet run --out` folder, written and read back by the same module.
#include "kdet/store/run_dir.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"

#include <gtest/gtest.h>

using namespace kdet;

namespace {

class RunDirTest : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-run-dir-test"); }
  void TearDown() override { remove_tree(m_dir); }
  std::string m_dir;
};

engine::Variant variant(const std::string& id, uint64_t count, const std::string& ptx) {
  engine::Variant v;
  v.id = id;
  v.count = count;
  v.status = backend::Status::ok;
  v.artifacts.push_back({"ptx", ptx});
  return v;
}

// Writes a run of two variants (the second more common) with the given ids into DIR/out.
std::string write_two_variants(const std::string& base, const std::string& a,
                               const std::string& b) {
  std::string dir = base + "/out";
  store::prepare_run_dir(dir);
  engine::RunOutput out;
  out.variants = {variant(a, 3, "ptx a"), variant(b, 5, "ptx b")};
  for (uint64_t i = 0; i < 8; ++i) {
    engine::RunRecord r;
    r.index = i;
    r.done = true;
    out.records.push_back(r);
  }
  nlohmann::json result = {{"variants", {{{"id", a}, {"count", 3}}, {{"id", b}, {"count", 5}}}}};
  store::write_run_dir(dir, out, result, [](const engine::RunRecord& r) {
    return nlohmann::json{{"run", r.index + 1}};
  });
  return dir;
}

} // namespace

TEST_F(RunDirTest, WrittenFolderIsReadBack) {
  std::string a = "aaaa1111aaaa1111aaaa", b = "bbbb2222bbbb2222bbbb";
  std::string dir = write_two_variants(m_dir, a, b);
  // The records are rendered by the caller's function, one line each, in run order.
  std::string lines = read_file(dir + "/runs.jsonl");
  EXPECT_EQ(lines.substr(0, 20), "{\"run\":1}\n{\"run\":2}\n");
  auto [first, second] = store::two_most_common_variants(dir);
  EXPECT_EQ(first, b); // most common first, whatever the file's order
  EXPECT_EQ(second, a);
  std::string va = store::resolve_variant(dir, a);
  EXPECT_EQ(va, dir + "/variants/" + store::variant_dir_name(a));
  EXPECT_EQ(read_file(va + "/ptx"), "ptx a");
  // A short prefix of the full id names the same folder (the folder name is 12 characters).
  EXPECT_EQ(store::resolve_variant(dir, "bbbb"), dir + "/variants/" + store::variant_dir_name(b));
}

TEST_F(RunDirTest, ReadersNameWhatIsWrong) {
  std::string dir = write_two_variants(m_dir, "abcd1111", "abcd2222");
  try {
    store::resolve_variant(dir, "abcd");
    FAIL() << "an ambiguous prefix was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ambiguous (2 matches)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store::resolve_variant(dir, "ffff"), Error);
  try {
    store::resolve_variant(m_dir, "abcd");
    FAIL() << "a folder without variants/ was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a kdet run folder"), std::string::npos) << e.what();
  }
  make_dirs(m_dir + "/bad");
  write_file_atomic(m_dir + "/bad/result.json", "{\"variants\": [{\"id\": \"x\", \"count\": 1}]}");
  try {
    store::two_most_common_variants(m_dir + "/bad");
    FAIL() << "one variant was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 variant, nothing to compare"), std::string::npos)
        << e.what();
  }
}

// A hand-edited result.json: sorted again by engine::order, two as common in the file's order.
TEST_F(RunDirTest, VariantsByCountTiesKeepTheFileOrder) {
  make_dirs(m_dir + "/edited");
  write_file_atomic(m_dir + "/edited/result.json",
                    "{\"variants\": [{\"id\": \"x\", \"count\": 1}, {\"id\": \"y\", \"count\": 2},"
                    " {\"id\": \"z\", \"count\": 4}, {\"id\": \"w\", \"count\": 2}]}");
  auto v = store::variants_by_count(m_dir + "/edited");
  ASSERT_EQ(v.size(), 4U);
  EXPECT_EQ(v[0], (std::pair<std::string, uint64_t>{"z", 4}));
  EXPECT_EQ(v[1].first, "y");
  EXPECT_EQ(v[2].first, "w");
  EXPECT_EQ(v[3].first, "x");
}

TEST_F(RunDirTest, ExistingResultIsNeverOverwritten) {
  std::string dir = write_two_variants(m_dir, "a1", "b2");
  EXPECT_THROW(store::prepare_run_dir(dir), Error);
}
