// Unit tests for store/scan_db and scan/labels: rounds round-trip, resume
// state, merge keeps the fuller copy, schema version check, compare labels.
#include "kdet/report/scan_report.hpp"
#include "kdet/scan/labels.hpp"
#include "kdet/stats/stats.hpp"
#include "kdet/store/scan_db.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/inotify.h>
#include <unistd.h>

using namespace kdet;

namespace {

store::JobRow job(const std::string& id, const std::string& compiler,
                  const std::string& input = "a.ll") {
  store::JobRow j;
  j.id = id;
  j.input = input;
  j.compiler = compiler;
  j.target = "90a";
  j.option_set = "O3";
  j.options = {"-opt=3"};
  j.budget = 10;
  return j;
}

// The stored hash of variant `id`'s artifact, whose bytes are "ptx ID".
std::string art_hash(const std::string& id) {
  return hash_bytes("ptx " + id);
}

// A round that took the job to `runs` runs with the given variant counts (runs numbered in
// variant order: the first variant's runs first), writing the runs from `from` on.
store::RoundWrite round(store::JobRow j, std::vector<std::pair<std::string, uint64_t>> variants,
                        uint64_t from) {
  store::RoundWrite w;
  j.variants.clear();
  uint64_t total = 0;
  for (const auto& [id, n] : variants) {
    j.variants.push_back({id, n, total, "ok", "", {{"ptx", art_hash(id), 3}}, ""});
    total += n;
  }
  j.runs = total;
  j.ok_runs = total;
  j.rounds += 1;
  j.done = variants.size() > 1 || total >= j.budget;
  for (uint64_t i = from; i < total; ++i) {
    const auto v = std::find_if(j.variants.begin(), j.variants.end(), [i](const auto& x) {
      return i >= x.first_run && i < x.first_run + x.count;
    });
    w.runs.push_back({i, v->id, "ok", 0, 0, i, 0.01, 0.01, 1, 1, ""});
  }
  for (const auto& [id, n] : variants)
    w.blobs.emplace_back(art_hash(id), "ptx " + id);
  w.job = j;
  w.compiler_version = "fake 1.0";
  return w;
}

class ScanStoreTest : public ::testing::Test {
protected:
  void SetUp() override { m_dir = make_temp_dir("kdet-store-test"); }
  void TearDown() override { remove_tree(m_dir); }
  std::string m_dir;
};

// A stored job reads kdet's own errors as engine::assess does: kept as a variant, counted by no
// verdict or bound.
TEST(ScanJobRow, KdetsOwnErrorsAreNoOutcome) {
  store::JobRow j = job("j", "nvvm");
  j.runs = 12;
  j.ok_runs = 10;
  j.variants = {{"a", 10, 0, "ok", "", {}, ""}, {"e", 2, 3, "infra-error", "", {}, ""}};
  EXPECT_EQ(j.verdict(), engine::Verdict::deterministic);
  EXPECT_EQ(j.outcomes(), 1u);
  EXPECT_EQ(j.kdet_errors(), 2u);
  EXPECT_EQ(j.differing(), 0u);
  EXPECT_DOUBLE_EQ(j.upper_bound(), stats::upper_bound(0, 10));
  j.variants.push_back({"b", 0, 11, "ok", "", {}, ""});
  j.variants[0].count = 9;
  j.variants[2].count = 1;
  EXPECT_EQ(j.verdict(), engine::Verdict::nondeterministic);
  EXPECT_EQ(j.differing(), 1u);
}

TEST_F(ScanStoreTest, RoundsRoundTripAndResumeState) {
  std::string path = m_dir + "/s.db";
  {
    store::ScanDb db(path);
    db.set_meta({{"manifest_hash", "M"}, {"name", "t"}});
    db.plan({{"c1", "nvvm", "/lib.so", "H", ""}}, {job("j1", "c1"), job("j2", "c1")},
            {{"a.ll", "IH"}});
    store::ScanWriter w(db);
    w.push(round(job("j1", "c1"), {{"v1", 4}}, 0));
    w.push(round(job("j1", "c1"), {{"v1", 6}, {"v2", 1}}, 4));
    w.flush();
    EXPECT_EQ(w.committed_rounds(), 2u);
  }
  store::ScanDb db(path); // reopen: as a resumed scan would
  auto r = db.load();
  ASSERT_EQ(r.jobs.size(), 2u);
  const auto& j1 = r.jobs[0].id == "j1" ? r.jobs[0] : r.jobs[1];
  const auto& j2 = r.jobs[0].id == "j1" ? r.jobs[1] : r.jobs[0];
  EXPECT_EQ(j1.runs, 7u);
  EXPECT_TRUE(j1.done);
  EXPECT_TRUE(j1.varies());
  ASSERT_EQ(j1.variants.size(), 2u);
  EXPECT_EQ(j1.variants[0].id, "v1");
  EXPECT_EQ(j1.variants[0].count, 6u);
  EXPECT_EQ(j1.variants[0].artifacts.at(0).hash, art_hash("v1"));
  EXPECT_EQ(j1.differing(), 1u);
  EXPECT_EQ(j2.runs, 0u);
  EXPECT_FALSE(j2.done);
  EXPECT_EQ(j2.verdict(), engine::Verdict::no_runs);
  EXPECT_EQ(db.run_count(), 7u);
  EXPECT_EQ(db.blob(art_hash("v2")), "ptx v2");
  EXPECT_EQ(db.blob("absent"), "");
  EXPECT_EQ(r.compilers.at(0).version, "fake 1.0");
  EXPECT_EQ(r.meta.at("manifest_hash"), "M");
  // Planning again (a resumed scan) keeps the state.
  db.plan({{"c1", "nvvm", "/lib.so", "H", ""}}, {job("j1", "c1"), job("j2", "c1")}, {});
  EXPECT_EQ(db.load().jobs[0].runs + db.load().jobs[1].runs, 7u);
}

TEST_F(ScanStoreTest, MergeKeepsTheFullerCopyAndRefusesOtherManifests) {
  std::string a = m_dir + "/a.db", b = m_dir + "/b.db", c = m_dir + "/c.db",
              out = m_dir + "/out.db";
  for (const auto* p : {&a, &b}) {
    store::ScanDb db(*p);
    db.set_meta({{"manifest_hash", "M"}});
    db.plan({{"c1", "nvvm", "/lib.so", "H", ""}}, {job("j1", "c1"), job("j2", "c1", "b.ll")},
            {{"a.ll", "IH"}, {"b.ll", "IB"}});
  }
  {
    store::ScanDb db(a);
    db.write(
        {round(job("j1", "c1"), {{"v1", 10}}, 0), round(job("j2", "c1", "b.ll"), {{"w", 3}}, 0)});
  }
  {
    store::ScanDb db(b);
    db.write({round(job("j2", "c1", "b.ll"), {{"w", 5}, {"x", 1}}, 0)});
  }
  {
    store::ScanDb db(c);
    db.set_meta({{"manifest_hash", "OTHER"}});
  }
  store::ScanDb db(out);
  db.merge_from(a);
  db.merge_from(b);
  auto r = db.load();
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].runs, 10u); // j1 from a
  EXPECT_EQ(r.jobs[1].runs, 6u);  // j2: b's finished copy beats a's partial one
  EXPECT_TRUE(r.jobs[1].varies());
  EXPECT_EQ(db.run_count(), 16u);
  EXPECT_EQ(db.blob(art_hash("x")), "ptx x");
  EXPECT_THROW(db.merge_from(c), Error);
  EXPECT_THROW(db.merge_from(m_dir + "/absent.db"), Error);
}

