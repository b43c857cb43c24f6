//===- capture/preload/exec.cpp - command compiles: the exec family wrapped ===//
//
// A program whose base name is in $KDET_CAPTURE_EXEC (colon-separated, set by
// `kdet capture`: ptxas, nvcc, cicc, fatbinary, nvlink and every --exec NAME)
// is started under the shim $KDET_CAPTURE_SHIM instead:
//   SHIM RAW PROGRAM ARGV0 ARGS...
// The shim forks the program, waits, records what it read and wrote and exits
// with its status (exec_shim.cpp). Everything else goes to glibc untouched.
//
// These wrappers may run in a vfork child (Python's subprocess, posix_spawn
// callers): they allocate nothing on the heap (stack, or mmap for long argv).
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KDET_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" char** environ; // NOLINT(readability-redundant-declaration)

namespace kdet_capture {
namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*,
                        const posix_spawnattr_t*, char* const[], char* const[]);

// glibc's functions, looked up once at load: dlsym in a vfork child could take
// a lock its parent holds.
ExecveFn g_execve;
ExecvpeFn g_execvpe;
SpawnFn g_spawn, g_spawnp;

__attribute__((constructor)) void init_exec() {
  g_execve = reinterpret_cast<ExecveFn>(dlsym(RTLD_NEXT, "execve"));
  g_execvpe = reinterpret_cast<ExecvpeFn>(dlsym(RTLD_NEXT, "execvpe"));
  g_spawn = reinterpret_cast<SpawnFn>(dlsym(RTLD_NEXT, "posix_spawn"));
  g_spawnp = reinterpret_cast<SpawnFn>(dlsym(RTLD_NEXT, "posix_spawnp"));
}

// An exec from a constructor that ran before ours finds the functions too.
void ensure_init() {
  if (!g_execve || !g_execvpe || !g_spawn || !g_spawnp) init_exec();
}

const char* base_name(const char* p) {
  const char* s = std::strrchr(p, '/');
  return s ? s + 1 : p;
}

