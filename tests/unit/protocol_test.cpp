// The worker protocol: round trips, and a damaged payload never decodes to another message.
#include "kdet/engine/protocol.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <random>
#include <sys/mman.h>
#include <unistd.h>

using namespace kdet;
using namespace kdet::engine;

TEST(Protocol, CompileMessageRoundTrips) {
  CompileMessage m;
  m.run_index = 41;
  m.seed = 0xdeadbeefcafef00dULL;
  m.heap = {true, 7, true, 9};
  m.request.host = {{"A=1", "B"}, "/w", 027, {1, 3}, "h", "d", {{"/c", "/p"}}, true};
  m.request.input = std::string("bin\0ary", 7);
  m.request.input_path = "/x/k.ll";
  m.request.input_name = "k.ll";
  m.request.workdir = "/tmp/w";
  m.request.options = {"-arch=compute_90a", "-opt=3", ""};
  m.request.timeout = std::chrono::milliseconds(1500);
  CompileMessage d;
  ASSERT_TRUE(decode(encode(m), d));
  EXPECT_EQ(d.run_index, 41u);
  EXPECT_EQ(d.seed, m.seed);
  EXPECT_EQ(d.request.input, m.request.input);
  EXPECT_EQ(d.request.options, m.request.options);
  EXPECT_EQ(d.request.timeout.count(), 1500);
  EXPECT_EQ(d.heap, m.heap);                 // the heap steps, whole
  EXPECT_EQ(d.request.host, m.request.host); // the view of the host, whole
}

// The heap a decode leaves in use, in bytes (glibc's arena count of the blocks in use).
static size_t decoded_footprint(const CompileMessage& m) {
  const std::string payload = encode(m);
  const size_t before = mallinfo2().uordblks;
  CompileMessage d;
  EXPECT_TRUE(decode(payload, d));
  return mallinfo2().uordblks - before;
}

// The worker decodes a request just before a library compiler runs in its process: a factor's
// value (how many CPUs cpus=vary picked, how long a varied folder name is) must not change the
// heap blocks the decode takes, or a compiler that follows heap addresses would seem to follow
// that factor. Measured through glibc's own count, so it holds for the real allocator.
TEST(Protocol, DecodeTakesTheSameHeapWhateverTheValues) {
  CompileMessage a;
  a.request.input = "target triple\n";
  a.request.options = {"-opt=3"};
  a.request.host.env = {"TMPDIR=/tmp/k/t1-abcdefgh"};
  a.request.host.cwd = "/tmp/k/c1-abcdefgh";
  a.request.host.cpus = {3};
  a.request.host.hostname = "hab";
  const size_t base = decoded_footprint(a);
  if (base == 0) GTEST_SKIP() << "mallinfo2 counts nothing under this allocator (a sanitizer's)";
  CompileMessage b = a;
  b.request.host.cpus.clear();
  for (int c = 0; c < 16; ++c)
    b.request.host.cpus.push_back(c);
  b.request.host.env = {"TMPDIR=/tmp/k/t100-abcdefgh-longer-by-twenty-bytes"};
  b.request.host.cwd = "/tmp/k/c100-abcdefgh";
  b.request.host.hostname = "a-host-name-of-forty-characters-or-so-xx";
  EXPECT_EQ(decoded_footprint(b), base);
  CompileMessage c = a;
  c.request.host.cpus = {0, 1};
  EXPECT_EQ(decoded_footprint(c), base);
}

TEST(Protocol, InputPartsRoundTrip) {
  using Role = backend::InputPart::Role;
  CompileMessage m;
  m.request.input = "main";
  m.request.parts = {
      {Role::lazy_module, std::string("libdevice"), std::string("BC\xc0\xde\0", 5), 0},
      {Role::header, std::string("k.h"), "#define K 1\n", 0},
      {Role::name_expr, std::string("&f<int>"), "", 0},
      {Role::jit_input, std::nullopt, "ltoir", 3}};
  CompileMessage d;
  ASSERT_TRUE(decode(encode(m), d));
  ASSERT_EQ(d.request.parts.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(d.request.parts[i].role, m.request.parts[i].role);
    EXPECT_EQ(d.request.parts[i].name, m.request.parts[i].name);
    EXPECT_EQ(d.request.parts[i].bytes, m.request.parts[i].bytes);
    EXPECT_EQ(d.request.parts[i].jit_type, m.request.parts[i].jit_type);
  }
  // The mtime factor's binds travel beside the parts.
  m.request.host.binds = {{"/s/m0-a/0", "/src/a.py"}, {"/s/m0-a/1", "/src/b.h"}};
  ASSERT_TRUE(decode(encode(m), d));
  EXPECT_EQ(d.request.host.binds, m.request.host.binds);
  m.request.host.binds.clear();
  // No parts: a single-input request decodes to none.
  m.request.parts.clear();
  ASSERT_TRUE(decode(encode(m), d));
  EXPECT_TRUE(d.request.parts.empty());
  // A role past the last one is a damaged frame.
  m.request.parts = {{Role::module, std::nullopt, "x", 0}};
  std::string payload = encode(m);
  size_t role_at =
      payload.size() - (4 + 4 + 8 + 0 + 8 + 1 + 4); // role, has_name, name, bytes, type
  payload[role_at] = 9;
  EXPECT_FALSE(decode(payload, d));
}

