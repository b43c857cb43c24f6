#include "kdet/engine/protocol.hpp"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace kdet::engine {

namespace {
constexpr uint32_t k_magic = 0x4b444554; // "KDET"
constexpr uint64_t k_max_frame = 1ULL << 32;
// Decoded strings and lists take capacity in steps of this many bytes (decode of a
// CompileMessage).
constexpr size_t k_decode_bucket = 4096;

// Clears v and gives it room for n elements, in steps of k_decode_bucket bytes: a list's
// length (the CPUs of cpus=vary, 1 to all of them) must not pick the size of its heap block
// either, nor its growth by push_back (each step frees a block the compiler's next malloc of
// that size would take).
template <class T> void reserve_stepped(std::vector<T>& v, size_t n) {
  constexpr size_t per = k_decode_bucket / sizeof(T) > 0 ? k_decode_bucket / sizeof(T) : 1;
  v.clear();
  v.reserve((n / per + 1) * per);
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}
} // namespace

Writer& Writer::u32(uint32_t v) {
  m_buf.append(reinterpret_cast<const char*>(&v), sizeof v);
  return *this;
}
Writer& Writer::u64(uint64_t v) {
  m_buf.append(reinterpret_cast<const char*>(&v), sizeof v);
  return *this;
}
Writer& Writer::str(std::string_view v) {
  u64(v.size());
  m_buf.append(v);
  return *this;
}

uint32_t Reader::u32() {
  uint32_t v = 0;
  if (m_failed || m_data.size() - m_pos < sizeof v) {
    m_failed = true;
    return 0;
  }
  std::memcpy(&v, m_data.data() + m_pos, sizeof v);
  m_pos += sizeof v;
  return v;
}
uint64_t Reader::u64() {
  uint64_t v = 0;
  if (m_failed || m_data.size() - m_pos < sizeof v) {
    m_failed = true;
    return 0;
  }
  std::memcpy(&v, m_data.data() + m_pos, sizeof v);
  m_pos += sizeof v;
  return v;
}
std::string Reader::str() {
  uint64_t n = u64();
  if (m_failed || m_data.size() - m_pos < n) {
    m_failed = true;
    return {};
  }
  std::string s;
  if (m_bucket > 0) s.reserve((n / m_bucket + 1) * m_bucket - 1);
  s.assign(m_data.substr(m_pos, n));
  m_pos += n;
  return s;
}

bool write_frame(int fd, MessageType type, std::string_view payload) {
  char header[16];
  uint32_t magic = k_magic, t = static_cast<uint32_t>(type);
  uint64_t len = payload.size();
  std::memcpy(header, &magic, 4);
  std::memcpy(header + 4, &t, 4);
  std::memcpy(header + 8, &len, 8);
  return write_all(fd, header, sizeof header) && write_all(fd, payload.data(), payload.size());
}