TEST_F(ScanStoreTest, RefusesAnotherSchemaVersion) {
  std::string path = m_dir + "/old.db";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_exec(raw, "CREATE TABLE x(a); PRAGMA user_version=99;", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    store::ScanDb db(path);
    FAIL() << "opened a version-99 database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
}

// A database as kdet wrote it before schema version 2: no variants.log, no blobs.codec (nor
// version 3's blobs.base and blobs.size).
void make_version_1(const std::string& path) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(raw,
                         "ALTER TABLE variants DROP COLUMN log; ALTER TABLE blobs DROP COLUMN "
                         "codec; ALTER TABLE blobs DROP COLUMN base; ALTER TABLE blobs DROP "
                         "COLUMN size; PRAGMA user_version=1;",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_close(raw);
}

TEST_F(ScanStoreTest, AVersion1DatabaseIsReadAndUpgradedWhenWritten) {
  std::string path = m_dir + "/v1.db", other = m_dir + "/v1b.db", out = m_dir + "/m.db";
  for (const auto* p : {&path, &other}) {
    store::ScanDb db(*p);
    db.set_meta({{"manifest_hash", "M"}});
    db.plan({{"c1", "nvvm", "/lib.so", "H", ""}}, {job("j1", "c1")}, {{"a.ll", "IH"}});
    db.write({round(job("j1", "c1"), {{"v1", 4}, {"v2", 1}}, 0)});
  }
  make_version_1(path);
  make_version_1(other);
  {
    store::ScanDb db(path, store::Access::read); // read as it is, never changed
    auto r = db.load();
    ASSERT_EQ(r.jobs.size(), 1u);
    EXPECT_EQ(r.jobs[0].variants.at(0).log, "");
    EXPECT_EQ(db.blob(art_hash("v2")), "ptx v2");
  }
  sqlite3* raw = nullptr;
  auto version = [&raw](const std::string& p) {
    EXPECT_EQ(sqlite3_open(p.c_str(), &raw), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr);
    sqlite3_step(st);
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return v;
  };
  EXPECT_EQ(version(path), 1);
  {
    // A merge reads a version 1 input; the output is current.
    store::ScanDb db(out);
    db.merge_from(other);
    EXPECT_EQ(db.load().jobs.at(0).runs, 5u);
    EXPECT_EQ(db.blob(art_hash("v1")), "ptx v1");
  }
  {
    store::ScanDb db(path); // a resume: upgraded in place, the runs kept
    EXPECT_EQ(db.load().jobs.at(0).runs, 5u);
    EXPECT_EQ(db.blob(art_hash("v1")), "ptx v1");
  }
  EXPECT_EQ(version(path), store::k_scan_db_version);
}

TEST_F(ScanStoreTest, OneWriterAtATimeAndReadersTakeNoLock) {
  std::string path = m_dir + "/r.db";
  store::ScanDb first(path);
  first.set_meta({{"name", "x"}});
  try {
    store::ScanDb second(path);
    FAIL() << "a second writer opened a database in use";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in use by pid " + std::to_string(::getpid())),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.exit_code(), k_exit_usage);
  }
  store::ScanDb reader(path, store::Access::read);
  EXPECT_EQ(reader.meta()["name"], "x");
}

// A free name with another database's WAL beside it is refused without creating a file there,
// even for a moment: the scan that owns the WAL, renamed away, would see that file as one put in
// its place and set its WAL aside.
TEST_F(ScanStoreTest, AFreeNameWithAWalBesideItIsRefusedWithoutMakingAFile) {
  std::string path = m_dir + "/a.db";
  write_file_atomic(path + "-wal", "another database's pages");
  int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, m_dir.c_str(), IN_CREATE), 0);
  try {
    store::ScanDb db(path);
    FAIL() << "a new database opened beside another one's WAL";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is new, but " + path + "-wal is beside it"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.exit_code(), k_exit_usage);
  }
  alignas(inotify_event) char events[4096];
  ssize_t n = ::read(watch, events, sizeof events);
  std::vector<std::string> created;
  for (ssize_t at = 0; at < n;) {
    const auto* ev = reinterpret_cast<const inotify_event*>(events + at);
    if (ev->len) created.emplace_back(ev->name);
    at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
  }
  ::close(watch);
  EXPECT_TRUE(created.empty()) << "made and removed: " << created.front();
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_EQ(read_file(path + "-wal"), "another database's pages");
}

