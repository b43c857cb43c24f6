//===- util/names.cpp - kernel names shortened for one line --------------------===//
#include "kdet/util/names.hpp"

#include "kdet/util/hash.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace kdet {

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

std::string demangle_if_shorter(const std::string& name) {
  std::string s = demangle(name);
  return s.size() < name.size() ? s : name;
}

// numba names a CUDA kernel _ZN6cudapy<module><function>B<abi tags>E<argument types>: the
// function's own name ("saxpy") says what a reader needs; "" for any other name.
std::string numba_kernel(const std::string& name) {
  if (name.rfind("_ZN6cudapy", 0) != 0) return "";
  size_t i = 3;
  std::string last;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
    size_t n = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9')
      n = n * 10 + static_cast<size_t>(name[i++] - '0');
    if (n == 0 || i + n > name.size()) return "";
    last = name.substr(i, n);
    i += n;
  }
  return last == "cudapy" ? "" : last;
}

std::string display_name(const std::string& name, size_t width) {
  if (width == 0) return demangle_if_shorter(name); // --full-names
  // numba's function name, with the cut form's hash: two specializations of one function (the
  // same name, other argument types) must not read as one kernel.
  if (std::string n = numba_kernel(name); !n.empty())
    return n + "..." + hash_bytes(name).substr(0, 8);
  std::string s = demangle_if_shorter(name);
  if (width == 0 || s.size() <= width || width < 16) return s;
  return s.substr(0, width - 12) + "..." + hash_bytes(name).substr(0, 8);
}

std::string display_names(const std::vector<std::string>& names, size_t width) {
  if (names.empty()) return "";
  std::string s = display_name(names.front(), width);
  if (names.size() > 1) s += " +" + std::to_string(names.size() - 1) + " more";
  return s;
}

} // namespace kdet
