// Bounded memory: capped regular-file-only reads, artifacts streamed between
// worker and driver, outcome ids unchanged by where an artifact lives, and
// the line diff's report budget.
#include "kdet/diff/line_diff.hpp"
#include "kdet/engine/artifact_files.hpp"
#include "kdet/engine/protocol.hpp"
#include "kdet/engine/runner.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/stream.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::engine;

namespace {

struct ScratchDir {
  std::string path = make_temp_dir("kdet-unit-mem");
  ~ScratchDir() { remove_tree(path); }
};

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>('a' + (i * 7) % 26);
  return s;
}

} // namespace

TEST(ByteSize, ParsesSuffixesAndRejectsZeroAndOverflow) {
  EXPECT_EQ(parse_byte_size("1"), 1u);
  EXPECT_EQ(parse_byte_size("10M"), 10u << 20);
  EXPECT_EQ(parse_byte_size(" 2GiB"), std::nullopt); // "Gi" is not a suffix
  EXPECT_EQ(parse_byte_size("2gb"), 2ULL << 30);
  EXPECT_EQ(parse_byte_size("1T"), 1ULL << 40);
  EXPECT_EQ(parse_byte_size("16777215T"), 16777215ULL << 40);
  for (const char* bad :
       {"", "0", "0M", "-1", "1.5G", "10X", "M", "16777216T", "99999999999999999999"})
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << bad;
}

TEST(StreamRegularFile, ReadsInChunksUpToTheCap) {
  ScratchDir t;
  std::string data = pattern(3 * k_stream_chunk + 17);
  write_file_atomic(t.path + "/f", data);
  std::string got;
  size_t chunks = 0;
  auto r = stream_regular_file(t.path + "/f", data.size(), [&](std::string_view c) {
    EXPECT_LE(c.size(), k_stream_chunk);
    got.append(c);
    ++chunks;
  });
  EXPECT_EQ(r.status, StreamResult::Status::ok);
  EXPECT_EQ(got, data);
  EXPECT_EQ(chunks, 4u);
  // A link to a regular file is followed.
  ASSERT_EQ(::symlink((t.path + "/f").c_str(), (t.path + "/l").c_str()), 0);
  EXPECT_EQ(stream_regular_file(t.path + "/l", data.size(), [](std::string_view) {}).status,
            StreamResult::Status::ok);
  // One byte under the size: too large, and nothing is read.
  size_t seen = 0;
  r = stream_regular_file(t.path + "/f", data.size() - 1,
                          [&](std::string_view c) { seen += c.size(); });
  EXPECT_EQ(r.status, StreamResult::Status::too_large);
  EXPECT_EQ(r.size, data.size());
  EXPECT_EQ(seen, 0u);
  EXPECT_EQ(stream_regular_file(t.path + "/missing", 10, [](std::string_view) {}).status,
            StreamResult::Status::unreadable);
}