TEST(Protocol, ResultMessageRoundTrips) {
  ResultMessage m;
  m.result.status = backend::Status::ok;
  m.result.log = "warning";
  m.result.artifacts = {{"ptx", "// ptx"},
                        {"cubin", std::string("\x7f"
                                              "ELF\0\1",
                                              6)}};
  m.compile_ns = 123;
  m.compile_cpu_ns = 456;
  m.own_cpu_ns = 789;
  ResultMessage d;
  ASSERT_TRUE(decode(encode(m), d));
  ASSERT_EQ(d.result.artifacts.size(), 2u);
  EXPECT_EQ(d.result.artifacts[1].data, m.result.artifacts[1].data);
  EXPECT_EQ(d.compile_ns, 123u);
  EXPECT_EQ(d.compile_cpu_ns, 456u);
  EXPECT_EQ(d.own_cpu_ns, 789u);
}

TEST(Protocol, TruncatedPayloadsAreRejected) {
  ResultMessage m;
  m.result.status = backend::Status::ok;
  m.result.artifacts = {{"ptx", "abc"}};
  std::string good = encode(m);
  ResultMessage d;
  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_FALSE(decode(good.substr(0, cut), d)) << cut;
}

namespace {

// A valid payload with 1..3 bytes overwritten, one byte cut off or one byte appended.
std::string mutate(const std::string& good, std::mt19937_64& rng) {
  std::string s = good;
  switch (rng() % 3) {
  case 0:
    for (uint64_t k = 1 + rng() % 3; k > 0; --k)
      s[rng() % s.size()] = static_cast<char>(rng());
    break;
  case 1:
    s.erase(rng() % s.size(), 1);
    break;
  default:
    s.insert(rng() % (s.size() + 1), 1, static_cast<char>(rng()));
  }
  return s;
}

} // namespace

// A damaged payload either fails to decode or decodes to the message that encodes to exactly those
// bytes: decode is the inverse of encode wherever it accepts, so damage never reads as something
// the bytes do not say (and never crashes or over-reads).
TEST(Protocol, DamagedPayloadsFailOrRoundTrip) {
  ResultMessage r;
  r.result.status = backend::Status::crashed;
  r.result.signal = 11;
  r.result.log = "log text";
  r.result.artifacts = {{"ptx", "// ptx body"},
                        {"cubin", std::string("\x7f"
                                              "ELF\0\1",
                                              6)}};
  r.compile_ns = 99;
  CompileMessage c;
  c.run_index = 7;
  c.request.input = "define void @k() { ret void }";
  c.request.input_name = "k.ll";
  c.request.options = {"-opt=3", "-arch=compute_90a"};
  c.request.host.env = {"A=1"};
  c.request.host.cwd = "/w/run";
  c.request.host.umask = 022;
  c.request.host.pid_namespace = true;
  const std::string good_r = encode(r), good_c = encode(c);
  std::mt19937_64 rng(7);
  int decoded = 0, rejected = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string bad_r = mutate(good_r, rng), bad_c = mutate(good_c, rng);
    ResultMessage dr;
    if (decode(bad_r, dr)) {
      ++decoded;
      EXPECT_EQ(encode(dr), bad_r) << "iteration " << i;
    } else {
      ++rejected;
    }
    CompileMessage dc;
    if (decode(bad_c, dc)) {
      ++decoded;
      // pid_namespace reads any value but 1 as false, so compare the message's own re-encoding.
      std::string again = encode(dc);
      CompileMessage dc2;
      ASSERT_TRUE(decode(again, dc2)) << "iteration " << i;
      EXPECT_EQ(encode(dc2), again) << "iteration " << i;
      EXPECT_EQ(again.size(), bad_c.size()) << "iteration " << i;
    } else {
      ++rejected;
    }
  }
  // Both paths ran: damage inside a string's bytes decodes, damage to a length does not.
  EXPECT_GT(decoded, 100);
  EXPECT_GT(rejected, 100);
}

