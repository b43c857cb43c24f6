//===- util/exec_linger.cpp - a guard that waits for what the program left ---===//
//
// `kdet capture` runs the pipeline under a guard (util/exec_child.cpp), a
// subreaper that ends whatever the pipeline leaves. A pipeline may leave work
// that is still its own: a child that compiles after the parent exits, a
// setsid'd one. So the guard first waits, up to a bound, while a descendant
// maps the capture preload, then reports what it waited for and what was still
// there, and only then kills. The guard side is async-signal-safe (it runs in
// a child forked from a threaded kdet): fixed buffers, system calls only.
// The parent side (run_lingering) reads the report from a pipe.
//
//===----------------------------------------------------------------------===//
#include "kdet/util/exec.hpp"
#include "kdet/util/exec_child.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kdet {

namespace detail {

namespace {

constexpr int k_max_desc = 16384;
pid_t g_desc[k_max_desc]; // the guard's own copy (it is a forked child)

// A bounded string on the stack.
struct Text {
  char* p;
  size_t cap, n = 0;
  Text(char* buf, size_t size) : p(buf), cap(size) { p[0] = 0; }
  void add(const char* s, size_t len) {
    for (size_t i = 0; i < len && n + 1 < cap; ++i)
      p[n++] = s[i];
    p[n] = 0;
  }
  void add(const char* s) { add(s, std::strlen(s)); }
  void num(long long v) {
    char t[24];
    int i = 24;
    bool neg = v < 0;
    unsigned long long u =
        neg ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      t[--i] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u && i > 1);
    if (neg) t[--i] = '-';
    add(t + i, static_cast<size_t>(24 - i));
  }
};

long long now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Reads up to cap-1 bytes of a /proc file; returns the count (0 when unreadable).
size_t read_proc(const char* path, char* buf, size_t cap) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t got = 0;
  while (got + 1 < cap) {
    ssize_t r = ::read(fd, buf + got, cap - 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  buf[got] = 0;
  return got;
}

// The decimal number at `s` (0 when none).
long parse_num(const char* s) {
  long v = 0;
  for (; *s >= '0' && *s <= '9'; ++s)
    v = v * 10 + (*s - '0');
  return v;
}

// Adds the pids listed (space-separated) in `text` to g_desc.
void add_pids(const char* text, int& n) {
  long v = -1;
  for (const char* c = text;; ++c) {
    if (*c >= '0' && *c <= '9') {
      v = (v < 0 ? 0 : v * 10) + (*c - '0');
    } else {
      if (v > 0 && n < k_max_desc) g_desc[n++] = static_cast<pid_t>(v);
      v = -1;
      if (!*c) break;
    }
  }
}

// Every descendant of this process into g_desc, through each thread's
// /proc/PID/task/TID/children (the guard is single-threaded; its descendants
// may not be). False when the kernel has no children files.
bool list_through_children(int& n) {
  char path[96], buf[8192];
  Text self(path, sizeof path);
  self.add("/proc/self/task/");
  self.num(::getpid());
  self.add("/children");
  if (::access(path, R_OK) != 0) return false;
  n = 0;
  read_proc(path, buf, sizeof buf);
  add_pids(buf, n);
  alignas(8) char ents[4096];
  for (int i = 0; i < n; ++i) {
    Text task(path, sizeof path);
    task.add("/proc/");
    task.num(g_desc[i]);
    task.add("/task");
    int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) continue;
    long got;
    while ((got = ::syscall(SYS_getdents64, dir, ents, sizeof ents)) > 0) {
      for (long off = 0; off < got;) {
        unsigned short reclen;
        std::memcpy(&reclen, ents + off + 16, sizeof reclen);
        const char* name = ents + off + 19;
        off += reclen;
        if (*name < '0' || *name > '9') continue;
        Text kids(path, sizeof path);
        kids.add("/proc/");
        kids.num(g_desc[i]);
        kids.add("/task/");
        kids.add(name);
        kids.add("/children");
        read_proc(path, buf, sizeof buf);
        add_pids(buf, n);
      }
    }
    ::close(dir);
  }
  return true;
}

// The same from every /proc/PID/stat's parent field (kernels without children files).
void list_through_stat(int& n) {
  static pid_t all[k_max_desc], parent[k_max_desc];
  int total = 0;
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char ents[4096];
  char path[64], buf[1024];
  long got;
  while ((got = ::syscall(SYS_getdents64, dir, ents, sizeof ents)) > 0 && total < k_max_desc) {
    for (long off = 0; off < got && total < k_max_desc;) {
      unsigned short reclen;
      std::memcpy(&reclen, ents + off + 16, sizeof reclen);
      const char* name = ents + off + 19;
      off += reclen;
      if (*name < '0' || *name > '9') continue;
      Text p(path, sizeof path);
      p.add("/proc/");
      p.add(name);
      p.add("/stat");
      if (!read_proc(path, buf, sizeof buf)) continue;
      const char* close_paren = std::strrchr(buf, ')'); // the command may hold ')' and spaces
      if (!close_paren || close_paren[1] == 0 || close_paren[2] == 0) continue;
      all[total] = static_cast<pid_t>(parse_num(name));
      parent[total++] = static_cast<pid_t>(parse_num(close_paren + 4));
    }
  }
  ::close(dir);
  n = 0;
  g_desc[n++] = ::getpid();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < total; ++j)
      if (parent[j] == g_desc[i] && n < k_max_desc) g_desc[n++] = all[j];
  for (int i = 1; i < n; ++i) // drop this process itself
    g_desc[i - 1] = g_desc[i];
  --n;
}

