// Unit tests for store/scan_db_blobs: artifact bytes stored whole or as a difference from their
// input's first stored output, read back exactly, checked; merges keep bases whole; a database
// of the previous schema (tests/data/scan_db/v2.db) opens, reads and is upgraded.
#include "kdet/report/scan_report.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/compress.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace kdet;

namespace {

// A PTX-like text of ~600 lines for `target`; `variant` changes one register of one line.
std::string ptx(const std::string& target, int kernel, int variant = 0) {
  std::string s = fmt::format("//\n.version 9.0\n.target sm_{}\n.address_size 64\n\n"
                              ".visible .entry k{}(\n  .param .u64 p0\n)\n{{\n",
                              target, kernel);
  for (int i = 0; i < 600; ++i)
    s += fmt::format("  mad.lo.s32 %r{}, %r{}, {}, %r{};\n", i, (i * 7 + kernel) % 97,
                     i * 13 + kernel, variant && i == 300 ? 999 : i + 1);
  return s + "  ret;\n}\n";
}

// A finished job of `input_hash` whose variants give `outputs` (one run each).
store::RoundWrite round(const std::string& id, const std::string& input_hash,
                        const std::vector<std::string>& outputs) {
  store::RoundWrite w;
  store::JobRow& j = w.job;
  j.id = id;
  j.input = "k.ll";
  j.input_hash = input_hash;
  j.compiler = "nvvm";
  j.target = id;
  j.option_set = "O3";
  j.budget = outputs.size();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string h = hash_bytes(outputs[i]);
    const std::string v = hash_bytes("v" + h);
    j.variants.push_back({v, 1, i, "ok", "", {{"ptx", h, outputs[i].size()}}, ""});
    w.runs.push_back({i, v, "ok", 0, 0, i, 0.01, 0.01, 1, 1, ""});
    w.blobs.emplace_back(h, outputs[i]);
  }
  j.runs = j.ok_runs = outputs.size();
  j.rounds = 1;
  j.done = true;
  return w;
}

// The first column of the first row of `sql` on the database at `path`, as text ("" for none).
std::string query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

void plan(store::ScanDb& db, const std::vector<store::RoundWrite>& rounds) {
  db.set_meta({{"manifest_hash", "M"}});
  std::vector<store::JobRow> jobs;
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& r : rounds) {
    jobs.push_back(r.job);
    jobs.back().variants.clear();
    jobs.back().runs = jobs.back().ok_runs = jobs.back().rounds = 0;
    inputs.emplace_back(r.job.input, r.job.input_hash);
  }
  db.plan({{"nvvm", "nvvm", "/lib.so", "H", ""}}, jobs, inputs);
}

class ScanBlobsTest : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-blobs-test"); }
  void TearDown() override { remove_tree(m_dir); }
  std::string m_dir;
};

} // namespace

TEST(ZstdPrefix, AFrameMadeWithAPrefixDecodesWithItOnly) {
  const std::string a = ptx("80", 1), b = ptx("90a", 1);
  const std::string alone = zstd_compress(b, store::k_blob_level);
  const std::string delta = zstd_compress(b, store::k_blob_level, a);
  EXPECT_LT(delta.size() * 20, alone.size()) << delta.size() << " against " << alone.size();
  EXPECT_EQ(zstd_decompress(delta, b.size(), a), b);
  EXPECT_EQ(zstd_decompress(alone, b.size()), b);
  // Without its prefix (or with another one) a difference never gives back the bytes.
  EXPECT_NE(zstd_decompress(delta, b.size()), b);
  EXPECT_NE(zstd_decompress(delta, b.size(), ptx("80", 2)), b);
  EXPECT_EQ(zstd_decompress(delta, b.size() - 1, a), std::nullopt); // more than the bound
}

