//===- backend/library.hpp - dlopen'ed compiler libraries -------------------===//
#pragma once

#include <string>

namespace kdet::backend {

// A shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL); closed never
// (compilers keep global state and some crash when unloaded).
class Library {
public:
  // Opens `path`; throws Error naming the path and dlerror() on failure.
  explicit Library(const std::string& path);

  // Resolves a symbol; throws Error naming the library when it is missing.
  void* symbol(const char* name) const;
  // Resolves a symbol; nullptr when missing.
  void* try_symbol(const char* name) const;

  template <typename F> F get(const char* name) const { return reinterpret_cast<F>(symbol(name)); }

  // The file the dynamic loader actually mapped (symlinks resolved).
  const std::string& real_path() const { return m_real_path; }

private:
  void* m_handle = nullptr;
  std::string m_path;
  std::string m_real_path;
};

} // namespace kdet::backend