// True when PID has ended and waits for its parent to reap it: a zombie maps nothing, so it is
// neither a process to wait for nor one that was left running.
bool is_zombie(pid_t pid) {
  char path[64], buf[512];
  Text p(path, sizeof path);
  p.add("/proc/");
  p.num(pid);
  p.add("/stat");
  if (!read_proc(path, buf, sizeof buf)) return true; // gone already
  const char* close_paren = std::strrchr(buf, ')');
  return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

// The live descendants into g_desc[0, n).
int descendants() {
  int n = 0;
  if (!list_through_children(n)) list_through_stat(n);
  int live = 0;
  for (int i = 0; i < n; ++i)
    if (!is_zombie(g_desc[i])) g_desc[live++] = g_desc[i];
  return live;
}

// True when /proc/PID/maps names a file whose path contains `marker`.
bool maps_contain_one(pid_t pid, const char* marker) {
  char path[64];
  Text p(path, sizeof path);
  p.add("/proc/");
  p.num(pid);
  p.add("/maps");
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t m = std::strlen(marker);
  char buf[8192 + 256];
  size_t keep = 0; // the tail of the last chunk, so a match across chunks is seen
  bool found = false;
  for (;;) {
    ssize_t r = ::read(fd, buf + keep, sizeof buf - 1 - keep);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t len = keep + static_cast<size_t>(r);
    buf[len] = 0;
    for (size_t i = 0; i + m <= len; ++i)
      if (std::memcmp(buf + i, marker, m) == 0) {
        found = true;
        break;
      }
    if (found) break;
    keep = m > 1 && len >= m - 1 ? m - 1 : 0;
    std::memmove(buf, buf + len - keep, keep);
  }
  ::close(fd);
  return found;
}

// True when /proc/PID/maps names a file whose path contains one of the
// ':'-separated `markers`.
bool maps_contain(pid_t pid, const char* markers) {
  for (const char* m = markers; *m;) {
    const char* end = std::strchr(m, ':');
    size_t len = end ? static_cast<size_t>(end - m) : std::strlen(m);
    if (len > 0 && len < 128) {
      char one[128];
      std::memcpy(one, m, len);
      one[len] = 0;
      if (maps_contain_one(pid, one)) return true;
    }
    if (!end) break;
    m = end + 1;
  }
  return false;
}

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void reap_ended() {
  int st;
  while (::waitpid(-1, &st, WNOHANG) > 0) {
  }
}

} // namespace

