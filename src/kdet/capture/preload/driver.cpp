//===- capture/preload/driver.cpp - the driver's load seam ------------------===//
//
// Every module that reaches the GPU through the CUDA driver is recorded as a
// load (kind "load"): its image (PTX text, a cubin ELF or a fatbin) as a blob,
// how it came (the entry point), and the driver's return code. kdet names the
// kernels in it and joins it to the compile that made it (capture/loads.cpp).
//
// Three ways in, as for the compiler libraries (interpose.cpp):
//  - this library exports cuModuleLoadData, cuModuleLoadDataEx,
//    cuModuleLoadFatBinary, cuModuleLoad, cuLibraryLoadData,
//    cuLibraryLoadFromFile and cuGetProcAddress(_v2), for programs linked
//    against libcuda (route 0: the real one through RTLD_NEXT);
//  - dlsym of one of these names in libcuda (dlopen'ed, as the runtime and
//    frameworks do) returns the same exports, which then call what dlsym found;
//  - cuGetProcAddress, through which the CUDA runtime 12+ obtains every driver
//    entry point, hands out route-1 wrappers for these names instead.
// Plus the runtime's fatbin registration (__cudaRegisterFatBinary), exported for
// programs linked against a shared libcudart (a static one binds to its own copy,
// and reaches the driver through cuGetProcAddress anyway).
//
// No libcuda, no calls: a pipeline without a GPU runs none of this. The call is
// forwarded first and recorded after, only when the driver took the image (a
// failed load may hold anything; reading its size could fault). Recording
// never changes what the pipeline gets back.
//
//===----------------------------------------------------------------------===//
#include "record.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdet_capture {

void* dlsym_real(void* handle, const char* name); // interpose.cpp: glibc's dlsym

namespace {

// The entry points wrapped here, by index (k_driver_names in the same order): those that
// load a module, cuGetProcAddress in its two forms, and the runtime's fatbin registration.
enum DriverFn {
  d_module_load_data,
  d_module_load_data_ex,
  d_module_load_fat_binary,
  d_module_load,
  d_library_load_data,
  d_library_load_from_file,
  d_get_proc_address,
  d_get_proc_address_v2,
  d_register_fat_binary,
  k_ndriver,
};
constexpr const char* k_driver_names[] = {
    "cuModuleLoadData", "cuModuleLoadDataEx",  "cuModuleLoadFatBinary",
    "cuModuleLoad",     "cuLibraryLoadData",   "cuLibraryLoadFromFile",
    "cuGetProcAddress", "cuGetProcAddress_v2", "__cudaRegisterFatBinary",
};
static_assert(sizeof k_driver_names / sizeof k_driver_names[0] == k_ndriver);

// CUDA_ERROR_NOT_FOUND: what a wrapper returns when the real function is gone.
constexpr int k_not_found = 500;

// [route][function]: route 0 the exports (RTLD_NEXT, or what dlsym found), route 1
// what cuGetProcAddress handed out.
std::atomic<void*> g_real[2][k_ndriver];

thread_local int t_load_depth = 0;           // the driver calling itself through a wrapped name
thread_local const void* t_caller = nullptr; // where the call into an export came from

// Marks the caller of an export for real_driver while the call lasts.
struct Caller {
  const void* old;
  explicit Caller(const void* at) : old(t_caller) { t_caller = at; }
  ~Caller() { t_caller = old; }
  Caller(const Caller&) = delete;
  Caller& operator=(const Caller&) = delete;
};

struct Depth {
  Depth() { ++t_load_depth; }
  ~Depth() { --t_load_depth; }
  Depth(const Depth&) = delete;
  Depth& operator=(const Depth&) = delete;
  bool outer() const { return t_load_depth == 1; }
};

using DlsymFn = void* (*)(void*, const char*);

void* exported_driver(int f); // below the exports

// `name` in the driver library that one of the functions already found lives in: a driver
// dlopen'ed RTLD_LOCAL that calls its own exports lands in ours, where RTLD_NEXT cannot see it.
void* in_known_driver(const char* name, int f) {
  for (auto& route : g_real)
    for (auto& fn : route) {
      void* q = fn.load(std::memory_order_acquire);
      Dl_info info{};
      if (!q || !dladdr(q, &info) || !info.dli_fname || !*info.dli_fname) continue;
      // The reference dlopen(RTLD_NOLOAD) takes is kept: the driver stays loaded anyway.
      void* h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
      void* p = h ? dlsym_real(h, name) : nullptr;
      if (p && p != exported_driver(f)) return p;
    }
  return nullptr;
}

// `name` as the scope of the export's caller resolves it: a module dlopen'ed RTLD_LOCAL with
// libcuda among its dependencies, or the driver calling itself.
void* in_caller_scope(const char* name, int f) {
  Dl_info info{};
  if (!t_caller || !dladdr(t_caller, &info) || !info.dli_fname || !*info.dli_fname) return nullptr;
  void* h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD); // the caller runs: it stays loaded
  void* p = h ? dlsym_real(h, name) : nullptr;
  return p != exported_driver(f) ? p : nullptr;
}