TEST(StreamRegularFile, RefusesFifosFoldersAndDevicesWithoutReading) {
  ScratchDir t;
  ASSERT_EQ(::mkfifo((t.path + "/fifo").c_str(), 0600), 0);
  auto r = stream_regular_file(t.path + "/fifo", 100, [](std::string_view) { ADD_FAILURE(); });
  EXPECT_EQ(r.status, StreamResult::Status::not_regular);
  EXPECT_EQ(r.what, "a FIFO");
  make_dirs(t.path + "/dir");
  EXPECT_EQ(stream_regular_file(t.path + "/dir", 100, [](std::string_view) {}).what, "a folder");
  // A private /dev/zero and a link to it (the endless read of the report).
  if (::mknod((t.path + "/zero").c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0)
    GTEST_SKIP() << "mknod not permitted";
  ASSERT_EQ(::symlink((t.path + "/zero").c_str(), (t.path + "/out").c_str()), 0);
  r = stream_regular_file(t.path + "/out", 1ULL << 40, [](std::string_view) { ADD_FAILURE(); });
  EXPECT_EQ(r.status, StreamResult::Status::not_regular);
  EXPECT_EQ(r.what, "a character device");
}

TEST(ArtifactFiles, SmallInlineLargeInAFileSameHashAndOutcome) {
  ScratchDir t;
  std::string big = pattern(k_inline_artifact_max + 5);
  backend::CompileResult r;
  r.status = backend::Status::ok;
  r.artifacts = {{"ptx", "// small"}, {"cubin", big}};
  backend::CompileResult in_memory = r;
  settle_artifacts(r, t.path, 1ULL << 30);
  ASSERT_EQ(r.status, backend::Status::ok);
  EXPECT_FALSE(r.artifacts[0].file);
  EXPECT_EQ(r.artifacts[0].hash, hash_bytes("// small"));
  ASSERT_TRUE(r.artifacts[1].file);
  EXPECT_TRUE(r.artifacts[1].data.empty());
  EXPECT_EQ(r.artifacts[1].size, big.size());
  EXPECT_EQ(r.artifacts[1].hash, hash_bytes(big));
  EXPECT_EQ(r.artifacts[1].file->path(), t.path + "/artifact1");

  // Through the protocol: the driver gets the name of the file, not its bytes.
  ResultMessage m, d;
  m.result = r;
  std::string payload = encode(m);
  EXPECT_LT(payload.size(), 4096u);
  ASSERT_TRUE(decode(payload, d));
  ASSERT_TRUE(adopt_artifact_files(d.result, t.path));
  EXPECT_EQ(backend::artifact_bytes(d.result.artifacts[1]), big);
  // The outcome id does not depend on where the bytes live.
  EXPECT_EQ(outcome_id(d.result), outcome_id(in_memory));

  // Kept files move out of the work folder and go with their last owner.
  auto keep = std::make_shared<const TempFolder>("unit-keep");
  std::string keep_path = keep->path();
  keep_artifact_file(d.result.artifacts[1], keep, 1);
  EXPECT_NE(::access((t.path + "/artifact1").c_str(), F_OK), 0);
  EXPECT_EQ(backend::artifact_bytes(d.result.artifacts[1]), big);
  keep.reset();
  EXPECT_EQ(::access(keep_path.c_str(), F_OK), 0); // still held by the artifact
  d.result.artifacts.clear();
  EXPECT_NE(::access(keep_path.c_str(), F_OK), 0);
}

TEST(ArtifactFiles, CapNonRegularOutputsAndGarbledPaths) {
  ScratchDir t;
  backend::CompileResult r;
  r.status = backend::Status::ok;
  r.artifacts = {{"ptx", pattern(1000)}};
  settle_artifacts(r, t.path, 999);
  EXPECT_EQ(r.status, backend::Status::output_too_large);
  EXPECT_TRUE(r.artifacts.empty());
  EXPECT_NE(r.detail.find("larger than --max-output"), std::string::npos) << r.detail;

  // An exec output that is a FIFO: an outcome, not a hang.
  ASSERT_EQ(::mkfifo((t.path + "/output").c_str(), 0600), 0);
  backend::CompileResult f;
  f.status = backend::Status::ok;
  backend::Artifact a;
  a.name = "output";
  a.file = std::make_shared<OwnedFile>(t.path + "/output");
  f.artifacts.push_back(std::move(a));
  settle_artifacts(f, t.path, 1ULL << 30);
  EXPECT_EQ(f.status, backend::Status::compile_error);
  EXPECT_NE(f.detail.find("a FIFO, not a regular file"), std::string::npos) << f.detail;

  // A file output larger than the cap.
  write_file_atomic(t.path + "/big", pattern(5000));
  backend::CompileResult g;
  g.status = backend::Status::ok;
  backend::Artifact b;
  b.name = "output";
  b.file = std::make_shared<OwnedFile>(t.path + "/big");
  g.artifacts.push_back(std::move(b));
  settle_artifacts(g, t.path, 4096);
  EXPECT_EQ(g.status, backend::Status::output_too_large);

  // A reply naming a file elsewhere is refused, and that file is left alone.
  write_file_atomic(t.path + "/victim", "keep me");
  backend::CompileResult h;
  h.status = backend::Status::ok;
  backend::Artifact c;
  c.name = "output";
  c.size = 7;
  c.file = std::make_shared<OwnedFile>(t.path + "/victim", nullptr, false);
  h.artifacts.push_back(std::move(c));
  EXPECT_FALSE(adopt_artifact_files(h, t.path));
  h.artifacts.clear();
  EXPECT_EQ(read_file(t.path + "/victim"), "keep me");
}

TEST(Protocol, MaxOutputTravels) {
  CompileMessage m, d;
  m.request.max_output = 12345;
  ASSERT_TRUE(decode(encode(m), d));
  EXPECT_EQ(d.request.max_output, 12345u);
}

TEST(DiffLines, HunkBudgetBoundsTheReport) {
  using namespace kdet::diff::detail;
  std::vector<uint32_t> a, b;
  std::vector<std::string> ta, tb;
  std::vector<size_t> na, nb;
  for (uint32_t i = 0; i < 5000; ++i) {
    a.push_back(i), ta.push_back("a" + std::to_string(i)), na.push_back(i + 1);
    b.push_back(100000 + i), tb.push_back("b" + std::to_string(i)), nb.push_back(i + 1);
  }
  EditScript s = diff_sequences(a, b);
  size_t budget = 1000;
  bool cut = false;
  auto hunks = make_hunks(s, ta, tb, na, nb, 3, &budget, &cut);
  size_t lines = 0;
  for (const auto& h : hunks)
    lines += h.lines.size();
  EXPECT_TRUE(cut);
  EXPECT_EQ(lines, 1000u);
  EXPECT_EQ(budget, 0u);
  cut = false;
  size_t plenty = 100000;
  hunks = make_hunks(s, ta, tb, na, nb, 3, &plenty, &cut);
  EXPECT_FALSE(cut);
  EXPECT_EQ(hunks.at(0).lines.size(), 10000u);
}