// True when `name` is one of the colon-separated names in `list`.
bool listed(const char* list, const char* name) {
  size_t n = std::strlen(name);
  if (n == 0) return false;
  for (const char* p = list; *p;) {
    const char* e = std::strchr(p, ':');
    size_t len = e ? static_cast<size_t>(e - p) : std::strlen(p);
    if (len == n && std::strncmp(p, name, n) == 0) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

// True when `path` is a regular file this process may execute: what execve runs (a folder
// that passes access(X_OK) is not one, and execvp goes on past it).
bool executable_file(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISREG(st.st_mode) && ::access(path, X_OK) == 0;
}

// How execve takes a file: it starts it (an ELF file, or a "#!" script whose interpreter is an
// executable file), it refuses it with ENOEXEC (anything else, which shells and execvp then run
// with /bin/sh), or it fails as if it were not there (a "#!" script whose interpreter is missing
// or not runnable: ENOENT, EACCES, after which execvp goes on to the next PATH folder).
enum class Start { kernel, noexec, bad_interpreter };
Start how_started(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Start::bad_interpreter;
  char head[256] = {};
  ssize_t n = ::read(fd, head, sizeof head - 1);
  ::close(fd);
  if (n >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
    return Start::kernel;
  if (n < 2 || head[0] != '#' || head[1] != '!') return Start::noexec;
  char* p = head + 2; // the interpreter is the first word of the line
  while (*p == ' ' || *p == '\t')
    ++p;
  char* end = p;
  while (*end && *end != ' ' && *end != '\t' && *end != '\n')
    ++end;
  if (end == p || *end == 0) return Start::bad_interpreter; // none, or longer than was read
  *end = 0;
  return executable_file(p) ? Start::kernel : Start::bad_interpreter;
}

// The shim to run `path` under, or null: capture on, the program listed by the
// base name it was run as or of the file it resolves to, an executable file the
// kernel starts, not the shim.
const char* shim_for(const char* path) {
  const char* dir = capture_dir();
  const char* list = std::getenv("KDET_CAPTURE_EXEC");
  const char* shim = std::getenv("KDET_CAPTURE_SHIM");
  if (!dir || !list || !shim || *shim != '/' || !path || ::access(path, X_OK) != 0) return nullptr;
  char real[PATH_MAX];
  bool resolved = realpath(path, real) != nullptr;
  if (resolved && std::strcmp(real, shim) == 0) return nullptr; // never the shim itself
  if (!listed(list, base_name(path)) && !(resolved && listed(list, base_name(real))))
    return nullptr;
  // Only what the kernel starts goes to the shim: the rest is left to the shell or execvp.
  return executable_file(path) && how_started(path) == Start::kernel ? shim : nullptr;
}

// Finds `file` on `path_var` as execvp does: the first executable regular file that execve
// does not fail as missing (a "#!" script whose interpreter is not there).
bool search_path(const char* file, const char* path_var, char* out, size_t cap) {
  if (std::strchr(file, '/')) {
    if (std::strlen(file) >= cap) return false;
    std::strcpy(out, file);
    return true;
  }
  const char* p = path_var ? path_var : "/bin:/usr/bin";
  for (;;) {
    const char* e = std::strchr(p, ':');
    size_t len = e ? static_cast<size_t>(e - p) : std::strlen(p);
    size_t fl = std::strlen(file);
    if (len + fl + 2 < cap) {
      if (len == 0) {
        out[0] = '.';
        len = 1;
      } else {
        for (size_t i = 0; i < len; ++i) // the folder; '/' and the name follow
          out[i] = p[i];
      }
      out[len] = '/';
      std::memcpy(out + len + 1, file, fl + 1);
      if (executable_file(out) && how_started(out) != Start::bad_interpreter) return true;
    }
    if (!e) return false;
    p = e + 1;
  }
}

size_t count(char* const argv[]) {
  size_t n = 0;
  while (argv && argv[n])
    ++n;
  return n;
}

// Fills `out` (room for argc + 4) with SHIM RAW PROGRAM ARGV...
void shim_argv(const char** out, const char* shim, const char* program, char* const argv[],
               size_t argc) {
  out[0] = shim;
  out[1] = capture_dir();
  out[2] = program;
  out[3] = argc ? argv[0] : program;
  for (size_t i = 1; i < argc; ++i)
    out[3 + i] = argv[i];
  out[argc ? argc + 3 : 4] = nullptr;
}

// The shim's argv: on the stack up to k_stack_args, else in an anonymous mapping
// (mmap is a system call, safe in a vfork child; a successful exec from a vfork
// child leaves that mapping to the parent, only for such long command lines).
constexpr size_t k_stack_args = 512;
struct ShimArgv {
  const char* stack[k_stack_args];
  const char** v = nullptr;
  size_t bytes = 0;
  ShimArgv(const char* shim, const char* program, char* const argv[]) {
    size_t argc = count(argv);
    if (argc + 5 <= k_stack_args) {
      v = stack;
    } else {
      bytes = (argc + 5) * sizeof(char*);
      void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      v = m == MAP_FAILED ? nullptr : static_cast<const char**>(m);
    }
    if (v) shim_argv(v, shim, program, argv, argc);
  }
  ShimArgv(const ShimArgv&) = delete;
  ShimArgv& operator=(const ShimArgv&) = delete;
  ~ShimArgv() {
    if (v && v != stack) ::munmap(static_cast<void*>(v), bytes);
  }
  char* const* get() const { return const_cast<char* const*>(v); }
};

// True when `envp` carries capture on to the program it starts: LD_PRELOAD
// naming this library and KDET_CAPTURE_DIR.
bool keeps_capture(char* const envp[]) {
  bool preload = false, dir = false;
  for (size_t i = 0; envp && envp[i]; ++i) {
    const char* e = envp[i];
    if (std::strncmp(e, "LD_PRELOAD=", 11) == 0 && std::strstr(e + 11, "libkdet_capture.so"))
      preload = true;
    if (std::strncmp(e, "KDET_CAPTURE_DIR=", 17) == 0 && e[17] == '/') dir = true;
  }
  return preload && dir;
}

// Notes a program started without capture (its compiles are not recorded) for
// kdet capture's summary. Only for a file that can run: Python's subprocess
// tries execve on each PATH folder in turn. Stack only (a vfork child).
void note_uncaptured(const char* how, const char* program, char* const envp[]) {
  if (!capture_dir() || !program || keeps_capture(envp) || ::access(program, X_OK) != 0) return;
  write_note(how, program, std::strlen(program));
}

// Notes a listed compiler that posix_spawn starts by a relative path that names no file
// here: its file actions may change the folder first (posix_spawn_file_actions_addchdir_np),
// so the program it runs is not known, and its compile is not recorded. Stack only.
void note_unresolved(const char* path, const posix_spawn_file_actions_t* fa) {
  const char* list = std::getenv("KDET_CAPTURE_EXEC");
  if (!capture_dir() || !list || !fa || !path || *path == '/' || !std::strchr(path, '/') ||
      !listed(list, base_name(path)) || ::access(path, F_OK) == 0)
    return;
  write_note("spawn-unresolved", path, std::strlen(path));
}

// Returns only when the shim could not be started (then the caller runs the
// program itself: capture never stops a program from running).
void exec_shim(const char* shim, const char* program, char* const argv[], char* const envp[]) {
  write_maps(); // what made the command's input may be mapped here (maps.cpp)
  ShimArgv v(shim, program, argv);
  if (v.get()) g_execve(shim, v.get(), envp);
}

// 0 when the shim was started; otherwise the caller spawns the program itself.
int spawn_shim(const char* shim, pid_t* pid, const char* program,
               const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
               char* const argv[], char* const envp[]) {
  write_maps();
  ShimArgv v(shim, program, argv);
  return v.get() ? g_spawn(pid, shim, fa, at, v.get(), envp) : -1;
}

} // namespace
} // namespace kdet_capture

using namespace kdet_capture;

KDET_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  ensure_init();
  note_uncaptured("exec-uncaptured", path, envp);
  if (const char* shim = shim_for(path)) {
    exec_shim(shim, path, argv, envp);
  }
  return g_execve(path, argv, envp);
}