void* real_driver(int route, int f) {
  void* p = g_real[route][f].load(std::memory_order_acquire);
  if (p || route != 0) return p;
  p = dlsym(RTLD_NEXT, k_driver_names[f]); // ours is exported: this reaches real_dlsym
  if (!p) p = in_caller_scope(k_driver_names[f], f);
  if (!p) p = in_known_driver(k_driver_names[f], f);
  if (p) g_real[0][f].store(p, std::memory_order_release);
  return p;
}

template <typename F> F real(int route, int f) {
  return reinterpret_cast<F>(real_driver(route, f));
}

uint32_t u32_at(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t u64_at(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr uint32_t k_fatbin_wrapper_magic = 0x466243b1; // the runtime's __fatBinC_Wrapper_t
constexpr uint32_t k_fatbin_magic = 0xba55ed50;         // a fatbin's own header
constexpr uint64_t k_image_max = 1ull << 32;            // larger is not an image: not read

// The size of a 64-bit ELF image: the furthest of its section and program header tables and
// its sections' bytes. 0 when the header is not one kdet reads.
size_t elf_size(const unsigned char* p) {
  if (p[4] != 2 /* ELFCLASS64 */ || p[5] != 1 /* little-endian */) return 0;
  uint64_t phoff = u64_at(p + 32), shoff = u64_at(p + 40);
  uint16_t phentsize, phnum, shentsize, shnum;
  std::memcpy(&phentsize, p + 54, 2);
  std::memcpy(&phnum, p + 56, 2);
  std::memcpy(&shentsize, p + 58, 2);
  std::memcpy(&shnum, p + 60, 2);
  if (shoff >= k_image_max || phoff >= k_image_max || (shnum && shentsize != 64)) return 0;
  uint64_t end = 64;
  if (phnum) end = std::max<uint64_t>(end, phoff + uint64_t{phnum} * phentsize);
  if (shnum) end = std::max<uint64_t>(end, shoff + uint64_t{shnum} * shentsize);
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char* sh = p + shoff + uint64_t{i} * 64;
    uint32_t type = u32_at(sh + 4);
    uint64_t off = u64_at(sh + 24), size = u64_at(sh + 32);
    if (type == 8 /* SHT_NOBITS */ || off >= k_image_max || size >= k_image_max) continue;
    end = std::max(end, off + size);
  }
  return end < k_image_max ? static_cast<size_t>(end) : 0;
}

// The bytes of the image at `p` as the driver reads them: a fatbin wrapper is followed to
// its fatbin; a fatbin's size is in its header, an ELF's in its tables; anything else is
// NUL-terminated text (PTX). Size 0 when it cannot be told.
const void* image_extent(const void* p, size_t* size) {
  *size = 0;
  if (!p) return nullptr;
  if (u32_at(p) == k_fatbin_wrapper_magic) {
    // {int magic; int version; const void* data; void* filename_or_fatbins}
    void* data;
    std::memcpy(&data, static_cast<const char*>(p) + 8, sizeof data);
    p = data;
    if (!p) return nullptr;
  }
  const auto* b = static_cast<const unsigned char*>(p);
  if (u32_at(p) == k_fatbin_magic) {
    uint16_t header;
    std::memcpy(&header, b + 6, 2);
    uint64_t fat = u64_at(b + 8);
    if (fat < k_image_max) *size = header + fat;
  } else if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
    *size = elf_size(b);
  } else {
    *size = strnlen(static_cast<const char*>(p), k_image_max);
  }
  return p;
}

