#include "kdet/backend/library.hpp"

#include "kdet/util/error.hpp"

#include <dlfcn.h>
#include <filesystem>
#include <link.h>
#include <sys/stat.h>

namespace kdet::backend {

Library::Library(const std::string& path) : m_path(path) {
  // dlopen() would open a FIFO and wait for a writer forever; a device is no library either. (A
  // bare soname, searched for by the loader, is not a path here.)
  struct stat st {};
  if (path.find('/') != std::string::npos && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error::format("cannot load {}: not a regular file", path);
  m_handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_handle) {
    const char* err = ::dlerror();
    throw Error::format("cannot load {}: {}", path, err ? err : "unknown dlopen error");
  }
  link_map* map = nullptr;
  if (::dlinfo(m_handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) {
    std::error_code ec;
    auto canon = std::filesystem::canonical(map->l_name, ec);
    m_real_path = ec ? std::string(map->l_name) : canon.string();
  } else {
    m_real_path = path;
  }
}

void* Library::try_symbol(const char* name) const {
  return ::dlsym(m_handle, name);
}

void* Library::symbol(const char* name) const {
  void* p = try_symbol(name);
  if (!p)
    throw Error::format("{} has no symbol {}: is it really the library it claims to be?", m_path,
                        name);
  return p;
}

} // namespace kdet::backend