TEST_F(ScanStoreTest, UnsoundDatabasesAreRefusedNamingTheFile) {
  {
    store::ScanDb db(m_dir + "/good.db");
    db.set_meta({{"name", "x"}});
  }
  std::string good = read_file(m_dir + "/good.db");
  std::string garbage(8192, '\x5a');
  std::string header_only = std::string("SQLite format 3") + '\0';
  std::string truncated = good.substr(0, 1500);
  std::string flipped = good;
  // The page-type byte of every page after the first (bytes in a page's free space are not data).
  for (size_t i = 4096; i < flipped.size(); i += 4096)
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  for (const auto& [name, bytes] :
       std::vector<std::pair<std::string, std::string>>{{"garbage", garbage},
                                                        {"header_only", header_only},
                                                        {"truncated", truncated},
                                                        {"flipped", flipped}}) {
    std::string path = m_dir + "/" + name + ".db";
    write_file_atomic(path, bytes);
    for (auto access : {store::Access::read, store::Access::write}) {
      try {
        store::ScanDb db(path, access);
        db.load();
        FAIL() << name << " was read as sound";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_EQ(e.exit_code(), k_exit_usage);
      }
    }
  }
  EXPECT_THROW(store::ScanDb(m_dir + "/absent.db", store::Access::read), Error);
}

