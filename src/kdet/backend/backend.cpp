// Backend registry, defaults and shared helpers.
#include "kdet/backend/backend.hpp"

#include "kdet/backend/library.hpp"
#include "kdet/util/error.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/hash_memo.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <unistd.h>

namespace kdet::backend {

const char* to_string(Status s) {
  switch (s) {
  case Status::ok:
    return "ok";
  case Status::compile_error:
    return "compile-error";
  case Status::crashed:
    return "crashed";
  case Status::timed_out:
    return "timed-out";
  case Status::infra_error:
    return "infra-error";
  case Status::no_output:
    return "no-output";
  case Status::output_too_large:
    return "output-too-large";
  }
  return "?";
}

bool parse_status(const std::string& s, Status& out) {
  for (Status st : {Status::ok, Status::compile_error, Status::crashed, Status::timed_out,
                    Status::infra_error, Status::no_output, Status::output_too_large}) {
    if (s == to_string(st)) {
      out = st;
      return true;
    }
  }
  return false;
}

void classify_empty_output(CompileResult& result) {
  if (result.status != Status::ok) return;
  for (const auto& a : result.artifacts)
    if (!a.data.empty() || a.size != 0)
      return; // past the worker, `size` is set; large ones stay on disk
  result.status = Status::no_output;
  result.detail = "the compiler reported success but produced no output";
  result.artifacts.clear();
}

const char* to_string(Kind k) {
  switch (k) {
  case Kind::nvvm:
    return "nvvm";
  case Kind::nvrtc:
    return "nvrtc";
  case Kind::nvjitlink:
    return "nvjitlink";
  case Kind::exec:
    return "exec";
  case Kind::python:
    return "python";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view s) {
  for (Kind k : k_kinds)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

Kind parse_kind(std::string_view s, const std::string& what) {
  if (auto k = parse_kind(s)) return *k;
  throw Error::format("{} '{}' is not valid; use nvvm, nvrtc, nvjitlink, exec or python", what, s);
}

Kind backend_for_extension(const std::string& path) {
  std::string ext = file_extension(path);
  if (ext == "ll" || ext == "bc" || ext == "nvvm") return Kind::nvvm;
  if (ext == "cu" || ext == "cuh") return Kind::nvrtc;
  if (ext == "ptx" || ext == "ltoir" || ext == "cubin" || ext == "fatbin") return Kind::nvjitlink;
  throw Error::format(
      "cannot tell the backend from the extension of {} ('.{}'); use --backend "
      "nvvm|nvrtc|nvjitlink|exec (.ll/.bc -> nvvm, .cu -> nvrtc, .ptx -> nvjitlink)",
      path, ext);
}

std::string default_library_path(Kind kind) {
  std::string file = kind == Kind::nvvm    ? "libnvvm.so"
                     : kind == Kind::nvrtc ? "libnvrtc.so"
                                           : "libnvJitLink.so";
  std::vector<std::string> homes;
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) homes.push_back(h);
  if (const char* h = std::getenv("CUDA_PATH"); h && *h) homes.push_back(h);
  homes.push_back(KDET_DEFAULT_CUDA_HOME);
  homes.push_back("/usr/local/cuda");
  std::vector<std::string> tried;
  for (const auto& home : homes) {
    for (const char* sub : {"/nvvm/lib64/", "/lib64/", "/lib/", "/targets/x86_64-linux/lib/"}) {
      std::string cand = home + sub + file;
      if (::access(cand.c_str(), R_OK) == 0) return cand;
      tried.push_back(cand);
    }
  }
  std::string list;
  for (size_t i = 0; i < tried.size() && i < 4; ++i)
    list += "\n  " + tried[i];
  throw Error::format("cannot find {} (set CUDA_HOME or pass --lib PATH); looked at:{}", file,
                      list);
}

std::string cached_file_hash(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  std::string h = remembered_file_hash(path, hash_memo_dir());
  cache[path] = h;
  return h;
}

std::unique_ptr<Backend> make_nvvm_backend(const BackendConfig& config);
std::unique_ptr<Backend> make_nvrtc_backend(const BackendConfig& config);
std::unique_ptr<Backend> make_nvjitlink_backend(const BackendConfig& config);
std::unique_ptr<Backend> make_exec_backend(const BackendConfig& config);
std::unique_ptr<Backend> make_python_backend(const BackendConfig& config);

std::unique_ptr<Backend> load_backend(const BackendConfig& config) {
  switch (config.kind) {
  case Kind::nvvm:
    return make_nvvm_backend(config);
  case Kind::nvrtc:
    return make_nvrtc_backend(config);
  case Kind::nvjitlink:
    return make_nvjitlink_backend(config);
  case Kind::exec:
    return make_exec_backend(config);
  case Kind::python:
    return make_python_backend(config);
  }
  throw Error::format("unknown backend kind {}", static_cast<int>(config.kind));
}

} // namespace kdet::backend