TEST(Protocol, FramesOverAPipeAndBadMagic) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_TRUE(write_frame(p[1], MessageType::result, "payload"));
  MessageType t;
  std::string payload;
  ASSERT_EQ(read_frame(p[0], t, payload, std::nullopt), ReadStatus::ok);
  EXPECT_EQ(t, MessageType::result);
  EXPECT_EQ(payload, "payload");
  // A compiler scribbling on the pipe: bad magic is a bad frame, not a crash.
  const char junk[16] = "garbage-garbage";
  ASSERT_EQ(write(p[1], junk, 16), 16);
  EXPECT_EQ(read_frame(p[0], t, payload, std::nullopt), ReadStatus::bad_frame);
  close(p[1]);
  EXPECT_EQ(read_frame(p[0], t, payload, std::nullopt), ReadStatus::eof);
  close(p[0]);
}

TEST(Protocol, ReadTimesOut) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  MessageType t;
  std::string payload;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  EXPECT_EQ(read_frame(p[0], t, payload, deadline), ReadStatus::timed_out);
  close(p[0]);
  close(p[1]);
}

// The executor's reader: a frame written a byte at a time is whole only at its last byte; two
// frames in one write come out one by one; EOF at a frame's start is eof, inside one bad_frame.
TEST(Protocol, FrameReaderTakesFramesInPieces) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_NONBLOCK), 0);
  // The frames' bytes, made by write_frame into a file (a pipe would not hold them all).
  int f = memfd_create("frames", 0);
  ASSERT_GE(f, 0);
  ASSERT_TRUE(write_frame(f, MessageType::result, "first"));
  ASSERT_TRUE(write_frame(f, MessageType::hello, ""));
  ASSERT_TRUE(write_frame(f, MessageType::result, std::string(100000, 'x')));
  ASSERT_EQ(lseek(f, 0, SEEK_SET), 0);
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = read(f, buf, sizeof buf)) > 0;)
    bytes.append(buf, static_cast<size_t>(n));
  close(f);
  ASSERT_EQ(bytes.size(), 3 * 16 + 5 + 100000u);
  const size_t first = 16 + 5, second = 16;

  FrameReader r;
  EXPECT_EQ(r.read_some(p[0]), FrameReader::Got::more); // nothing written yet
  for (size_t i = 0; i + 1 < first; ++i) {
    ASSERT_EQ(write(p[1], &bytes[i], 1), 1);
    ASSERT_EQ(r.read_some(p[0]), FrameReader::Got::more) << "byte " << i;
  }
  ASSERT_EQ(write(p[1], &bytes[first - 1], 1), 1);
  ASSERT_EQ(r.read_some(p[0]), FrameReader::Got::frame);
  EXPECT_EQ(r.type(), MessageType::result);
  EXPECT_EQ(r.payload(), "first");
  // The empty hello and the start of the large frame in one write.
  ASSERT_EQ(write(p[1], bytes.data() + first, second + 40), static_cast<ssize_t>(second + 40));
  ASSERT_EQ(r.read_some(p[0]), FrameReader::Got::frame);
  EXPECT_EQ(r.type(), MessageType::hello);
  EXPECT_EQ(r.payload(), "");
  EXPECT_EQ(r.read_some(p[0]), FrameReader::Got::more);
  // The rest of the large frame, in pieces larger than the pipe holds at once.
  size_t at = first + second + 40;
  FrameReader::Got got = FrameReader::Got::more;
  while (at < bytes.size()) {
    ssize_t n = write(p[1], bytes.data() + at, bytes.size() - at);
    if (n > 0) at += static_cast<size_t>(n);
    got = r.read_some(p[0]);
    if (at < bytes.size()) {
      ASSERT_EQ(got, FrameReader::Got::more);
    }
  }
  if (got != FrameReader::Got::frame) got = r.read_some(p[0]);
  ASSERT_EQ(got, FrameReader::Got::frame);
  EXPECT_EQ(r.payload(), std::string(100000, 'x'));
  // Half a header, then the writer goes: bad_frame; a reader at a frame's start sees eof.
  ASSERT_EQ(write(p[1], bytes.data(), 8), 8);
  close(p[1]);
  EXPECT_EQ(r.read_some(p[0]), FrameReader::Got::bad_frame);
  FrameReader fresh;
  EXPECT_EQ(fresh.read_some(p[0]), FrameReader::Got::eof);
  close(p[0]);
}

TEST(Protocol, FrameReaderRejectsBadMagic) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_NONBLOCK), 0);
  const char junk[16] = "garbage-garbage";
  ASSERT_EQ(write(p[1], junk, 16), 16);
  FrameReader r;
  EXPECT_EQ(r.read_some(p[0]), FrameReader::Got::bad_frame);
  close(p[0]);
  close(p[1]);
}