store::JobRow verdict_job(const std::string& compiler, const std::string& input,
                          std::vector<std::string> variants, bool ok = true) {
  store::JobRow j = job(compiler + input, compiler, input);
  for (const auto& v : variants)
    j.variants.push_back({v, 5, 0, ok ? "ok" : "compile_error", "", {}, ""});
  j.runs = 5 * variants.size();
  j.ok_runs = ok ? j.runs : 0;
  j.done = true;
  return j;
}

// `j` with its runs set to `runs`, all of them in its variants' proportions kept simple:
// one variant takes every run but those of the others (5 each).
store::JobRow many_runs(store::JobRow j, uint64_t runs) {
  uint64_t others = 5 * (j.variants.size() - 1);
  j.variants.front().count = runs - others;
  j.runs = runs;
  j.ok_runs = j.ok_runs ? runs : 0;
  return j;
}

TEST(ScanLabels, EachLabel) {
  std::vector<store::JobRow> jobs = {
      verdict_job("a", "same.ll", {"X"}),        verdict_job("b", "same.ll", {"X"}),
      verdict_job("a", "chg.ll", {"X"}),         verdict_job("b", "chg.ll", {"Y"}),
      verdict_job("a", "fix.ll", {"X", "Y"}),    many_runs(verdict_job("b", "fix.ll", {"Y"}), 59),
      verdict_job("a", "nsee.ll", {"X", "Y"}),   verdict_job("b", "nsee.ll", {"Z"}),
      verdict_job("a", "reg.ll", {"X"}),         verdict_job("b", "reg.ll", {"X", "Y"}),
      verdict_job("a", "both.ll", {"X", "Y"}),   verdict_job("b", "both.ll", {"Z", "W"}),
      verdict_job("a", "fail.ll", {"E"}, false), verdict_job("b", "fail.ll", {"X"}),
      verdict_job("a", "only.ll", {"X"}),
  };
  auto pairs = scan::pair_jobs(jobs, "a", jobs, "b");
  std::map<std::string, std::string> got;
  for (const auto& p : pairs)
    got[p.key.substr(0, p.key.find(' '))] = scan::to_string(p.label);
  EXPECT_EQ(got["same.ll"], "identical");
  EXPECT_EQ(got["chg.ll"], "changed");
  EXPECT_EQ(got["fix.ll"], "fixed");
  // Five runs bound B's rate only below 45%: not ten times below A's 50%.
  EXPECT_EQ(got["nsee.ll"], "not-seen");
  EXPECT_EQ(got["reg.ll"], "regressed");
  EXPECT_EQ(got["both.ll"], "nondeterministic-both");
  EXPECT_EQ(got["fail.ll"], "failed");
  EXPECT_EQ(got["only.ll"], "missing");
  auto n = scan::count_labels(pairs);
  for (size_t i = 0; i < n.size(); ++i)
    EXPECT_EQ(n[i], 1u) << scan::to_string(scan::k_all_labels[i]);
  EXPECT_EQ(scan::compare_exit_code(pairs), 1);

  // What B emits where A varied: fix.ll gives A's second variant; nsee.ll new code;
  // both.ll no single output.
  std::map<std::string, int> emits;
  for (const auto& p : pairs)
    emits[p.key.substr(0, p.key.find(' '))] = p.b_is_a_variant;
  EXPECT_EQ(emits["fix.ll"], 2);
  EXPECT_EQ(emits["nsee.ll"], 0);
  EXPECT_EQ(emits["both.ll"], -1);
  auto ans = scan::answer(pairs);
  EXPECT_EQ(ans.b_jobs, 7u);
  EXPECT_EQ(ans.b_varies, 2u);
  EXPECT_EQ(ans.a_varied, 3u);
  EXPECT_EQ(ans.b_emits_a_variant, 1u);
  EXPECT_EQ(ans.by_a_variant.at(2), 1u);
  EXPECT_EQ(ans.b_emits_new, 1u);
  EXPECT_EQ(ans.b_no_single_output, 1u);
}