KDET_EXPORT int execv(const char* path, char* const argv[]) {
  return execve(path, argv, environ);
}

KDET_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  ensure_init();
  char found[PATH_MAX];
  if (*file && search_path(file, std::getenv("PATH"), found, sizeof found)) {
    note_uncaptured("exec-uncaptured", found, envp);
    if (const char* shim = shim_for(found)) {
      exec_shim(shim, found, argv, envp);
    }
  }
  return g_execvpe(file, argv, envp);
}

KDET_EXPORT int execvp(const char* file, char* const argv[]) {
  return execvpe(file, argv, environ);
}

// execl* collect their arguments into an array and go through the wrappers above.
#define KDET_COLLECT_ARGS(first)                                                                   \
  va_list ap;                                                                                      \
  va_start(ap, first);                                                                             \
  size_t n = 1;                                                                                    \
  {                                                                                                \
    va_list cp;                                                                                    \
    va_copy(cp, ap);                                                                               \
    while (va_arg(cp, char*))                                                                      \
      ++n;                                                                                         \
    va_end(cp);                                                                                    \
  }                                                                                                \
  char* args[n + 1]; /* NOLINT: no heap in a vfork child */                                        \
  args[0] = const_cast<char*>(first);                                                              \
  for (size_t i = 1; i <= n; ++i)                                                                  \
    args[i] = va_arg(ap, char*);

KDET_EXPORT int execl(const char* path, const char* arg, ...) {
  KDET_COLLECT_ARGS(arg)
  va_end(ap);
  return execve(path, args, environ);
}

KDET_EXPORT int execlp(const char* file, const char* arg, ...) {
  KDET_COLLECT_ARGS(arg)
  va_end(ap);
  return execvpe(file, args, environ);
}

KDET_EXPORT int execle(const char* path, const char* arg, ...) {
  KDET_COLLECT_ARGS(arg)
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return execve(path, args, envp);
}

KDET_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa,
                            const posix_spawnattr_t* at, char* const argv[], char* const envp[]) {
  ensure_init();
  note_uncaptured("spawn-uncaptured", path, envp);
  if (const char* shim = shim_for(path)) {
    if (spawn_shim(shim, pid, path, fa, at, argv, envp) == 0) return 0;
  } else {
    note_unresolved(path, fa);
  }
  return g_spawn(pid, path, fa, at, argv, envp);
}

KDET_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa,
                             const posix_spawnattr_t* at, char* const argv[], char* const envp[]) {
  ensure_init();
  char found[PATH_MAX];
  if (*file && search_path(file, std::getenv("PATH"), found, sizeof found)) {
    note_uncaptured("spawn-uncaptured", found, envp);
    if (const char* shim = shim_for(found)) {
      if (spawn_shim(shim, pid, found, fa, at, argv, envp) == 0) return 0;
    }
  }
  return g_spawnp(pid, file, fa, at, argv, envp);
}