// One load's record: header, image, result, in one write.
void write_load(const char* via, const void* image, size_t size, const char* path, int rc,
                void* real) {
  if (!capture_dir()) return;
  char hash[33];
  store_blob(image, size, hash);
  Buf b;
  add_record_header(b, "load");
  // The driver by path only: hashing libcuda in every process would cost more than a load.
  Dl_info info{};
  if (real && dladdr(real, &info) && info.dli_fname && *info.dli_fname) {
    b.add("lib ");
    b.add_text(info.dli_fname);
    b.add("\n");
  }
  b.add("option ");
  b.add_text(via);
  b.add("\nimage ");
  b.add(hash);
  b.add(" ");
  b.add_u64(size);
  b.add(" ");
  b.add_text(path);
  b.add("\nresult ");
  b.add_u64(static_cast<unsigned long long>(static_cast<unsigned>(rc)));
  b.add("\nbegin\n");
  unsigned long long id = 0;
  if (!b.failed) create_record(b, &id);
  b.release();
  write_maps_at_first_compile();
}

// `from`: the program or library a registered fatbin is shipped in (nullptr for a load).
void record_image(int f, const void* image, int rc, void* real, const char* from = nullptr) {
  size_t size = 0;
  const void* p = image_extent(image, &size);
  if (p && size) write_load(k_driver_names[f], p, size, from, rc, real);
}

// A module loaded from a file: its bytes as the driver read them a moment ago.
void record_file(int f, const char* path, int rc, void* real) {
  if (!path || !capture_dir()) return;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  void* map = MAP_FAILED;
  size_t size = 0;
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      static_cast<uint64_t>(st.st_size) < k_image_max) {
    size = static_cast<size_t>(st.st_size);
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    // The number may have become the pipeline's between open and mmap: no bytes then.
    if (map != MAP_FAILED && !write_checked(fd, st, "", 0)) {
      ::munmap(map, size);
      map = MAP_FAILED;
    }
  }
  if (fd >= 0) close_checked(fd, st);
  if (map == MAP_FAILED) return;
  // The file whole: its headers are not read (one that claims more than the file holds
  // would fault past its end).
  write_load(k_driver_names[f], map, size, path, rc, real);
  ::munmap(map, size);
}

void* proc_wrapper(const char* symbol, int version, void* real);