void linger_and_report(long linger_ms, const char* marker, int report_fd,
                       volatile sig_atomic_t* stop) {
  long long start = now_ms();
  long waited_for = -1;
  long nap_ms = 2;
  bool confirmed = false; // no marked descendant at the last look
  for (;;) {
    reap_ended();
    int n = descendants();
    long marked = 0;
    for (int i = 0; i < n && *marker; ++i)
      marked += maps_contain(g_desc[i], marker);
    if (waited_for < 0) waited_for = marked;
    if (*stop || now_ms() - start >= linger_ms) break;
    if (marked == 0) {
      // A process between execve and the loader's mapping of LD_PRELOAD shows no marker yet; one
      // more look after a nap tells it from a process that will never carry one.
      if (n == 0 || confirmed) break;
      confirmed = true;
      nap_ms = nap_ms < 20 ? 20 : nap_ms;
    } else {
      confirmed = false;
    }
    long left = static_cast<long>(linger_ms - (now_ms() - start));
    long ms = nap_ms < left ? nap_ms : left;
    timespec ts{ms / 1000, (ms % 1000) * 1000000};
    ::nanosleep(&ts, nullptr); // SIGTERM cuts it short
    nap_ms = nap_ms * 2 > 50 ? 50 : nap_ms * 2;
  }
  if (report_fd < 0) return;
  // A command line is kept whole up to k_max_cmd bytes (a build's paths are long); beyond, it
  // is cut and ends in "...". Static: the guard is one thread and these do not fit a small stack.
  constexpr size_t k_max_cmd = 4096;
  static char line[2 * k_max_cmd + 64];
  Text t(line, sizeof line);
  t.add("waited ");
  t.num(now_ms() - start);
  t.add(" ");
  t.num(waited_for);
  t.add("\n");
  if (*stop) t.add("stopped 1\n"); // kdet ended the run: what is left ends for that, not the bound
  write_all(report_fd, line, t.n);
  reap_ended();
  int n = descendants();
  for (int i = 0; i < n; ++i) {
    Text l(line, sizeof line);
    if (i == 64) {
      l.add("more ");
      l.num(n - 64);
      l.add("\n");
      write_all(report_fd, line, l.n);
      break;
    }
    char path[64];
    static char cmd[k_max_cmd + 4];
    Text p(path, sizeof path);
    p.add("/proc/");
    p.num(g_desc[i]);
    p.add("/cmdline");
    size_t len = read_proc(path, cmd, k_max_cmd + 2); // one byte more tells a cut command
    if (len > k_max_cmd) {
      for (size_t k = k_max_cmd - 3; k < k_max_cmd; ++k)
        cmd[k] = '.';
      len = k_max_cmd;
    }
    l.add("left ");
    l.num(g_desc[i]);
    l.add(*marker && maps_contain(g_desc[i], marker) ? " 1 x" : " 0 x");
    static const char hex[] = "0123456789abcdef";
    for (size_t k = 0; k < len; ++k) {
      auto c = static_cast<unsigned char>(cmd[k] ? cmd[k] : ' ');
      char two[2] = {hex[c >> 4], hex[c & 15]};
      l.add(two, 2);
    }
    l.add("\n");
    write_all(report_fd, line, l.n);
  }
}

} // namespace detail

namespace {

std::string unhex(const std::string& s) {
  std::string out;
  auto val = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 1; i + 1 < s.size(); i += 2)
    out += static_cast<char>(val(s[i]) * 16 + val(s[i + 1]));
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

void parse_report(const std::string& text, GuardReport& report) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break; // a cut-short line
    std::string line = text.substr(start, nl - start);
    start = nl + 1;
    // WORD A [B [HEX]]: the hex command may be 8 KiB, so it is not scanned into a fixed field.
    char word[8] = {};
    long a = 0, b = 0;
    if (std::sscanf(line.c_str(), "%7s %ld %ld", word, &a, &b) < 2) continue;
    size_t hex_at = line.find(" x");
    std::string rest = hex_at == std::string::npos ? std::string() : line.substr(hex_at + 1);
    std::string w = word;
    if (w == "waited") {
      report.received = true;
      report.waited_s = static_cast<double>(a) / 1000.0;
      report.waited_for = b > 0 ? static_cast<size_t>(b) : 0;
    } else if (w == "left") {
      report.left.push_back({a, b != 0, unhex(rest)});
    } else if (w == "more") {
      report.left_unlisted = a > 0 ? static_cast<size_t>(a) : 0;
    } else if (w == "stopped") {
      report.stopped = a != 0;
    }
  }
}

} // namespace

ExitStatus run_lingering(SpawnOptions options, std::chrono::milliseconds linger,
                         const std::string& marker, GuardReport& report, int interrupt_fd) {
  report = GuardReport{};
  int pipe_fds[2];
  ExitStatus st;
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    st.code = errno;
    st.error = fmt::format("pipe: {}", std::strerror(errno));
    return st;
  }
  options.guard = true;
  options.guard_linger = linger;
  options.guard_linger_marker = marker;
  options.guard_report_fd = pipe_fds[1];
  pid_t pid = spawn(options, st);
  ::close(pipe_fds[1]);
  if (pid >= 0) st = wait_child(pid, std::nullopt, interrupt_fd);
  // The guard has ended: its report (a few KiB at most) is in the pipe. Non-blocking,
  // in case a process it left still held the write end.
  ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  std::string text;
  char buf[4096];
  ssize_t r;
  while ((r = ::read(pipe_fds[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0) text.append(buf, static_cast<size_t>(r));
  ::close(pipe_fds[0]);
  parse_report(text, report);
  return st;
}

} // namespace kdet