TEST(ScanLabels, CompareExitCodeGatesOnB) {
  // kdet compare's gate: 1 wherever B varies, 3 where B failed every run, not-seen passes.
  auto code = [](std::vector<store::JobRow> jobs) {
    return scan::compare_exit_code(scan::pair_jobs(jobs, "a", jobs, "b"));
  };
  auto a_vary = verdict_job("a", "k.ll", {"X", "Y"});
  EXPECT_EQ(code({a_vary, verdict_job("b", "k.ll", {"Z", "W"})}), 1); // nondeterministic-both
  EXPECT_EQ(code({verdict_job("a", "k.ll", {"X"}), verdict_job("b", "k.ll", {"X", "Y"})}), 1);
  EXPECT_EQ(code({a_vary, verdict_job("b", "k.ll", {"Z"})}), 0); // not-seen
  EXPECT_EQ(code({verdict_job("a", "k.ll", {"X"}), verdict_job("b", "k.ll", {"E"}, false)}), 3);
  EXPECT_EQ(code({verdict_job("a", "k.ll", {"E"}, false), verdict_job("b", "k.ll", {"X"})}), 0);
  // Variance in one job outranks a failure in another.
  EXPECT_EQ(code({a_vary, verdict_job("b", "k.ll", {"Z", "W"}), verdict_job("a", "f.ll", {"X"}),
                  verdict_job("b", "f.ll", {"E"}, false)}),
            1);
  // Hidden under --stress: B varies after all.
  std::vector<store::JobRow> jobs = {a_vary, verdict_job("b", "k.ll", {"Z"})};
  auto pairs = scan::pair_jobs(jobs, "a", jobs, "b");
  pairs.at(0).stress = scan::Pairing::Stress::hidden;
  EXPECT_EQ(scan::compare_exit_code(pairs), 1);
  EXPECT_FALSE(scan::any_regressed(pairs));
}

TEST(ScanLabels, CompareExitCodeSeesWhatBRanAlone) {
  // A job only B ran ("missing" in A) that varies: B varies anywhere, so the gate fails.
  auto code = [](std::vector<store::JobRow> jobs) {
    return scan::compare_exit_code(scan::pair_jobs(jobs, "a", jobs, "b"));
  };
  auto same_a = verdict_job("a", "k.ll", {"X"}), same_b = verdict_job("b", "k.ll", {"X"});
  EXPECT_EQ(code({same_a, same_b, verdict_job("b", "new.ll", {"X", "Y"})}), 1);
  EXPECT_EQ(code({same_a, same_b, verdict_job("b", "new.ll", {"X"})}), 0);
  // B's scan stopped before it ran a job of A (its database holds the job, no run): B was
  // not judged there, so the gate cannot pass.
  auto unrun = verdict_job("b", "f.ll", {});
  unrun.done = false;
  EXPECT_EQ(code({same_a, same_b, verdict_job("a", "f.ll", {"X", "Y"}), unrun}), 3);
  // No job ran on both sides: nothing was compared, as a capture that captured nothing.
  EXPECT_EQ(code({verdict_job("a", "k.ll", {"X"}), verdict_job("b", "other.ll", {"X"})}), 3);
  // A's own unrun jobs are no failure of B's.
  auto a_unrun = verdict_job("a", "g.ll", {});
  EXPECT_EQ(code({same_a, same_b, a_unrun, verdict_job("b", "g.ll", {"X"})}), 0);
}