TEST_F(ScanBlobsTest, OutputsOfOneInputAreDifferencesFromItsFirstAndReadBackExactly) {
  const std::string path = m_dir + "/s.db";
  const std::vector<store::RoundWrite> rounds = {
      round("80", "IH1", {ptx("80", 1)}),
      round("90a", "IH1", {ptx("90a", 1), ptx("90a", 1, 1)}), // another target; a varying job
      round("100a", "IH2", {ptx("100a", 2)}),                 // another input: whole
  };
  {
    store::ScanDb db(path);
    plan(db, rounds);
    db.write({rounds[0]});
    db.write({rounds[1], rounds[2]});
  }
  auto codec = [&](const std::string& bytes) {
    return query(path,
                 "SELECT codec || ' ' || base FROM blobs WHERE hash = '" + hash_bytes(bytes) + "'");
  };
  const std::string base = hash_bytes(ptx("80", 1));
  EXPECT_EQ(codec(ptx("80", 1)), "zstd ");
  EXPECT_EQ(codec(ptx("90a", 1)), "zstd-delta " + base);
  EXPECT_EQ(codec(ptx("90a", 1, 1)), "zstd-delta " + base);
  EXPECT_EQ(codec(ptx("100a", 2)), "zstd ");
  EXPECT_LT(std::stoi(query(path, "SELECT max(length(data)) FROM blobs WHERE codec = "
                                  "'zstd-delta'")),
            100);
  EXPECT_EQ(query(path, "SELECT group_concat(size) FROM blobs WHERE base != ''"),
            fmt::format("{},{}", ptx("90a", 1).size(), ptx("90a", 1, 1).size()));
  store::ScanDb db(path, store::Access::read);
  auto r = db.load();
  ASSERT_EQ(r.jobs.size(), 3u);
  for (const auto& rw : rounds)
    for (const auto& [h, bytes] : rw.blobs)
      EXPECT_EQ(db.blob(h), bytes);
  EXPECT_EQ(query(path, "PRAGMA user_version"), std::to_string(store::k_scan_db_version));
}

TEST_F(ScanBlobsTest, AResumedScanGoesOnFromTheBasesStored) {
  const std::string path = m_dir + "/s.db";
  const std::vector<store::RoundWrite> rounds = {round("80", "IH1", {ptx("80", 1)}),
                                                 round("90a", "IH1", {ptx("90a", 1)})};
  {
    store::ScanDb db(path);
    plan(db, rounds);
    db.write({rounds[0]});
  }
  {
    store::ScanDb db(path); // a second session
    db.write({rounds[1]});
  }
  EXPECT_EQ(query(path, "SELECT base FROM blobs WHERE codec = 'zstd-delta'"),
            hash_bytes(ptx("80", 1)));
}