template <int R> struct Loads {
  static int module_load_data(void** m, const void* image) {
    Depth d;
    void* r = real_driver(R, d_module_load_data);
    if (!r) return k_not_found;
    int rc = reinterpret_cast<int (*)(void**, const void*)>(r)(m, image);
    if (rc == 0 && d.outer()) record_image(d_module_load_data, image, rc, r);
    return rc;
  }
  static int module_load_data_ex(void** m, const void* image, unsigned n, int* o, void** v) {
    Depth d;
    void* r = real_driver(R, d_module_load_data_ex);
    if (!r) return k_not_found;
    int rc = reinterpret_cast<int (*)(void**, const void*, unsigned, int*, void**)>(r)(m, image, n,
                                                                                       o, v);
    if (rc == 0 && d.outer()) record_image(d_module_load_data_ex, image, rc, r);
    return rc;
  }
  static int module_load_fat_binary(void** m, const void* image) {
    Depth d;
    void* r = real_driver(R, d_module_load_fat_binary);
    if (!r) return k_not_found;
    int rc = reinterpret_cast<int (*)(void**, const void*)>(r)(m, image);
    if (rc == 0 && d.outer()) record_image(d_module_load_fat_binary, image, rc, r);
    return rc;
  }
  static int module_load(void** m, const char* path) {
    Depth d;
    void* r = real_driver(R, d_module_load);
    if (!r) return k_not_found;
    int rc = reinterpret_cast<int (*)(void**, const char*)>(r)(m, path);
    if (rc == 0 && d.outer()) record_file(d_module_load, path, rc, r);
    return rc;
  }
  static int library_load_data(void** l, const void* image, int* jo, void** jv, unsigned jn,
                               int* lo, void** lv, unsigned ln) {
    Depth d;
    void* r = real_driver(R, d_library_load_data);
    if (!r) return k_not_found;
    using Fn = int (*)(void**, const void*, int*, void**, unsigned, int*, void**, unsigned);
    int rc = reinterpret_cast<Fn>(r)(l, image, jo, jv, jn, lo, lv, ln);
    if (rc == 0 && d.outer()) record_image(d_library_load_data, image, rc, r);
    return rc;
  }
  static int library_load_from_file(void** l, const char* path, int* jo, void** jv, unsigned jn,
                                    int* lo, void** lv, unsigned ln) {
    Depth d;
    void* r = real_driver(R, d_library_load_from_file);
    if (!r) return k_not_found;
    using Fn = int (*)(void**, const char*, int*, void**, unsigned, int*, void**, unsigned);
    int rc = reinterpret_cast<Fn>(r)(l, path, jo, jv, jn, lo, lv, ln);
    if (rc == 0 && d.outer()) record_file(d_library_load_from_file, path, rc, r);
    return rc;
  }
  // cuGetProcAddress (CUDA 11.3+) and cuGetProcAddress_v2 (12.0+: a query result at the end).
  static int get_proc_address(const char* symbol, void** pfn, int version, uint64_t flags) {
    void* r = real_driver(R, d_get_proc_address);
    if (!r) return k_not_found;
    int rc = reinterpret_cast<int (*)(const char*, void**, int, uint64_t)>(r)(symbol, pfn, version,
                                                                              flags);
    if (rc == 0 && pfn && *pfn) *pfn = proc_wrapper(symbol, version, *pfn);
    return rc;
  }
  static int get_proc_address_v2(const char* symbol, void** pfn, int version, uint64_t flags,
                                 void* status) {
    void* r = real_driver(R, d_get_proc_address_v2);
    if (!r) return k_not_found;
    using Fn = int (*)(const char*, void**, int, uint64_t, void*);
    int rc = reinterpret_cast<Fn>(r)(symbol, pfn, version, flags, status);
    if (rc == 0 && pfn && *pfn) *pfn = proc_wrapper(symbol, version, *pfn);
    return rc;
  }
  static void* get(int f) {
    switch (f) {
    case d_module_load_data:
      return reinterpret_cast<void*>(&module_load_data);
    case d_module_load_data_ex:
      return reinterpret_cast<void*>(&module_load_data_ex);
    case d_module_load_fat_binary:
      return reinterpret_cast<void*>(&module_load_fat_binary);
    case d_module_load:
      return reinterpret_cast<void*>(&module_load);
    case d_library_load_data:
      return reinterpret_cast<void*>(&library_load_data);
    case d_library_load_from_file:
      return reinterpret_cast<void*>(&library_load_from_file);
    case d_get_proc_address:
      return reinterpret_cast<void*>(&get_proc_address);
    case d_get_proc_address_v2:
      return reinterpret_cast<void*>(&get_proc_address_v2);
    default:
      return nullptr;
    }
  }
};

// What cuGetProcAddress found for `symbol` (a base name: "cuModuleLoadData"), or our
// wrapper for it. "cuGetProcAddress" itself is the _v2 form from CUDA 12.0 on.
void* proc_wrapper(const char* symbol, int version, void* real) {
  if (!symbol || symbol[0] != 'c' || symbol[1] != 'u') return real;
  int f = -1;
  for (int i = 0; i < d_register_fat_binary && f < 0; ++i)
    if (std::strcmp(symbol, k_driver_names[i]) == 0) f = i;
  if (f == d_get_proc_address && version >= 12000) f = d_get_proc_address_v2;
  if (f < 0) return real;
  void* ours = Loads<1>::get(f);
  if (real == ours || real == Loads<0>::get(f) || real == exported_driver(f)) return real;
  g_real[1][f].store(real, std::memory_order_release);
  return ours;
}

} // namespace

// ---- dlsym (interpose.cpp's) -------------------------------------------------

int driver_index(const char* name) {
  if (!name || name[0] != 'c' || name[1] != 'u') return -1;
  for (int f = 0; f < d_register_fat_binary; ++f)
    if (std::strcmp(name, k_driver_names[f]) == 0) return f;
  return -1;
}