TEST(ScanLabels, AnEditedInputOrAnotherSettingIsNeverFixed) {
  // fix.ll would be fixed (B: one output in 59 runs, bound 5% x 10 <= A's 50%).
  std::vector<store::JobRow> jobs = {verdict_job("a", "fix.ll", {"X", "Y"}),
                                     many_runs(verdict_job("b", "fix.ll", {"Y"}), 59)};
  ASSERT_EQ(scan::pair_jobs(jobs, "a", jobs, "b").at(0).label, scan::Label::fixed);
  // The two scans ran under different settings.
  auto other = scan::pair_jobs(jobs, "a", jobs, "b", scan::k_default_fix_margin, false);
  EXPECT_EQ(other.at(0).label, scan::Label::not_seen);
  EXPECT_EQ(other.at(0).unfixable, "setting");
  // The input was edited between the scans (another hash); an unknown hash is no difference.
  jobs[0].input_hash = "0123";
  jobs[1].input_hash = "4567";
  auto edited = scan::pair_jobs(jobs, "a", jobs, "b");
  EXPECT_EQ(edited.at(0).label, scan::Label::not_seen);
  EXPECT_EQ(edited.at(0).unfixable, "input");
  jobs[1].input_hash.clear();
  EXPECT_EQ(scan::pair_jobs(jobs, "a", jobs, "b").at(0).label, scan::Label::fixed);
}

TEST(ScanLabels, FixedNeedsTheMarginAndAWorkingCompiler) {
  // A: 1 of 20 runs differs (5%). B: one output; fixed needs B's bound <= 0.5%.
  auto a = many_runs(verdict_job("a", "k.ll", {"X", "Y"}), 20);
  a.variants = {{"X", 19, 0, "ok", "", {}, ""}, {"Y", 1, 3, "ok", "", {}, ""}};
  auto b = many_runs(verdict_job("b", "k.ll", {"X"}), 100);
  EXPECT_EQ(scan::label_pair(&a, &b), scan::Label::not_seen);
  b = many_runs(verdict_job("b", "k.ll", {"X"}), 800);
  EXPECT_EQ(scan::label_pair(&a, &b), scan::Label::fixed);
  EXPECT_EQ(scan::label_pair(&a, &b, 1000), scan::Label::not_seen);
  // A compiler that now fails on every run has not been fixed.
  auto failing = verdict_job("b", "k.ll", {"E"}, false);
  EXPECT_EQ(scan::label_pair(&a, &failing), scan::Label::failed);
}

