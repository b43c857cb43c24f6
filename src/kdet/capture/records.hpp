//===- capture/records.hpp - reading what libkdet_capture.so wrote ----------===//
//
// The preload appends each compile to its process's log under RAW/records and the
// bytes it saw in RAW/blobs/*.pack (format: docs/CAPTURE.md; capture/blobs). This reads
// them back, tolerating records cut short by a killed pipeline, and groups
// compiles into bundles: one per distinct compile (library content hash,
// inputs in order, options).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kdet/capture/exec_records.hpp"
#include "kdet/util/hash.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kdet::capture {

// One input of a compile, in the order the pipeline gave it.
struct Input {
  std::string tag;  // module (nvvm), source / header / name_expr (nvrtc), jit_input (nvjitlink),
                    // image (a load)
  std::string hash; // the artifact hash (util/hash.hpp) once name_by_artifact_hash ran
  uint64_t size = 0;
  bool lazy = false;               // nvvmLazyAddModuleToProgram
  std::optional<std::string> name; // module name, program name, include name, or the expression
  int type = 0;                    // jit_input: nvJitLinkInputType (2 PTX, 3 LTO-IR, ...)
  // The blob holding the bytes as given (the hash of those bytes, as the preload named them);
  // empty when it is `hash`. Another blob of this artifact hash may hold other trailing NULs.
  std::string stored{};
  // The blob to read these bytes from.
  const std::string& blob() const { return stored.empty() ? hash : stored; }
  auto operator<=>(const Input&) const = default;
};

// One output the pipeline fetched after the compile.
struct Output {
  std::string kind; // nvvm (libNVVM's result), ptx, cubin, ltoir
  std::string hash; // the artifact hash once name_by_artifact_hash ran
  uint64_t size = 0;
  std::string stored{}; // as Input::stored
  auto operator<=>(const Output&) const = default;
};

