//===- capture/preload/exec_shim.cpp - kdet-exec-shim: one command compile --===//
//
//   kdet-exec-shim RAW PROGRAM ARGV0 ARGS...
// Started by libkdet_capture.so in place of a listed program (exec.cpp). It
// records the compile's header (program identity, argv, cwd, environment, the
// input files named in argv, copied) before the program runs, forks and execs
// PROGRAM with ARGV0 ARGS and the environment it was given, waits, records the
// status and the output files, and exits with the program's status (a signal
// death is raised again). Recording after the program ended, in a process of
// its own, works for statically linked programs and ones that end with _exit.
// It calls execve as a system call: the preloaded wrappers never see it, so the
// program is not captured twice.
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" char** environ; // NOLINT(readability-redundant-declaration)

using namespace kdet_capture;

namespace {

// The most output files one command compile records.
constexpr int k_max_outputs = 64;

// The parent of `pid`, read from /proc/PID/stat (the field after the command's closing
// parenthesis, then the state); 0 when it cannot be read.
long parent_of(long pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  const char* close = std::strrchr(buf, ')');
  if (!close || !close[1] || !close[2] || !close[3]) return 0;
  return std::strtol(close + 4, nullptr, 10);
}

// "ancestors P1 P2 ...": the caller's parent, its parent, ... (at most 16, up to init), so
// that a compile a captured command started (cicc and ptxas under nvcc, through a shell)
// is known as that command's tool.
void add_ancestors(Buf& h) {
  h.add("ancestors");
  long p = static_cast<long>(::getppid());
  for (int i = 0; i < 16 && p > 1; ++i) {
    h.add(" ");
    h.add_u64(static_cast<unsigned long long>(p));
    p = parent_of(p);
  }
  h.add("\n");
}

constexpr size_t k_max_blob = size_t{256} << 20; // larger files are hashed, not copied

volatile sig_atomic_t g_child = 0;

// A signal sent to the shim by a process (a timeout's kill, a pool's terminate)
// goes on to the program; one from the terminal reached its process group, the
// program included, already.
void forward(int sig, siginfo_t* info, void*) {
  if (g_child > 0 && info && info->si_code <= 0) ::kill(static_cast<pid_t>(g_child), sig);
}

bool eq(const char* a, const char* b) {
  return std::strcmp(a, b) == 0;
}

const char* base_name(const char* p) {
  const char* s = std::strrchr(p, '/');
  return s ? s + 1 : p;
}

bool is_file(const char* p, struct stat* st) {
  return p && *p && ::stat(p, st) == 0 && S_ISREG(st->st_mode);
}

bool is_output_flag(const char* a) {
  return std::strcmp(a, "-o") == 0 || std::strcmp(a, "--output-file") == 0 ||
         std::strcmp(a, "-output-file") == 0 || std::strcmp(a, "--create") == 0 ||
         std::strcmp(a, "-create") == 0;
}

// Stores the file's bytes (up to k_max_blob) and writes its hash; false when unreadable.
bool store_file(const char* path, char hash[33], unsigned long long* size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  auto want = static_cast<size_t>(st.st_size);
  if (want > k_max_blob) {
    ::close(fd);
    return file_identity(path, hash, size);
  }
  char* data = static_cast<char*>(std::malloc(want ? want : 1));
  size_t got = 0;
  while (data && got < want) {
    ssize_t n = ::read(fd, data + got, want - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (!data) return false;
  store_blob(data, got, hash);
  *size = got;
  std::free(data);
  return true;
}

// The variables recorded with each command compile (docs/CAPTURE.md).
bool recorded_env(const char* kv) {
  static const char* const exact[] = {
      "PATH=",           "LD_LIBRARY_PATH=",    "TMPDIR=",       "CPATH=",
      "C_INCLUDE_PATH=", "CPLUS_INCLUDE_PATH=", "LIBRARY_PATH=", "SOURCE_DATE_EPOCH="};
  for (const char* e : exact)
    if (std::strncmp(kv, e, std::strlen(e)) == 0) return true;
  return std::strncmp(kv, "NVCC_", 5) == 0 || std::strncmp(kv, "CUDA_", 5) == 0 ||
         std::strncmp(kv, "PTXAS_", 6) == 0 || std::strncmp(kv, "NVVM_", 5) == 0;
}

struct OutFile {
  const char* path;
  bool existed;
  struct stat before;
};

void add_output(OutFile* outs, int& n, int cap, const char* path) {
  if (n >= cap || !path || !*path) return;
  outs[n].path = path;
  outs[n].existed = ::stat(path, &outs[n].before) == 0;
  ++n;
}

// nvcc's outputs when no -o names one: the phase's extension after each
// source's stem, in -odir or the working folder; a.out when it links.
void nvcc_conventional(char** args, int nargs, OutFile* outs, int& n, int cap) {
  const char* ext = "link";
  const char* odir = nullptr;
  for (int i = 0; i < nargs; ++i) {
    const char* a = args[i];
    if (eq(a, "-c") || eq(a, "--compile")) ext = "o";
    if (eq(a, "-ptx") || eq(a, "--ptx")) ext = "ptx";
    if (eq(a, "-cubin") || eq(a, "--cubin")) ext = "cubin";
    if (eq(a, "-fatbin") || eq(a, "--fatbin")) ext = "fatbin";
    if (eq(a, "-E") || eq(a, "-M") || eq(a, "--version") || eq(a, "-V") || eq(a, "--help") ||
        eq(a, "-h"))
      return;
    if ((eq(a, "-odir") || eq(a, "--output-directory")) && i + 1 < nargs) odir = args[i + 1];
    if (!std::strncmp(a, "--output-directory=", 19)) odir = a + 19;
  }
  if (eq(ext, "link")) {
    add_output(outs, n, cap, "a.out");
    return;
  }
  for (int i = 0; i < nargs; ++i) {
    struct stat st {};
    const char* dot = std::strrchr(base_name(args[i]), '.');
    if (!dot || !is_file(args[i], &st)) continue;
    if (!eq(dot, ".cu") && !eq(dot, ".ptx") && !eq(dot, ".c") && !eq(dot, ".cpp") &&
        !eq(dot, ".cc") && !eq(dot, ".cxx"))
      continue;
    const char* stem = base_name(args[i]);
    size_t len = std::strlen(odir ? odir : "") + std::strlen(stem) + std::strlen(ext) + 4;
    char* p = static_cast<char*>(std::malloc(len));
    if (!p) continue;
    std::snprintf(p, len, "%s%s%.*s.%s", odir ? odir : "", odir ? "/" : "",
                  static_cast<int>(dot - stem), stem, ext);
    add_output(outs, n, cap, p);
  }
}

bool hex8(const char* p) {
  for (int i = 0; i < 8; ++i)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
  return true;
}

// An option with nvcc's temporary names (tmpxft_PID_COUNTER-N_...) made
// {tmpxft}-N_...: they differ in every nvcc run, the compile does not.
void option_line(Buf& b, const char* text) {
  Buf t;
  for (const char* p = text; *p;) {
    const char* m = std::strstr(p, "tmpxft_");
    if (!m || std::strlen(m) < 24 || !hex8(m + 7) || m[15] != '_' || !hex8(m + 16)) {
      t.add(p);
      break;
    }
    t.add(p, static_cast<size_t>(m - p));
    t.add("{tmpxft}");
    p = m + 24;
  }
  b.add("option ");
  b.add_text(t.data ? t.data : "");
  b.add("\n");
  t.release();
}

void line(Buf& b, const char* key, const char* text) {
  b.add(key);
  b.add(" ");
  b.add_text(text);
  b.add("\n");
}

int exit_like(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    std::signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(sig);
    return 128 + sig; // a signal the shim survives (none of the deadly ones)
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

// Appends to compile `id`'s record each output that is present now and new or changed since the
// program started, stored in the blob pack, with its kind (its extension, numbered when repeated).
void record_outputs(unsigned long long id, const OutFile* outs, int nouts) {
  char kinds[k_max_outputs][32];
  char hash[33] = {};
  unsigned long long size = 0;
  for (int i = 0; i < nouts; ++i) {
    kinds[i][0] = 0;
    struct stat st {};
    if (!is_file(outs[i].path, &st)) continue;
    if (outs[i].existed && st.st_ino == outs[i].before.st_ino &&
        st.st_size == outs[i].before.st_size &&
        st.st_mtim.tv_sec == outs[i].before.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == outs[i].before.st_mtim.tv_nsec)
      continue;
    if (!store_file(outs[i].path, hash, &size)) continue;
    // The output's kind is its extension ("out" for none), numbered when repeated.
    const char* dot = std::strrchr(base_name(outs[i].path), '.');
    std::snprintf(kinds[i], sizeof kinds[i], "%.20s", dot && dot[1] ? dot + 1 : "out");
    for (char* k = kinds[i]; *k; ++k)
      if (*k == ' ' || *k < 32) *k = '_';
    int same = 0;
    for (int j = 0; j < i; ++j)
      same += std::strncmp(kinds[j], kinds[i], 20) == 0;
    size_t used = std::strlen(kinds[i]);
    if (same) std::snprintf(kinds[i] + used, sizeof kinds[i] - used, "-%d", (same + 1) % 100);
    Buf o;
    o.add("output_file ");
    o.add(kinds[i]);
    o.add(" ");
    o.add_text(outs[i].path);
    o.add("\noutput ");
    o.add(kinds[i]);
    o.add(" ");
    o.add(hash);
    o.add(" ");
    o.add_u64(size);
    o.add("\n");
    if (!o.failed) {
      const char* mid = std::strchr(o.data, '\n') + 1;
      append_record(id, o.data, static_cast<size_t>(mid - o.data));
      append_record(id, mid, o.size - static_cast<size_t>(mid - o.data));
    }
    o.release();
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fputs("kdet-exec-shim: run by libkdet_capture.so only (RAW PROGRAM ARGV0 ARGS...)\n",
               stderr);
    return 127;
  }
  const char* program = argv[2];
  char** pargv = argv + 3;
  int nargs = argc - 3;
  // The program gets the environment the caller gave, untouched: a copy of the
  // pointers is taken first.
  int nenv = 0;
  while (environ[nenv])
    ++nenv;
  char** env = static_cast<char**>(std::calloc(static_cast<size_t>(nenv) + 1, sizeof(char*)));
  if (!env) return 127;
  std::memcpy(env, environ, sizeof(char*) * static_cast<size_t>(nenv));
  if (argv[1][0] == '/') set_capture_dir(argv[1]);

  Buf h;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  h.add("kind exec\npid ");
  h.add_u64(static_cast<unsigned long long>(::getpid()));
  h.add("\nppid ");
  h.add_u64(static_cast<unsigned long long>(::getppid()));
  h.add("\n");
  add_ancestors(h);
  h.add("thread ");
  h.add_u64(static_cast<unsigned long long>(thread_id()));
  h.add("\ntime_ns ");
  h.add_u64(static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull +
            static_cast<unsigned long long>(ts.tv_nsec));
  h.add("\n");
  char real[PATH_MAX] = {}, hash[33] = {};
  unsigned long long size = 0;
  if (!realpath(program, real)) real[0] = 0;
  if (real[0] && file_identity(real, hash, &size)) {
    line(h, "lib", real);
    h.add("lib_hash ");
    h.add(hash);
    h.add("\nlib_size ");
    h.add_u64(size);
    h.add("\n");
  }
  line(h, "argv0", pargv[0]);
  for (int i = 1; i < nargs; ++i)
    line(h, "arg", pargv[i]);
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd)) line(h, "cwd", cwd);
  for (int i = 0; i < nenv; ++i)
    if (recorded_env(env[i])) line(h, "env", env[i]);

  // Inputs: every argument (or the value after its last '=') naming a regular
  // file, except an output's; each is replaced by {input} in the options, and
  // an output path by {output}, so the bundle does not depend on where files are.
  const int cap = k_max_outputs;
  OutFile outs[cap];
  int nouts = 0;
  bool named_output = false;
  Buf opts;
  for (int i = 1; i < nargs; ++i) {
    const char* a = pargv[i];
    const char* eq = std::strrchr(a, '=');
    struct stat st {};
    if (i > 1 && is_output_flag(pargv[i - 1])) {
      add_output(outs, nouts, cap, a);
      option_line(opts, "{output}");
      named_output = true;
      continue;
    }
    if (eq && a[0] == '-') {
      char flag[256];
      size_t fl = static_cast<size_t>(eq - a);
      if (fl < sizeof flag) {
        std::memcpy(flag, a, fl);
        flag[fl] = 0;
        if (is_output_flag(flag) && std::strchr(a, '=') == eq) {
          add_output(outs, nouts, cap, eq + 1);
          named_output = true;
          std::strcat(flag, "={output}");
          option_line(opts, flag);
          continue;
        }
      }
    }
    const char* path = is_file(a, &st) ? a : eq && is_file(eq + 1, &st) ? eq + 1 : nullptr;
    if (path && store_file(path, hash, &size)) {
      h.add("file ");
      h.add(hash);
      h.add(" ");
      h.add_u64(size);
      h.add(" ");
      h.add_text(a);
      h.add("\n");
      Buf norm;
      norm.add(a, static_cast<size_t>(path - a));
      norm.add("{input}");
      option_line(opts, norm.data);
      norm.release();
      continue;
    }
    option_line(opts, a);
  }
  const char* name = base_name(real[0] ? real : program);
  if (!named_output && eq(name, "nvcc")) nvcc_conventional(pargv + 1, nargs - 1, outs, nouts, cap);
  if (!named_output && eq(name, "ptxas")) add_output(outs, nouts, cap, "elf.o");
  h.add(opts.data ? opts.data : "");
  h.add("begin\n");
  unsigned long long id = 0;
  bool recording = create_record(h, &id);
  h.release();
  opts.release();

  struct sigaction sa {};
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  // A signal the caller ignores (nohup's SIGHUP) stays ignored, so the program
  // inherits that, as it would have without the shim.
  static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};
  for (int sig : forwarded) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sig, &sa, nullptr);
  }
  // An ignored SIGCHLD would reap the program before waitpid could see its
  // status; the program gets the caller's disposition back before it starts.
  struct sigaction dfl {
  }, chld{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &chld);
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // the shim killed outright takes the program along
    if (::getppid() != parent) ::_exit(137);
    sigaction(SIGCHLD, &chld, nullptr);
    ::syscall(SYS_execve, program, pargv, env);
    std::fprintf(stderr, "%s: %s\n", program, std::strerror(errno));
    ::_exit(errno == ENOENT ? 127 : 126);
  }
  if (child < 0) {
    std::fprintf(stderr, "%s: cannot start: %s\n", program, std::strerror(errno));
    return 127;
  }
  g_child = child;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (recording) {
    char text[96];
    int n = WIFSIGNALED(status)
                ? std::snprintf(text, sizeof text, "status signaled %d\nresult %d\n",
                                WTERMSIG(status), 128 + WTERMSIG(status))
                : std::snprintf(text, sizeof text, "status exited %d\nresult %d\n",
                                WEXITSTATUS(status), WEXITSTATUS(status));
    // Two lines, one append each (every line carries the compile's id).
    const char* nl = std::strchr(text, '\n');
    append_record(id, text, static_cast<size_t>(nl - text + 1));
    append_record(id, nl + 1, static_cast<size_t>(n) - static_cast<size_t>(nl + 1 - text));
    record_outputs(id, outs, nouts);
  }
  return exit_like(status);
}
