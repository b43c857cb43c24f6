// The kdet executable: everything lives in kdet_core; this only hands over.
#include "kdet/cli/main.hpp"

#include <cstdint>
#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

// With ASLR off, the heap begins at the page after the executable's .bss, so every build of
// kdet of another size would give a compiler loaded in its worker other heap addresses, and an
// address-following compiler other outputs for the same seed. Before anything allocates (the
// executable's preinit functions run before every library's initialisers), the break moves up
// to the next 64 MiB boundary: every kdet build smaller than that boundary gives the compiler
// the same heap. With ASLR on the kernel's random break is left as it is (aligning it would
// take away most of its randomness).
constexpr uintptr_t k_heap_alignment = uintptr_t{64} << 20;

void align_heap_start(int /*argc*/, char** /*argv*/, char** /*envp*/) {
  if ((::personality(0xffffffff) & ADDR_NO_RANDOMIZE) == 0) return;
  auto start = reinterpret_cast<uintptr_t>(::sbrk(0));
  if (start == UINTPTR_MAX) return;
  uintptr_t aligned = (start + k_heap_alignment - 1) & ~(k_heap_alignment - 1);
  uintptr_t gap = aligned - start;
  // The gap is address space the data limits count: under a tight one it is not taken.
  for (int resource : {RLIMIT_DATA, RLIMIT_AS}) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        gap > limit.rlim_cur / 16)
      return;
  }
  if (gap > 0) ::sbrk(static_cast<intptr_t>(gap));
}

[[gnu::section(".preinit_array"), gnu::used]] void (*const k_preinit)(int, char**,
                                                                      char**) = align_heap_start;

} // namespace

int main(int argc, char** argv) {
  return kdet::cli::kdet_main(argc, argv);
}
