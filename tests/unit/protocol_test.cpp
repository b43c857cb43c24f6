// The worker protocol: round trips, and garbage never decodes.
#include "kdet/engine/protocol.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <random>
#include <unistd.h>

using namespace kdet;
using namespace kdet::engine;

TEST(Protocol, CompileMessageRoundTrips) {
  CompileMessage m;
  m.run_index = 41;
  m.seed = 0xdeadbeefcafef00dULL;
  m.churn = 1;
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
  ResultMessage d;
  ASSERT_TRUE(decode(encode(m), d));
  ASSERT_EQ(d.result.artifacts.size(), 2u);
  EXPECT_EQ(d.result.artifacts[1].data, m.result.artifacts[1].data);
  EXPECT_EQ(d.compile_ns, 123u);
}

TEST(Protocol, TruncatedAndRandomPayloadsAreRejected) {
  ResultMessage m;
  m.result.status = backend::Status::ok;
  m.result.artifacts = {{"ptx", "abc"}};
  std::string good = encode(m);
  ResultMessage d;
  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_FALSE(decode(good.substr(0, cut), d)) << cut;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (auto& c : junk)
      c = static_cast<char>(rng());
    CompileMessage c;
    (void)decode(junk, d); // must not crash or over-read (ASan builds check)
    (void)decode(junk, c);
  }
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
