//===- backend/python.cpp - a Python-hosted stage, called in one interpreter --===//
//
// `kdet run INPUT --py FILE:FUNCTION [--python PY]`. The worker starts PY once, running kdet's
// stage worker (python/kdet_stage/worker.py, embedded at build time), which imports FILE once
// and calls FUNCTION(input_bytes, options) for each compile. So a compile costs the stage's own
// time, and runs in one worker share one interpreter's history, as library compilers do.
//
// The interpreter is the worker's child in the worker's process group: the driver's timeout
// kills both. A child that dies takes the worker with it in the same way (the same signal, or
// the same exit code), so the driver sees what it sees of a library compiler that crashes. The
// run's environment, working folder, umask, CPUs and the heap factors act in the interpreter
// (sent with each request); the worker's namespaces (the mtime factor's binds, the hostname)
// are shared with it.
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/backend.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/exec.hpp"
#include "kdet/util/fs.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <string_view>
#include <sys/resource.h>
#include <unistd.h>

namespace kdet::backend {

namespace {

// The stage worker's source, from python/kdet_stage/worker.py (src/CMakeLists.txt).
const char k_worker_code[] =
#include "kdet/backend/python_worker.inc"
    ;

void put_u32(std::string& b, uint32_t v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_u64(std::string& b, uint64_t v) {
  b.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_str(std::string& b, std::string_view s) {
  put_u64(b, s.size());
  b.append(s);
}
void put_strs(std::string& b, const std::vector<std::string>& v) {
  put_u32(b, static_cast<uint32_t>(v.size()));
  for (const auto& s : v)
    put_str(b, s);
}

bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// Reads what the stage worker's write_message wrote.
class Payload {
public:
  explicit Payload(std::string_view data) : m_data(data) {}
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  std::string str() {
    uint64_t n = u64();
    if (m_failed || m_data.size() - m_pos < n) {
      m_failed = true;
      return {};
    }
    std::string s(m_data.substr(m_pos, n));
    m_pos += n;
    return s;
  }
  bool ok() const { return !m_failed && m_pos == m_data.size(); }

private:
  template <class T> T get() {
    T v{};
    if (m_failed || m_data.size() - m_pos < sizeof v) {
      m_failed = true;
      return v;
    }
    std::memcpy(&v, m_data.data() + m_pos, sizeof v);
    m_pos += sizeof v;
    return v;
  }
  std::string_view m_data;
  size_t m_pos = 0;
  bool m_failed = false;
};

class PythonBackend final : public Backend {
public:
  explicit PythonBackend(const BackendConfig& config) {
    const std::string python = config.python.empty() ? "python3" : config.python;
    const std::string exe = find_program(python);
    if (exe.empty()) throw Error::format("--python {}: not found in PATH", python);
    int req[2], rep[2];
    if (::pipe2(req, O_CLOEXEC) != 0 || ::pipe2(rep, O_CLOEXEC) != 0)
      throw Error::format("pipe: {}", std::strerror(errno));
    SpawnOptions o;
    // -B: a stage's .pyc written by the first interpreter would make the next ones import
    // otherwise (and allocate otherwise) than it did.
    o.argv = {exe,
              "-B",
              "-c",
              k_worker_code,
              config.lib,
              config.function,
              std::to_string(config.threads),
              std::to_string(config.thread_seed)};
    // In the worker's group, so the driver's timeout ends it with the worker.
    o.new_process_group = false;
    o.fds = {{0, -1}, {1, 1}, {2, 2}, {3, req[0]}, {4, rep[1]}};
    ExitStatus status;
    m_pid = spawn(o, status);
    ::close(req[0]);
    ::close(rep[1]);
    m_request_fd = req[1];
    m_reply_fd = rep[0];
    if (m_pid < 0) throw Error::format("cannot start {}: {}", exe, status.describe());
    std::string hello;
    if (!read_message(hello)) {
      ExitStatus st = wait_child(m_pid);
      m_pid = -1;
      throw Error::format("{} {} while importing {} (its output is in the worker's log)", exe,
                          st.describe(), config.lib);
    }
    Payload p(hello);
    const bool ok = p.u32() == 1;
    std::string text = p.str();
    std::string path = p.str();
    if (!p.ok()) throw Error::format("{}: garbled hello from the stage worker", exe);
    if (!ok) throw Error(text);
    m_identity.backend = to_string(Kind::python);
    m_identity.path = path.empty() ? absolute_path(config.lib) : path;
    m_identity.version = text;
  }

  ~PythonBackend() override {
    if (m_request_fd >= 0) ::close(m_request_fd); // its end of input: it returns
    if (m_reply_fd >= 0) ::close(m_reply_fd);
    if (m_pid > 0) wait_child(m_pid, std::chrono::steady_clock::now() + std::chrono::seconds(5));
  }
  PythonBackend(const PythonBackend&) = delete;
  PythonBackend& operator=(const PythonBackend&) = delete;

  const Identity& identity() const override { return m_identity; }

  CompileResult compile(const CompileRequest& req) override {
    CompileResult r;
    if (!req.parts.empty()) {
      r.status = Status::infra_error;
      r.detail = "a Python stage takes one input";
      return r;
    }
    std::string b;
    const auto& h = req.kept_heap;
    put_u32(b, h.churn ? 1 : 0);
    put_u64(b, h.churn_seed);
    put_u32(b, h.chaos_reseed ? 1 : 0);
    put_u64(b, h.chaos_seed);
    put_u32(b, req.host.umask >= 0 ? static_cast<uint32_t>(req.host.umask) : 0xFFFFFFFFu);
    put_str(b, req.host.cwd);
    put_strs(b, req.host.env);
    put_u32(b, static_cast<uint32_t>(req.host.cpus.size()));
    for (int c : req.host.cpus)
      put_u32(b, static_cast<uint32_t>(c));
    put_strs(b, req.options);
    put_str(b, req.input);
    std::string head;
    put_u64(head, b.size());
    std::string reply;
    if (!write_all(m_request_fd, head) || !write_all(m_request_fd, b) || !read_message(reply))
      die_as_child();
    Payload p(reply);
    const uint32_t status = p.u32();
    r.kept_cpu_ns = p.u64();
    r.kept_churn_ns = p.u64();
    std::string out = p.str();
    r.detail = p.str();
    r.log = p.str();
    if (!p.ok()) {
      r = CompileResult{};
      r.status = Status::infra_error;
      r.detail = "garbled reply from the stage worker (the stage wrote into kdet's pipe?)";
      return r;
    }
    if (status == 0) {
      r.status = Status::ok;
      r.artifacts.push_back({"output", std::move(out)});
    } else {
      r.status = Status::compile_error;
      r.code = 1;
    }
    return r;
  }

private:
  bool read_message(std::string& out) {
    uint64_t n = 0;
    if (!read_all(m_reply_fd, reinterpret_cast<char*>(&n), sizeof n) || n > (1ULL << 40))
      return false;
    out.resize(n);
    return read_all(m_reply_fd, out.data(), n);
  }

  // The interpreter ended during a compile: the worker ends the same way, so the driver records
  // the crash (or exit) as it would a library compiler's.
  [[noreturn]] void die_as_child() {
    ExitStatus st = wait_child(m_pid);
    m_pid = -1;
    if (st.kind == ExitStatus::Kind::signaled) {
      struct rlimit none {};
      ::setrlimit(RLIMIT_CORE, &none); // the interpreter dumped what it had
      ::signal(st.signal, SIG_DFL);
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, st.signal);
      ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
      ::raise(st.signal);
      ::_exit(128 + st.signal);
    }
    ::_exit(st.kind == ExitStatus::Kind::exited ? st.code : 127);
  }

  Identity m_identity;
  pid_t m_pid = -1;
  int m_request_fd = -1;
  int m_reply_fd = -1;
};

} // namespace

std::unique_ptr<Backend> make_python_backend(const BackendConfig& config) {
  return std::make_unique<PythonBackend>(config);
}

} // namespace kdet::backend