namespace {

// Reads exactly n bytes, honouring the deadline and the interrupt fd.
ReadStatus read_exact(int fd, char* p, size_t n,
                      std::optional<std::chrono::steady_clock::time_point> deadline,
                      int interrupt_fd, bool at_start) {
  using namespace std::chrono;
  size_t got = 0;
  while (got < n) {
    int wait_ms = -1;
    if (deadline) {
      auto left = duration_cast<milliseconds>(*deadline - steady_clock::now()).count();
      if (left <= 0) return ReadStatus::timed_out;
      wait_ms = static_cast<int>(std::min<long long>(left + 1, 1 << 30));
    }
    pollfd pfd[2] = {{fd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
    int r = ::poll(pfd, interrupt_fd >= 0 ? 2 : 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ReadStatus::error;
    if (r == 0) continue; // loop re-checks the deadline
    if (interrupt_fd >= 0 && (pfd[1].revents & POLLIN)) return ReadStatus::interrupted;
    if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t k = ::read(fd, p + got, n - got);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue; // EAGAIN: a non-blocking fd
    if (k < 0) return ReadStatus::error;
    if (k == 0) return (got == 0 && at_start) ? ReadStatus::eof : ReadStatus::bad_frame;
    got += static_cast<size_t>(k);
  }
  return ReadStatus::ok;
}

} // namespace

namespace {

// A frame's header: false when it is not one of ours.
bool parse_header(const char* header, MessageType& type, uint64_t& len) {
  uint32_t magic, t;
  std::memcpy(&magic, header, 4);
  std::memcpy(&t, header + 4, 4);
  std::memcpy(&len, header + 8, 8);
  if (magic != k_magic || t < 1 || t > 4 || len > k_max_frame) return false;
  type = static_cast<MessageType>(t);
  return true;
}

// Gives `payload` room for `len` bytes. Capacity in steps too (see k_decode_bucket): the frame's
// length follows its values'.
void size_payload(std::string& payload, uint64_t len) {
  if (payload.capacity() < len) payload.reserve((len / k_decode_bucket + 1) * k_decode_bucket - 1);
  payload.resize(len);
}

} // namespace

ReadStatus read_frame(int fd, MessageType& type, std::string& payload,
                      std::optional<std::chrono::steady_clock::time_point> deadline,
                      int interrupt_fd) {
  char header[16];
  ReadStatus s = read_exact(fd, header, sizeof header, deadline, interrupt_fd, true);
  if (s != ReadStatus::ok) return s;
  uint64_t len = 0;
  if (!parse_header(header, type, len)) return ReadStatus::bad_frame;
  size_payload(payload, len);
  s = read_exact(fd, payload.data(), len, deadline, interrupt_fd, false);
  if (s == ReadStatus::eof) return ReadStatus::bad_frame;
  return s;
}

FrameReader::Got FrameReader::read_some(int fd) {
  for (;;) {
    const bool in_header = m_have < sizeof m_header;
    char* to = in_header ? m_header + m_have : m_payload.data() + (m_have - sizeof m_header);
    const size_t want = in_header ? sizeof m_header - m_have : m_len - (m_have - sizeof m_header);
    if (want > 0) {
      ssize_t k = ::read(fd, to, want);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) return errno == EAGAIN ? Got::more : Got::error;
      if (k == 0) return m_have == 0 ? Got::eof : Got::bad_frame;
      m_have += static_cast<size_t>(k);
    }
    if (m_have == sizeof m_header && in_header) {
      if (!parse_header(m_header, m_type, m_len)) return Got::bad_frame;
      size_payload(m_payload, m_len);
    }
    if (m_have >= sizeof m_header && m_have - sizeof m_header == m_len) {
      m_have = 0;
      return Got::frame;
    }
  }
}

namespace {

// A run's view of the host: one value, written and read here only.
void put(Writer& w, const HostView& h) {
  w.u32(static_cast<uint32_t>(h.env.size()));
  for (const auto& e : h.env)
    w.str(e);
  w.str(h.cwd).u32(static_cast<uint32_t>(h.umask)).u32(h.pid_namespace ? 1 : 0);
  w.u32(static_cast<uint32_t>(h.binds.size()));
  for (const auto& [copy, path] : h.binds)
    w.str(copy).str(path);
  w.u32(static_cast<uint32_t>(h.cpus.size()));
  for (int c : h.cpus)
    w.u32(static_cast<uint32_t>(c));
  w.str(h.hostname).str(h.domainname);
}

bool get(Reader& rd, HostView& h) {
  uint32_t ne = rd.u32();
  if (rd.failed() || ne > 100000) return false;
  reserve_stepped(h.env, ne);
  for (uint32_t i = 0; i < ne && !rd.failed(); ++i)
    h.env.push_back(rd.str());
  h.cwd = rd.str();
  h.umask = static_cast<int>(rd.u32());
  h.pid_namespace = rd.u32() == 1;
  uint32_t nb = rd.u32();
  if (rd.failed() || nb > 100000) return false;
  reserve_stepped(h.binds, nb);
  for (uint32_t i = 0; i < nb && !rd.failed(); ++i) {
    std::string copy = rd.str();
    h.binds.emplace_back(std::move(copy), rd.str());
  }
  uint32_t nc = rd.u32();
  if (rd.failed() || nc > 100000) return false;
  reserve_stepped(h.cpus, nc);
  for (uint32_t i = 0; i < nc && !rd.failed(); ++i)
    h.cpus.push_back(static_cast<int>(rd.u32()));
  h.hostname = rd.str();
  h.domainname = rd.str();
  return !rd.failed();
}

void put(Writer& w, const HeapSteps& h) {
  w.u32(h.churn ? 1 : 0).u64(h.churn_seed).u32(h.chaos_reseed ? 1 : 0).u64(h.chaos_seed);
}

void get(Reader& rd, HeapSteps& h) {
  h.churn = rd.u32() == 1;
  h.churn_seed = rd.u64();
  h.chaos_reseed = rd.u32() == 1;
  h.chaos_seed = rd.u64();
}

} // namespace

std::string encode(const CompileMessage& m) {
  Writer w;
  w.u64(m.run_index).u64(m.seed);
  put(w, m.heap);
  const auto& r = m.request;
  w.str(r.input).str(r.input_path).str(r.input_name).str(r.workdir);
  w.u64(static_cast<uint64_t>(r.timeout.count()));
  w.u32(static_cast<uint32_t>(r.options.size()));
  for (const auto& o : r.options)
    w.str(o);
  put(w, r.host);
  w.u64(r.max_output);
  w.u32(static_cast<uint32_t>(r.parts.size()));
  for (const auto& part : r.parts)
    w.u32(static_cast<uint32_t>(part.role))
        .u32(part.name ? 1 : 0)
        .str(part.name.value_or(""))
        .str(part.bytes)
        .u32(static_cast<uint32_t>(part.jit_type));
  return std::move(w.buffer());
}

bool decode(std::string_view payload, CompileMessage& m) {
  // Decoded in the worker, just before a library compiler runs in the same process: a value's
  // length (a varied PATH, TMPDIR or folder name) must not move the compiler's heap blocks, or
  // every such factor would seem to act on a compiler whose output follows heap addresses.
  // Strings and lists take capacity in steps; a list's count is checked before its room.
  Reader rd(payload, k_decode_bucket);
  m.run_index = rd.u64();
  m.seed = rd.u64();
  get(rd, m.heap);
  auto& r = m.request;
  r.input = rd.str();
  r.input_path = rd.str();
  r.input_name = rd.str();
  r.workdir = rd.str();
  r.timeout = std::chrono::milliseconds(rd.u64());
  uint32_t n = rd.u32();
  if (rd.failed() || n > 100000) return false;
  reserve_stepped(r.options, n);
  for (uint32_t i = 0; i < n && !rd.failed(); ++i)
    r.options.push_back(rd.str());
  if (!get(rd, r.host)) return false;
  r.max_output = rd.u64();
  uint32_t np = rd.u32();
  if (rd.failed() || np > 100000) return false;
  reserve_stepped(r.parts, np);
  for (uint32_t i = 0; i < np && !rd.failed(); ++i) {
    backend::InputPart part;
    uint32_t role = rd.u32();
    if (role > static_cast<uint32_t>(backend::InputPart::Role::jit_input)) return false;
    part.role = static_cast<backend::InputPart::Role>(role);
    bool has_name = rd.u32() == 1;
    std::string name = rd.str();
    if (has_name) part.name = std::move(name);
    part.bytes = rd.str();
    part.jit_type = static_cast<int>(rd.u32());
    r.parts.push_back(std::move(part));
  }
  return !rd.failed() && rd.at_end();
}

std::string encode(const ResultMessage& m) {
  Writer w;
  const auto& r = m.result;
  w.u32(static_cast<uint32_t>(r.status)).u32(static_cast<uint32_t>(r.code));
  w.u32(static_cast<uint32_t>(r.signal)).str(r.log).str(r.detail);
  w.u32(static_cast<uint32_t>(r.artifacts.size()));
  // Large artifacts stay in a file the reply names (engine/artifact_files.hpp).
  for (const auto& a : r.artifacts)
    w.str(a.name)
        .u64(a.file ? a.size : a.data.size())
        .str(a.hash)
        .str(a.file ? a.file->path() : std::string())
        .str(a.data);
  w.u64(m.compile_ns).u64(m.churn_ns).u64(m.compile_cpu_ns).u64(m.own_cpu_ns);
  return std::move(w.buffer());
}

bool decode(std::string_view payload, ResultMessage& m) {
  Reader rd(payload);
  auto& r = m.result;
  uint32_t st = rd.u32();
  if (st > static_cast<uint32_t>(backend::Status::output_too_large))
    return false; // the last Status
  r.status = static_cast<backend::Status>(st);
  r.code = static_cast<int>(rd.u32());
  r.signal = static_cast<int>(rd.u32());
  r.log = rd.str();
  r.detail = rd.str();
  uint32_t n = rd.u32();
  if (rd.failed() || n > 4096) return false;
  r.artifacts.clear();
  for (uint32_t i = 0; i < n && !rd.failed(); ++i) {
    backend::Artifact a;
    a.name = rd.str();
    a.size = rd.u64();
    a.hash = rd.str();
    // Not owned yet: the driver checks the path before it removes anything (adopt_artifact_files).
    if (std::string path = rd.str(); !path.empty())
      a.file = std::make_shared<OwnedFile>(path, nullptr, false);
    a.data = rd.str();
    if (!a.file && a.data.size() != a.size) return false;
    r.artifacts.push_back(std::move(a));
  }
  m.compile_ns = rd.u64();
  m.churn_ns = rd.u64();
  m.compile_cpu_ns = rd.u64();
  m.own_cpu_ns = rd.u64();
  return !rd.failed() && rd.at_end();
}

std::string encode(const HelloMessage& m) {
  Writer w;
  w.u32(m.ok ? 1 : 0).str(m.error);
  w.str(m.identity.backend).str(m.identity.path).str(m.identity.version);
  return std::move(w.buffer());
}

bool decode(std::string_view payload, HelloMessage& m) {
  Reader rd(payload);
  m.ok = rd.u32() == 1;
  m.error = rd.str();
  m.identity.backend = rd.str();
  m.identity.path = rd.str();
  m.identity.version = rd.str();
  return !rd.failed() && rd.at_end();
}

} // namespace kdet::engine
