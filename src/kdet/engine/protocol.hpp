//===- engine/protocol.hpp - driver <-> worker messages ---------------------===//
//
// Frames on a pipe: u32 magic, u32 type, u64 length, payload. Payloads are a
// flat binary encoding (Writer/Reader), so a worker's allocations while
// reading a request do not depend on run numbers or seeds' digit counts.
// A frame that fails any check is a protocol error, never undefined behaviour.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/backend/backend.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kdet::engine {

enum class MessageType : uint32_t { hello = 1, compile = 2, result = 3, quit = 4 };

// Serializes integers and length-prefixed strings.
class Writer {
public:
  Writer& u32(uint32_t v);
  Writer& u64(uint64_t v);
  Writer& str(std::string_view v);
  std::string& buffer() { return m_buf; }

private:
  std::string m_buf;
};

// Reads what Writer wrote; any overrun sets failed() instead of reading past the end.
class Reader {
public:
  // With `bucket` > 0, every string's capacity is its length rounded up to a multiple of
  // `bucket`, so that the heap blocks a decode takes do not depend on the values' lengths.
  explicit Reader(std::string_view data, size_t bucket = 0) : m_data(data), m_bucket(bucket) {}
  uint32_t u32();
  uint64_t u64();
  std::string str();
  bool failed() const { return m_failed; }
  bool at_end() const { return m_pos == m_data.size(); }

private:
  std::string_view m_data;
  size_t m_bucket;
  size_t m_pos = 0;
  bool m_failed = false;
};

// Writes one frame; false on a broken pipe or other write error.
bool write_frame(int fd, MessageType type, std::string_view payload);

enum class ReadStatus { ok, eof, bad_frame, timed_out, interrupted, error };

// Reads one frame. With a deadline, gives up when it passes. `interrupt_fd`,
// when >= 0, is polled too: readable means the user asked kdet to stop.
ReadStatus read_frame(int fd, MessageType& type, std::string& payload,
                      std::optional<std::chrono::steady_clock::time_point> deadline,
                      int interrupt_fd = -1);

// read_frame in pieces, for a loop that waits on many pipes at once (engine/executor): each
// read_some() takes what a non-blocking fd holds now and says whether a whole frame is in.
class FrameReader {
public:
  enum class Got { more, frame, eof, bad_frame, error };
  // Reads until the fd has nothing more now (more), a frame is whole (frame: type() and
  // payload() hold it, and the next read_some starts the next frame), the writers closed the
  // pipe (eof: at a frame's start; bad_frame: inside one) or the read failed.
  Got read_some(int fd);
  MessageType type() const { return m_type; }
  std::string& payload() { return m_payload; }

private:
  char m_header[16] = {};
  size_t m_have = 0; // bytes of the frame read so far, header included
  uint64_t m_len = 0;
  MessageType m_type = MessageType::hello;
  std::string m_payload;
};

// The compile request the driver sends for one run.
struct CompileMessage {
  uint64_t run_index = 0;
  uint64_t seed = 0; // this run's seed
  HeapSteps heap;    // what the worker does to its heap before compiling (the heap factor)
  backend::CompileRequest request; // its `host` is the run's view of the host, encoded whole
};

std::string encode(const CompileMessage& m);
bool decode(std::string_view payload, CompileMessage& m);

// The worker's answer for one run.
struct ResultMessage {
  backend::CompileResult result;
  uint64_t compile_ns = 0; // time inside the backend call
  uint64_t churn_ns = 0;   // time spent churning the heap first
  // CPU time (user + system) of the compile: the worker's own during a library
  // call (its compiler threads included), or the exec'd compiler's.
  uint64_t compile_cpu_ns = 0;
  // The worker's CPU time since its previous reply (since its start for the
  // first), less compile_cpu_ns: kdet's own share of this run in the worker.
  uint64_t own_cpu_ns = 0;
};

std::string encode(const ResultMessage& m);
bool decode(std::string_view payload, ResultMessage& m);

// The worker's first message: the loaded compiler, or why it could not load.
struct HelloMessage {
  bool ok = false;
  std::string error;
  backend::Identity identity;
};

std::string encode(const HelloMessage& m);
bool decode(std::string_view payload, HelloMessage& m);

} // namespace kdet::engine
