//===- cores_test.cpp - the CPUs kdet may use --------------------------------===//
#include "kdet/util/cores.hpp"
#include "kdet/util/fs.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <sched.h>
#include <thread>

namespace kdet {
namespace {

unsigned affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  return static_cast<unsigned>(CPU_COUNT(&set));
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(Cores, CpuMaxGivesTheQuotaRoundedUp) {
  EXPECT_EQ(cores_from_cpu_max("max 100000"), std::nullopt);
  EXPECT_EQ(cores_from_cpu_max("max 100000\n"), std::nullopt);
  EXPECT_EQ(cores_from_cpu_max("100000 100000\n"), 1u);
  EXPECT_EQ(cores_from_cpu_max("150000 100000"), 2u);
  EXPECT_EQ(cores_from_cpu_max("50000 100000"), 1u);
  EXPECT_EQ(cores_from_cpu_max("400000 100000"), 4u);
  EXPECT_EQ(cores_from_cpu_max("18446744073709551615 1"), std::numeric_limits<unsigned>::max());
  for (const char* bad : {"", "max", "100000", "abc 100000", "100000 0", "0 100000", "-5 100000",
                          "1.5 1", "100000  100000", "100000 1e5"})
    EXPECT_EQ(cores_from_cpu_max(bad), std::nullopt) << "'" << bad << "'";
}

// The bounds below are 1 CPU: they show only where more than one is there to bound.
#define KDET_NEED_TWO_CPUS()                                                                       \
  if (affinity_count() < 2) GTEST_SKIP() << "needs 2 CPUs to tell a bound of 1 from none"

TEST(Cores, TheAffinityMaskBoundsTheCount) {
  KDET_NEED_TWO_CPUS();
  const std::string none = make_temp_dir("kdet-cores-test");
  EXPECT_EQ(count_usable_cores(none, ""), affinity_count());
  // A thread pinned to one CPU may use one.
  unsigned pinned = 0;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<int>(sched_getcpu()), &one);
    ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
    pinned = count_usable_cores(none, "");
  });
  t.join();
  EXPECT_EQ(pinned, 1u);
  remove_tree(none);
}

TEST(Cores, AQuotaOnTheCgroupOrAnAncestorBoundsTheCount) {
  KDET_NEED_TWO_CPUS();
  // A private folder laid out as a cgroup v2 mount: never the system's.
  const std::string root = make_temp_dir("kdet-cores-test");
  const unsigned all = affinity_count();
  const std::string self = "1:cpu,cpuacct:/v1/ignored\n0::/a/b\n";
  EXPECT_EQ(count_usable_cores(root, self), all) << "no cpu.max anywhere";
  write(root + "/a/b/cpu.max", "max 100000\n");
  EXPECT_EQ(count_usable_cores(root, self), all) << "no quota";
  write(root + "/a/cpu.max", "100000 100000\n");
  EXPECT_EQ(count_usable_cores(root, self), 1u) << "the parent's quota of one CPU";
  write(root + "/a/cpu.max", std::to_string(100000ull * (all + 3)) + " 100000\n");
  EXPECT_EQ(count_usable_cores(root, self), all) << "a quota above the mask";
  write(root + "/a/b/cpu.max", "garbage\n");
  EXPECT_EQ(count_usable_cores(root, self), all) << "an unreadable quota is no bound";
  // Only the "0::" line names the v2 cgroup.
  write(root + "/v1/ignored/cpu.max", "100000 100000\n");
  EXPECT_EQ(count_usable_cores(root, "1:cpu:/v1/ignored\n"), all);
  EXPECT_EQ(count_usable_cores(root, "0::/v1/ignored\n"), 1u);
  // A cgroup above the namespace's root ("/../x") is not looked for above `root`.
  write(root + "/r/placeholder", "");
  write(root + "/x/cpu.max", "100000 100000\n");
  EXPECT_EQ(count_usable_cores(root + "/r", "0::/../x\n"), all);
  remove_tree(root);
}

TEST(Cores, ACgroupV1CpuQuotaBoundsTheCount) {
  KDET_NEED_TWO_CPUS();
  const std::string root = make_temp_dir("kdet-cores-test");
  const unsigned all = affinity_count();
  const std::string self = "5:memory:/m\n3:cpu,cpuacct:/docker/c1\n0::/\n";
  write(root + "/cpu/docker/c1/cpu.cfs_quota_us", "-1\n");
  write(root + "/cpu/docker/c1/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(count_usable_cores(root, self), all) << "-1: no quota";
  write(root + "/cpu/docker/cpu.cfs_quota_us", "50000\n");
  write(root + "/cpu/docker/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(count_usable_cores(root, self), 1u) << "the parent's half a CPU";
  write(root + "/memory/m/cpu.cfs_quota_us", "100000\n"); // another controller's folder
  EXPECT_EQ(count_usable_cores(root, "5:memory:/m\n"), all);
  remove_tree(root);
}

TEST(Cores, UsableCoresIsAtLeastOneAndAtMostTheMask) {
  EXPECT_GE(usable_cores(), 1u);
  EXPECT_LE(usable_cores(), std::max(1u, affinity_count()));
}

} // namespace
} // namespace kdet
