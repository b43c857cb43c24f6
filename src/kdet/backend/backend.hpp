//===- backend/backend.hpp - how kdet drives a compiler ---------------------===//
//
// A Backend turns input bytes plus options into artifacts. Backends run only
// inside worker processes (engine/worker_main.cpp): the driver never loads a
// compiler. Each backend has an Identity that says which compiler it is.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/util/hash.hpp"
#include "kdet/util/host_view.hpp"
#include "kdet/util/stream.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kdet::backend {

// Which compiler interface a backend drives: three libraries loaded in a worker, any
// command run as a child process, or a Python function called in an interpreter the worker
// keeps (backend/python.cpp).
enum class Kind { nvvm, nvrtc, nvjitlink, exec, python };
inline constexpr Kind k_kinds[] = {Kind::nvvm, Kind::nvrtc, Kind::nvjitlink, Kind::exec,
                                   Kind::python};

// The one spelling of a kind, used in options, manifests, worker argv, JSON and messages.
const char* to_string(Kind k);

// The kind spelt `s` (as to_string writes it); nullopt for anything else.
std::optional<Kind> parse_kind(std::string_view s);

// The kind spelt `s`, or an Error "`what` 'S' is not valid; use nvvm, nvrtc, nvjitlink, exec or
// python".
Kind parse_kind(std::string_view s, const std::string& what);

// What makes two compilers "the same": file, content hash, reported version.
struct Identity {
  std::string backend;      // nvvm, nvrtc, nvjitlink, exec, python
  std::string path;         // library, program or Python stage file path, resolved
  std::string content_hash; // XXH3-128 of that file
  std::string version;      // what the compiler reports ("libNVVM 2.0"); empty from exec workers
};

// One output file of a compile. Its content is `data`, or, when `file` is set,
// that file (large outputs stay on disk so that kdet's memory does not grow
// with them). Past the worker, `size` and `hash` are always filled.
struct Artifact {
  Artifact() = default;
  Artifact(std::string name_, std::string data_) : name(std::move(name_)), data(std::move(data_)) {}

  std::string name; // "ptx", "cubin", "output"...; stable across runs
  std::string data;
  std::shared_ptr<const OwnedFile> file;
  uint64_t size = 0;
  std::string hash; // XXH3-128 of the content (hash_bytes)
};

// The artifact's bytes (read from its file when it has one); for consumers
// that need them in memory, after checking `size`.
std::string artifact_bytes(const Artifact& a);

// How an artifact of this name is hashed (util/hash.hpp): "ptx" as PTX, every other
// name (cubin, ltoir, an exec compile's output) as bytes.
ArtifactForm artifact_form(std::string_view name);

// Writes the artifact's content to `path` (temporary file, fsync, rename),
// streaming from its file when it has one.
void write_artifact(const Artifact& a, const std::string& path);

// How one compile ended. Only `ok` carries artifacts that count as output.
enum class Status {
  ok,               // the compiler succeeded
  compile_error,    // the compiler reported an error (API result or non-zero exit)
  crashed,          // killed by a signal (the worker, or the exec'ed program)
  timed_out,        // ran past --timeout and was killed
  infra_error,      // kdet could not run it (worker failed to start, protocol broke)
  no_output,        // it succeeded but left nothing: no or an empty {output} file, or empty stdout
  output_too_large, // an artifact was larger than --max-output; not kept
};

const char* to_string(Status s);
bool parse_status(const std::string& s, Status& out);

struct CompileResult {
  Status status = Status::infra_error;
  int code = 0;       // API result code or exit code
  int signal = 0;     // for crashed
  std::string log;    // compiler log / stderr (capped)
  std::string detail; // kdet's one-line description ("nvvmCompileProgram: NVVM_ERROR_COMPILATION")
  std::vector<Artifact> artifacts;
  // A compiler in a process the backend keeps (python): its CPU time for this compile and the
  // time its heap churn took there (the worker reports them instead of its own). Never sent.
  uint64_t kept_cpu_ns = 0;
  uint64_t kept_churn_ns = 0;
};

// One input of a compile besides the main one (a replayed bundle's other inputs),
// handed to the compiler after it, in order, as the pipeline did.
struct InputPart {
  enum class Role : uint32_t {
    module,      // nvvm: nvvmAddModuleToProgram
    lazy_module, // nvvm: nvvmLazyAddModuleToProgram (libdevice, as numba adds it)
    header,      // nvrtc: a header given to nvrtcCreateProgram; `name` is its include name
    name_expr,   // nvrtc: nvrtcAddNameExpression(`name`); no bytes
    jit_input,   // nvjitlink: nvJitLinkAddData of type `jit_type`
  };
  Role role = Role::module;
  std::optional<std::string> name; // null: the compiler is given a null name
  std::string bytes;
  int jit_type = 0; // nvJitLinkInputType
};

struct CompileRequest {
  std::string input;      // input bytes
  std::string input_path; // where the input lives (exec templates, module names)
  std::string input_name; // base name given to the compiler as module/program name
  std::vector<std::string> options;
  std::string workdir; // a private folder for this run (exec)
  std::chrono::milliseconds timeout{0};
  // This run's view of the host (perturb/factors.hpp): a library or Python stage's worker takes
  // it before compile(); exec hands it to the compiler as it starts (backend/host_view.hpp).
  HostView host;
  uint64_t max_output = UINT64_MAX; // larger artifacts make the outcome output_too_large
  std::vector<InputPart> parts;     // further inputs after `input` (empty for a single input)
  // The heap factors for a backend whose compiler lives in a process it keeps (python): applied
  // there before the compile, not in the worker. The worker fills them from its request; never
  // sent.
  HeapSteps kept_heap;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const Identity& identity() const = 0;
  virtual CompileResult compile(const CompileRequest& request) = 0;
};

// Settings that choose and configure a backend; passed to workers on their command line.
struct BackendConfig {
  Kind kind = Kind::nvvm;
  std::string lib;        // library path (empty: default search)
  std::string command;    // exec template
  std::string output_ext; // exec: extension of {output}
  // python: `lib` is the stage's file, `function` the function in it that is called per compile,
  // `python` the interpreter (empty: python3 on PATH).
  std::string function;
  std::string python;
  // python: kdet's allocating threads (the threads factor), started inside the interpreter; the
  // worker sets them from its own arguments.
  int threads = 0;
  uint64_t thread_seed = 0;
  bool operator==(const BackendConfig&) const = default;
};

// A success that produced no bytes at all (no artifact, or only empty ones) becomes
// no_output: nothing is not an artifact, so two empty runs never agree as "deterministic".
void classify_empty_output(CompileResult& result);

// Loads a backend in this process; throws Error with a clear message on failure.
std::unique_ptr<Backend> load_backend(const BackendConfig& config);

// Picks a backend from an input's extension: .ll/.bc/.nvvm -> nvvm,
// .cu/.cuh -> nvrtc, .ptx/.ltoir -> nvjitlink. Throws Error when unknown.
Kind backend_for_extension(const std::string& path);

// Library lookup: $CUDA_HOME then /usr/local/cuda (lib64, lib, nvvm/lib64).
std::string default_library_path(Kind kind);

// exec: the program's `--version` line ("unknown (--version gave nothing)" when it
// says nothing), memoized per process. Exec workers leave Identity::version empty:
// the driver asks once.
std::string exec_program_version(const std::string& program);

// Content hash of a file, cached per path for the process lifetime.
std::string cached_file_hash(const std::string& path);

} // namespace kdet::backend
