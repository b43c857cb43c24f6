//===- util/cpu_time.cpp - CPU time (user + system) of this process ----------===//
#include "kdet/util/cpu_time.hpp"

#include <ctime>
#include <sys/resource.h>

namespace kdet {

namespace {

uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  if (::clock_gettime(id, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t timeval_ns(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
}

} // namespace

uint64_t process_cpu_ns() {
  return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t thread_cpu_ns() {
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t children_cpu_ns() {
  rusage ru{};
  if (::getrusage(RUSAGE_CHILDREN, &ru) != 0) return 0;
  return timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
}

} // namespace kdet