void* driver_lookup(void* handle, const char* name, int f, DlsymFn d) {
  void* real = d(handle, name);
  if (!real) return nullptr;
  // The global scope found this library's own export: hand it out only when a real
  // driver stands behind it (no libcuda: the pipeline must see none).
  if (real == exported_driver(f)) return d(RTLD_NEXT, name) ? real : nullptr;
  g_real[0][f].store(real, std::memory_order_release);
  return Loads<0>::get(f);
}

} // namespace kdet_capture

using kdet_capture::Loads;

// ---- The exports (route 0) ---------------------------------------------------
#define KDET_EXPORT extern "C" __attribute__((visibility("default")))

KDET_EXPORT int cuModuleLoadData(void** m, const void* image) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::module_load_data(m, image);
}
KDET_EXPORT int cuModuleLoadDataEx(void** m, const void* image, unsigned n, int* o, void** v) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::module_load_data_ex(m, image, n, o, v);
}
KDET_EXPORT int cuModuleLoadFatBinary(void** m, const void* image) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::module_load_fat_binary(m, image);
}
KDET_EXPORT int cuModuleLoad(void** m, const char* path) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::module_load(m, path);
}
KDET_EXPORT int cuLibraryLoadData(void** l, const void* image, int* jo, void** jv, unsigned jn,
                                  int* lo, void** lv, unsigned ln) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::library_load_data(l, image, jo, jv, jn, lo, lv, ln);
}
KDET_EXPORT int cuLibraryLoadFromFile(void** l, const char* path, int* jo, void** jv, unsigned jn,
                                      int* lo, void** lv, unsigned ln) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::library_load_from_file(l, path, jo, jv, jn, lo, lv, ln);
}
KDET_EXPORT int cuGetProcAddress(const char* symbol, void** pfn, int version, uint64_t flags) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::get_proc_address(symbol, pfn, version, flags);
}
KDET_EXPORT int cuGetProcAddress_v2(const char* symbol, void** pfn, int version, uint64_t flags,
                                    void* status) {
  kdet_capture::Caller c(__builtin_return_address(0));
  return Loads<0>::get_proc_address_v2(symbol, pfn, version, flags, status);
}

// The runtime's registration of a program's fatbin (a shared libcudart): the wrapper
// struct {magic, version, data, filename_or_fatbins}. The runtime's name, reserved or not.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
KDET_EXPORT void** __cudaRegisterFatBinary(void* fat) {
  using namespace kdet_capture;
  Caller c(__builtin_return_address(0));
  Depth d;
  void* r = real_driver(0, d_register_fat_binary);
  if (!r) return nullptr;
  void** handle = reinterpret_cast<void** (*)(void*)>(r)(fat);
  // The wrapper is static data of the program or library that ships the fatbin (compiled
  // ahead of time, by nvcc): its file is recorded as where the module came from.
  Dl_info info{};
  const char* from =
      dladdr(fat, &info) && info.dli_fname && *info.dli_fname ? info.dli_fname : nullptr;
  if (d.outer()) record_image(d_register_fat_binary, fat, 0, r, from);
  return handle;
}

namespace kdet_capture {
namespace {
void* exported_driver(int f) {
  switch (f) {
  case d_module_load_data:
    return reinterpret_cast<void*>(&::cuModuleLoadData);
  case d_module_load_data_ex:
    return reinterpret_cast<void*>(&::cuModuleLoadDataEx);
  case d_module_load_fat_binary:
    return reinterpret_cast<void*>(&::cuModuleLoadFatBinary);
  case d_module_load:
    return reinterpret_cast<void*>(&::cuModuleLoad);
  case d_library_load_data:
    return reinterpret_cast<void*>(&::cuLibraryLoadData);
  case d_library_load_from_file:
    return reinterpret_cast<void*>(&::cuLibraryLoadFromFile);
  case d_get_proc_address:
    return reinterpret_cast<void*>(&::cuGetProcAddress);
  case d_get_proc_address_v2:
    return reinterpret_cast<void*>(&::cuGetProcAddress_v2);
  default:
    return nullptr;
  }
}
} // namespace
} // namespace kdet_capture