// A value kept out of line, for what few compiles have: a library compile holds a null pointer
// (8 bytes) for a command's ExecInfo, its ancestry and the logs, not their 400 bytes, since a
// capture holds every compile. Reads of one never set give the empty value; copies copy it.
template <class T> class OutOfLine {
public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(const OutOfLine& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  OutOfLine& operator=(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  ~OutOfLine() = default;
  explicit operator bool() const { return p_ != nullptr; } // set
  const T& operator*() const { return p_ ? *p_ : empty(); }
  const T* operator->() const { return &**this; }
  T& mut() { // set (to the empty value) if not yet, for writing
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }

private:
  static const T& empty() {
    static const T e{};
    return e;
  }
  std::unique_ptr<T> p_;
};

// What a compile was asked to do: its record's header but the process, thread and time. Compiles
// that asked alike share one (a capture holds every compile: 10^5 of them hold one copy of each
// distinct call, not 10^5), so a Call is changed only through Compile::call_mut, which copies
// a shared one first; name_by_artifact_hash and group_bundles change each shared one once,
// alike for all that share it.
struct Call {
  std::string kind;          // nvvm, nvrtc, nvjitlink or exec (or load: read_load_records)
  std::string lib, lib_hash; // empty when the library could not be identified
  uint64_t lib_size = 0;
  std::vector<Input> inputs;
  std::vector<std::string> options;
  std::string bundle; // id of its bundle (set by group_bundles)
  auto operator<=>(const Call&) const = default;
};

// One compile call, as recorded: a few scalars of its own, the call it made and the outputs it
// fetched shared with every compile alike (about 150 bytes a compile; docs/CAPTURE.md).
struct Compile {
  std::string record; // "LOG#ID": the record log under RAW/records and the compile's id in it
  long pid = 0, ppid = 0, thread = 0;
  OutOfLine<std::vector<long>> ancestors; // exec: the caller's parent, its parent, ... (the
                                          // shim's record)
  uint64_t time_ns = 0;
  bool begun = false;        // the header was complete (the "begin" line)
  std::optional<int> result; // the call's return code; none when the process died inside it
  OutOfLine<Output> log;
  OutOfLine<Output> info_log; // nvJitLink's info log (`log` is its error log)
  OutOfLine<ExecInfo> exec;   // kind exec: argv, cwd, environment, status (exec_records.hpp)
  // What it asked (shared: see Call) and what it fetched (outputs, shared alike), by pointer.
  std::shared_ptr<Call> call_;
  std::shared_ptr<std::vector<Output>> outputs_;

  const Call& call() const { return call_ ? *call_ : empty_call(); }
  const std::string& kind() const { return call().kind; }
  const std::string& lib() const { return call().lib; }
  const std::string& lib_hash() const { return call().lib_hash; }
  uint64_t lib_size() const { return call().lib_size; }
  const std::vector<Input>& inputs() const { return call().inputs; }
  const std::vector<std::string>& options() const { return call().options; }
  const std::string& bundle() const { return call().bundle; }
  const std::vector<Output>& outputs() const {
    static const std::vector<Output> none;
    return outputs_ ? *outputs_ : none;
  }
  // For writing: this compile's own copy (made from the shared one first).
  Call& call_mut() { return own(call_); }
  std::vector<Output>& outputs_mut() { return own(outputs_); }

private:
  static const Call& empty_call() {
    static const Call none;
    return none;
  }
  template <class T> static T& own(std::shared_ptr<T>& p) {
    if (!p)
      p = std::make_shared<T>();
    else if (p.use_count() > 1)
      p = std::make_shared<T>(*p);
    return *p;
  }
};

// Reads one record log (`name` is its file name, for messages and each
// compile's `record`). A compile's header block counts only when whole (up to
// "begin"); later lines ("ID key ...") add its result and outputs. A line that
// cannot be read is named in `problems` and skipped; a cut-short last line is ignored.
std::vector<Compile> parse_log(const std::string& text, const std::string& name,
                               std::vector<std::string>& problems);

// Every compile under `raw`/records/*.log, ordered by time then record name;
// what could not be read is listed in `problems` ("FILE: why"). Loads are not compiles:
// they are left out.
std::vector<Compile> read_records(const std::string& raw, std::vector<std::string>& problems);

// The modules the pipeline handed to the CUDA driver (kind "load", preload/driver.cpp): each
// with one input of tag "image" (named by the file it came from, if any), its entry point as
// its option and the driver's result. What cannot be read is read_records' to say.
std::vector<Compile> read_load_records(const std::string& raw);

// How an input is hashed (util/hash.hpp): an nvJitLink PTX input and a command's *.ptx
// input file as PTX, every other input (NVVM IR, CUDA source, LTO-IR, cubin) as bytes.
ArtifactForm input_form(const Input& in);

// How an output of this kind is hashed: libNVVM's result (nvvm) and PTX (ptx, and a
// command's ptx-N) as PTX, every other kind as bytes.
ArtifactForm output_form(const std::string& kind);

class BlobStore;
// Names each compile's inputs and outputs by their artifact hash instead of the hash of
// the bytes the preload stored (they differ for PTX handed over with its NUL), so that
// capture and kdet run name one artifact alike. Before group_bundles: bundle ids use it.
void name_by_artifact_hash(std::vector<Compile>& compiles, const BlobStore& blobs);

// One distinct compile and what it gave each time.
struct Bundle {
  std::string id; // 16 hex digits of the hash of kind, library hash, inputs, options
  std::string kind;
  std::string lib, lib_hash;
  uint64_t lib_size = 0;
  std::vector<Input> inputs;
  std::vector<std::string> options;
  size_t compiles = 0, unfinished = 0;
  std::map<int, size_t> results;                                // return code -> count
  std::vector<std::pair<std::string, std::string>> outputs;     // (kind, hash) in first-seen order
  std::map<std::pair<std::string, std::string>, size_t> counts; // (kind, hash) -> count
  std::map<std::string, uint64_t> sizes;                        // hash -> size
  // hash -> the blob of the bytes the first compile that gave it got (NUL kept), when not `hash`.
  std::map<std::string, std::string> stored;
  // The blob to read output `hash`'s bytes from.
  const std::string& blob(const std::string& hash) const {
    auto it = stored.find(hash);
    return it == stored.end() ? hash : it->second;
  }
  bool varies = false; // two output hashes of one kind, or two return codes
  // The kernels it compiles by entry name (the PTX it gave, else its NVVM IR input), in full;
  // set by write_bundles, which reads the bytes.
  std::vector<std::string> kernels;
  // exec: each compile's working folder and input paths as given. Paths are not in the
  // identity, so an output that embeds them (nvcc -lineinfo's .file) differs for that alone.
  std::set<std::string> places;
  // python (a tapped stage replayed in-process, capture/tap_recipes.hpp): `lib` is the recipe's
  // file in the bundle folder ("recipe/llvmlite_ptx.py") and this its FUNCTION.
  std::string function{};
};

// The id of the bundle a compile belongs to.
std::string bundle_id(const Compile& c);

// Groups compiles into bundles (first-seen order) and sets each compile's `bundle`.
std::vector<Bundle> group_bundles(std::vector<Compile>& compiles);

// A capture's compiles as its readers take them: named by artifact hash from `blobs`
// (name_by_artifact_hash), then grouped (group_bundles), in that order, since a bundle's
// id is made of those names.
std::vector<Bundle> bundle_records(std::vector<Compile>& compiles, const BlobStore& blobs);

} // namespace kdet::capture
