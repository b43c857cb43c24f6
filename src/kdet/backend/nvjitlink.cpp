//===- backend/nvjitlink.cpp - nvJitLink: PTX / LTO-IR / cubin to a linked cubin ---===//
//
// The header's entry points are inline wrappers around versioned symbols
// (__nvJitLinkCreate_13_0); kdet resolves the plain exported names, which
// libnvJitLink 12.x and 13.x both export, so other versions load too.
//
//===----------------------------------------------------------------------===//
#include "kdet/backend/backend.hpp"
#include "kdet/backend/library.hpp"
#include "kdet/util/fs.hpp"

#include <fmt/format.h>
#include <nvJitLink.h>

namespace kdet::backend {

namespace {

using CreateFn = nvJitLinkResult (*)(nvJitLinkHandle*, uint32_t, const char**);
using DestroyFn = nvJitLinkResult (*)(nvJitLinkHandle*);
using AddDataFn = nvJitLinkResult (*)(nvJitLinkHandle, nvJitLinkInputType, const void*, size_t,
                                      const char*);
using CompleteFn = nvJitLinkResult (*)(nvJitLinkHandle);
using SizeFn = nvJitLinkResult (*)(nvJitLinkHandle, size_t*);
using GetFn = nvJitLinkResult (*)(nvJitLinkHandle, void*);
using LogFn = nvJitLinkResult (*)(nvJitLinkHandle, char*);
using VersionFn = nvJitLinkResult (*)(unsigned int*, unsigned int*);

nvJitLinkInputType input_type_for(const std::string& path) {
  std::string ext = file_extension(path);
  if (ext == "ptx") return NVJITLINK_INPUT_PTX;
  if (ext == "ltoir") return NVJITLINK_INPUT_LTOIR;
  if (ext == "cubin") return NVJITLINK_INPUT_CUBIN;
  if (ext == "fatbin") return NVJITLINK_INPUT_FATBIN;
  if (ext == "o") return NVJITLINK_INPUT_OBJECT;
  if (ext == "a") return NVJITLINK_INPUT_LIBRARY;
  return NVJITLINK_INPUT_ANY;
}

class NvJitLinkBackend final : public Backend {
public:
  explicit NvJitLinkBackend(const BackendConfig& config)
      : m_lib(config.lib.empty() ? default_library_path(Kind::nvjitlink) : config.lib) {
    m_create = m_lib.get<CreateFn>("nvJitLinkCreate");
    m_destroy = m_lib.get<DestroyFn>("nvJitLinkDestroy");
    m_add = m_lib.get<AddDataFn>("nvJitLinkAddData");
    m_complete = m_lib.get<CompleteFn>("nvJitLinkComplete");
    m_cubin_size = m_lib.get<SizeFn>("nvJitLinkGetLinkedCubinSize");
    m_cubin = m_lib.get<GetFn>("nvJitLinkGetLinkedCubin");
    m_err_size = m_lib.get<SizeFn>("nvJitLinkGetErrorLogSize");
    m_err = m_lib.get<LogFn>("nvJitLinkGetErrorLog");
    m_info_size = m_lib.get<SizeFn>("nvJitLinkGetInfoLogSize");
    m_info = m_lib.get<LogFn>("nvJitLinkGetInfoLog");
    unsigned major = 0, minor = 0;
    if (auto version = reinterpret_cast<VersionFn>(m_lib.try_symbol("nvJitLinkVersion")))
      version(&major, &minor);
    m_identity.backend = to_string(Kind::nvjitlink);
    m_identity.path = m_lib.real_path();
    m_identity.version = fmt::format("nvJitLink {}.{}", major, minor);
  }

  const Identity& identity() const override { return m_identity; }

  CompileResult compile(const CompileRequest& req) override {
    CompileResult r;
    std::vector<const char*> opts;
    for (const auto& o : req.options)
      opts.push_back(o.c_str());
    nvJitLinkHandle h = nullptr;
    nvJitLinkResult rc = m_create(&h, static_cast<uint32_t>(opts.size()), opts.data());
    if (rc != NVJITLINK_SUCCESS) {
      // Creation fails on bad options (e.g. no -arch=sm_XX): that is a failure of this run.
      return fail(r, rc, "nvJitLinkCreate (does the option list have -arch=sm_XX?)");
    }
    rc = m_add(h, input_type_for(req.input_path), req.input.data(), req.input.size(),
               req.input_name.c_str());
    // Further inputs in order, each with the type the pipeline gave it.
    for (size_t i = 0; i < req.parts.size() && rc == NVJITLINK_SUCCESS; ++i) {
      const InputPart& part = req.parts[i];
      if (part.role != InputPart::Role::jit_input) {
        m_destroy(&h);
        r.status = Status::infra_error;
        r.detail = fmt::format("input {} is not a link input: nvJitLink takes those only", i + 2);
        return r;
      }
      rc = m_add(h, static_cast<nvJitLinkInputType>(part.jit_type), part.bytes.data(),
                 part.bytes.size(), part.name ? part.name->c_str() : nullptr);
    }
    if (rc == NVJITLINK_SUCCESS) rc = m_complete(h);
    read_log(h, m_err_size, m_err, r.log);
    read_log(h, m_info_size, m_info, r.log);
    if (rc != NVJITLINK_SUCCESS) {
      m_destroy(&h);
      return fail(r, rc, "nvJitLinkAddData/Complete");
    }
    size_t n = 0;
    rc = m_cubin_size(h, &n);
    if (rc == NVJITLINK_SUCCESS) {
      std::string cubin(n, '\0');
      rc = m_cubin(h, cubin.data());
      r.artifacts.push_back({"cubin", std::move(cubin)});
    }
    m_destroy(&h);
    if (rc != NVJITLINK_SUCCESS) return fail(r, rc, "nvJitLinkGetLinkedCubin");
    r.status = Status::ok;
    return r;
  }

private:
  static void read_log(nvJitLinkHandle h, SizeFn size_fn, LogFn log_fn, std::string& out) {
    size_t n = 0;
    if (size_fn(h, &n) != NVJITLINK_SUCCESS || n <= 1) return;
    std::string log(n, '\0');
    if (log_fn(h, log.data()) == NVJITLINK_SUCCESS) {
      while (!log.empty() && log.back() == '\0')
        log.pop_back();
      out += log;
    }
  }

  static CompileResult& fail(CompileResult& r, nvJitLinkResult rc, const char* call) {
    r.status = Status::compile_error;
    r.code = static_cast<int>(rc);
    r.detail = fmt::format("{}: nvJitLink error {}", call, static_cast<int>(rc));
    return r;
  }

  Library m_lib;
  Identity m_identity;
  CreateFn m_create;
  DestroyFn m_destroy;
  AddDataFn m_add;
  CompleteFn m_complete;
  SizeFn m_cubin_size;
  GetFn m_cubin;
  SizeFn m_err_size;
  LogFn m_err;
  SizeFn m_info_size;
  LogFn m_info;
};

} // namespace

std::unique_ptr<Backend> make_nvjitlink_backend(const BackendConfig& config) {
  return std::make_unique<NvJitLinkBackend>(config);
}

} // namespace kdet::backend