TEST_F(ScanBlobsTest, ADifferenceWithoutItsWholeBaseIsUnsound) {
  const std::string path = m_dir + "/s.db";
  const std::vector<store::RoundWrite> rounds = {round("80", "IH1", {ptx("80", 1)}),
                                                 round("90a", "IH1", {ptx("90a", 1)})};
  {
    store::ScanDb db(path);
    plan(db, rounds);
    db.write(rounds);
  }
  const std::string base = hash_bytes(ptx("80", 1)), diff = hash_bytes(ptx("90a", 1));
  struct Damage {
    const char* sql;
    const char* says;
  };
  const std::vector<Damage> damages = {
      {"DELETE FROM blobs WHERE hash = '{base}'", "whose bytes are not in its blobs"},
      {"UPDATE blobs SET codec = 'zstd-delta', base = '{diff}' WHERE hash = '{base}'",
       "itself a difference"},
      {"UPDATE blobs SET base = '' WHERE hash = '{diff}'", "difference from no base"},
      {"UPDATE blobs SET codec = 'zstd' WHERE hash = '{diff}'", "not stored as a difference"},
      {"UPDATE blobs SET size = 'x' WHERE hash = '{diff}'", "size kdet never writes"},
  };
  for (const auto& d : damages) {
    const std::string copy = m_dir + "/bad.db";
    write_file_atomic(copy, read_file(path));
    query(copy, fmt::format(fmt::runtime(d.sql), fmt::arg("base", base), fmt::arg("diff", diff)));
    try {
      store::ScanDb db(copy, store::Access::read);
      db.load();
      FAIL() << d.sql << ": read as sound";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(d.says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(copy), std::string::npos) << e.what();
    }
  }
  // A base whose bytes are another sound frame: the difference decodes to other bytes, which
  // the hash check refuses.
  const std::string copy = m_dir + "/swapped.db";
  write_file_atomic(copy, read_file(path));
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(copy.c_str(), &raw), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(raw, "UPDATE blobs SET data = ? WHERE hash = ?", -1, &st, nullptr);
    const std::string other = zstd_compress(ptx("80", 2), store::k_blob_level);
    sqlite3_bind_blob(st, 1, other.data(), static_cast<int>(other.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, 2, base.c_str(), -1, SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(raw);
  }
  store::ScanDb db(copy, store::Access::read);
  db.load();
  EXPECT_THROW(db.blob(diff), Error);
  EXPECT_THROW(db.blob(base), Error);
}

TEST_F(ScanBlobsTest, AMergeKeepsEveryBaseWhole) {
  // Shard A stored P1 whole and P2 as its difference; shard B stored P2 whole and P3 as a
  // difference from P2. Merged, P2 is whole (B's copy), so P3 decodes in one step.
  const std::string a = m_dir + "/a.db", b = m_dir + "/b.db";
  const std::string p1 = ptx("80", 1), p2 = ptx("90a", 1), p3 = ptx("90a", 1, 1);
  const auto r1 = round("80", "IH1", {p1}), r2 = round("90a", "IH1", {p2}),
             r3 = round("100a", "IH1", {p3});
  {
    store::ScanDb db(a);
    plan(db, {r1, r2, r3});
    db.write({r1, r2});
  }
  {
    store::ScanDb db(b);
    plan(db, {r1, r2, r3});
    db.write({r2, r3});
  }
  EXPECT_EQ(query(a, "SELECT codec FROM blobs WHERE hash = '" + hash_bytes(p2) + "'"),
            "zstd-delta");
  for (const auto& [first, second] : {std::pair{a, b}, std::pair{b, a}}) {
    const std::string out = m_dir + "/out-" + std::to_string(first == a) + ".db";
    {
      store::ScanDb db(out);
      db.merge_from(first);
      db.merge_from(second);
      auto r = db.load();
      EXPECT_EQ(r.jobs.size(), 3u);
      for (const auto& bytes : {p1, p2, p3})
        EXPECT_EQ(db.blob(hash_bytes(bytes)), bytes);
    }
    EXPECT_EQ(query(out, "SELECT count(*) FROM blobs b JOIN blobs c ON c.hash = b.base WHERE "
                         "c.codec = 'zstd-delta'"),
              "0");
  }
}

TEST_F(ScanBlobsTest, ADatabaseOfSchemaVersion2OpensReadsAndIsUpgraded) {
  // Written by kdet before version 3 (tests/data/scan_db/README.md).
  const std::string path = m_dir + "/v2.db";
  write_file_atomic(path, read_file(std::string(KDET_SOURCE_DIR) + "/tests/data/scan_db/v2.db"));
  ASSERT_EQ(query(path, "PRAGMA user_version"), "2");
  auto check_all = [](store::ScanDb& db, const store::ScanResult& r) {
    size_t n = 0;
    for (const auto& j : r.jobs)
      for (const auto& v : j.variants)
        for (const auto& art : v.artifacts) {
          EXPECT_EQ(db.blob(art.hash).size(), art.size) << j.id; // checked against its hash
          ++n;
        }
    return n;
  };
  store::ScanResult first;
  {
    store::ScanDb db(path, store::Access::read); // read as it is, never changed
    first = db.load();
    ASSERT_EQ(first.jobs.size(), 8u);
    EXPECT_EQ(check_all(db, first), 12u);
  }
  // A database keeps no status word: an old one reports in today's (kdet.scan/2) words.
  const nlohmann::json doc = report::scan_to_json(first);
  size_t nondeterministic = 0;
  for (const auto& j : doc["jobs"]) {
    EXPECT_NE(j["status"], "varies");
    nondeterministic += j["status"] == "nondeterministic";
  }
  EXPECT_GT(nondeterministic, 0u);
  EXPECT_EQ(query(path, "PRAGMA user_version"), "2");
  // Opened for writing (a resume): brought to the current version, every byte as it was; a
  // new output of a stored input is a difference from that input's stored (version 2) blob.
  const store::JobRow& old = first.jobs.front();
  // The first output stored for that input: the base a new one is compared with.
  const std::string base_hash =
      query(path, "SELECT a.hash FROM variant_artifacts a JOIN jobs j ON j.id = a.job_id JOIN "
                  "blobs b ON b.hash = a.hash WHERE j.input_hash = '" +
                      old.input_hash + "' ORDER BY b.rowid LIMIT 1");
  std::string bytes;
  {
    store::ScanDb db(path);
    auto r = db.load();
    EXPECT_EQ(check_all(db, r), 12u);
    bytes = db.blob(base_hash);
    bytes.insert(bytes.find('\n') + 1, "// another\n");
    store::RoundWrite w = round("new", old.input_hash, {bytes});
    w.job.input = old.input;
    w.job.compiler = old.compiler;
    store::JobRow planned = w.job;
    planned.variants.clear();
    planned.runs = planned.ok_runs = planned.rounds = 0;
    db.plan({}, {planned}, {});
    db.write({w});
    EXPECT_EQ(db.blob(hash_bytes(bytes)), bytes);
  }
  EXPECT_EQ(query(path, "PRAGMA user_version"), std::to_string(store::k_scan_db_version));
  EXPECT_EQ(query(path, "SELECT codec || ' ' || base FROM blobs WHERE hash = '" +
                            hash_bytes(bytes) + "'"),
            "zstd-delta " + base_hash);
  store::ScanDb db(path, store::Access::read);
  auto r = db.load();
  EXPECT_EQ(r.jobs.size(), 9u);
  EXPECT_EQ(check_all(db, r), 13u);
}