TEST(ScanReport, StatusesAndExitCode) {
  store::ScanResult r;
  r.jobs.push_back(verdict_job("a", "det.ll", {"X"}));
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 0);
  auto expected = verdict_job("a", "exp.ll", {"X", "Y"});
  expected.expected_vary = true;
  expected.expect_reason = "known";
  r.jobs.push_back(expected);
  EXPECT_EQ(scan::job_status(r.jobs.back(), scan::expected_rate(r)),
            scan::JobStatus::nondeterministic_expected);
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 0);
  auto gone = verdict_job("a", "gone.ll", {"X"});
  gone.expected_vary = true;
  gone.runs = gone.ok_runs = gone.variants[0].count = 100; // bound 3.0% < the expected 5%
  r.jobs.push_back(gone);
  EXPECT_EQ(scan::job_status(r.jobs.back(), scan::expected_rate(r)),
            scan::JobStatus::no_longer_nondeterministic);
  EXPECT_EQ(scan::scan_exit_code(scan::count(r)), 1);
  std::string junit = report::scan_to_junit(r);
  EXPECT_NE(junit.find("<skipped message=\"known to vary: known\"/>"), std::string::npos);
  EXPECT_NE(junit.find("type=\"no-longer-nondeterministic\""), std::string::npos);
  std::string text = report::scan_to_text(r, {});
  EXPECT_NE(text.find("1 of 3 jobs vary"), std::string::npos) << text;
  std::string html = report::scan_to_html(r, [](const std::string&) { return std::string(); });
  EXPECT_NE(html.find("<svg id=\"chart-target\""), std::string::npos);
  EXPECT_NE(html.find("exp.ll"), std::string::npos);
  // Triage: the stale expectation's section comes before the expected variance's, each
  // count links to its section, and every job has its anchor (a card, or a table row).
  size_t stale = html.find("<section id=\"sec-no-longer-nondeterministic\"");
  size_t expect = html.find("<section id=\"sec-nondeterministic-expected\"");
  ASSERT_NE(stale, std::string::npos);
  ASSERT_NE(expect, std::string::npos);
  EXPECT_LT(stale, expect);
  EXPECT_NE(html.find("href=\"#sec-no-longer-nondeterministic\""), std::string::npos);
  for (const auto& j : r.jobs)
    EXPECT_NE(html.find("id=\"job-" + j.id + "\""), std::string::npos) << j.id;
  // Runs count from 1 in the HTML and the JSON; the row keeps the 0-based index.
  EXPECT_EQ(r.jobs[1].variants[1].first_run + 1,
            report::scan_to_json(r)["jobs"][1]["variants"][1]["first_run"].get<uint64_t>());
  EXPECT_NE(html.find("class=\"ci\""), std::string::npos);
}

} // namespace

// merge_variants folds through engine::VariantFold: a known id counts more runs, a new one
// comes with its first run's fields, and the row ends in engine::order.
TEST(ScanResult, MergeVariantsFoldsARoundIntoTheRow) {
  store::JobRow row;
  row.runs = 4;
  row.ok_runs = 4;
  row.variants = {{"a", 3, 0, "ok", "", {}, ""}, {"b", 1, 2, "ok", "", {}, ""}};
  engine::RunOutput out;
  out.completed = 4;
  out.records.resize(4);
  const char* outcome[] = {"b", "c", "b", "c"};
  for (uint64_t i = 0; i < 4; ++i) {
    out.records[i].done = true;
    out.records[i].variant = outcome[i];
    out.records[i].status = i % 2 ? backend::Status::compile_error : backend::Status::ok;
    out.records[i].log = i % 2 ? "error: bad" : "";
  }
  out.variants = {engine::Variant{"b", 2, 0, backend::Status::ok, "", {}, ""},
                  engine::Variant{"c", 2, 1, backend::Status::compile_error, "exit 1", {}, ""}};
  auto added = store::merge_variants(row, out, 4, true);
  ASSERT_EQ(added.size(), 1U);
  EXPECT_EQ(added[0]->id, "c");
  ASSERT_EQ(row.variants.size(), 3U);
  EXPECT_EQ(row.variants[0].id, "a"); // 3 and 3: a was first seen at run 0, b at 2
  EXPECT_EQ(row.variants[1].id, "b");
  EXPECT_EQ(row.variants[1].count, 3U);
  EXPECT_EQ(row.variants[1].first_run, 2U);
  EXPECT_EQ(row.variants[2].id, "c");
  EXPECT_EQ(row.variants[2].first_run, 5U);
  EXPECT_EQ(row.variants[2].detail, "exit 1");
  EXPECT_EQ(row.variants[2].log, "error: bad");
  EXPECT_EQ(row.runs, 8U);
  EXPECT_EQ(row.ok_runs, 6U);
}
