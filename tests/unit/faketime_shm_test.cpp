// util/faketime_shm: libfaketime's shared clock objects, made, removed and swept by kdet.
#include "kdet/util/faketime_shm.hpp"
#include "kdet/util/fs.hpp"
#include "process_support.hpp"

#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <semaphore.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdet;
namespace fs = std::filesystem;

namespace {

std::string object_name(long pid, unsigned serial) {
  return fmt::format("kdet-ft-{:010d}-{:08x}-{:08x}", pid, serial, 0xabcdefu);
}

void touch(const fs::path& p) {
  write_file_atomic(p.string(), "x");
}

} // namespace

TEST(FaketimeShm, MakesBothObjectsWithOneLengthAndRemovesThem) {
  if (!fs::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm on this machine";
  std::string name, env;
  {
    FaketimeShared a, b;
    ASSERT_FALSE(a.env().empty());
    name = a.name();
    env = a.env();
    EXPECT_EQ(env, fmt::format("FAKETIME_SHARED=/{} /{}", name, name));
    EXPECT_EQ(a.env().size(), b.env().size()) << "the length must not depend on the launch";
    EXPECT_NE(a.name(), b.name());
    EXPECT_TRUE(fs::is_regular_file("/dev/shm/" + name));
    EXPECT_TRUE(fs::is_regular_file("/dev/shm/sem." + name));
    // The semaphore is one sem_open finds and libfaketime can take and give back: value 1.
    sem_t* sem = ::sem_open(("/" + name).c_str(), 0);
    ASSERT_NE(sem, SEM_FAILED);
    int value = -1;
    EXPECT_EQ(::sem_getvalue(sem, &value), 0);
    EXPECT_EQ(value, 1);
    EXPECT_EQ(::sem_trywait(sem), 0);
    EXPECT_NE(::sem_trywait(sem), 0); // taken
    EXPECT_EQ(::sem_post(sem), 0);
    ::sem_close(sem);
    // Libfaketime's "start time not set yet" mark is in place: -1 nanoseconds.
    int fd = ::open(("/dev/shm/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    int64_t nsec = 0;
    ASSERT_EQ(::pread(fd, &nsec, sizeof nsec, 24), static_cast<ssize_t>(sizeof nsec));
    EXPECT_EQ(nsec, -1);
    // A live owner holds the lock, so a sweep leaves the objects alone.
    EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    ::close(fd);
    sweep_stale_faketime_objects();
    EXPECT_TRUE(fs::exists("/dev/shm/" + name));
  }
  EXPECT_FALSE(fs::exists("/dev/shm/" + name));
  EXPECT_FALSE(fs::exists("/dev/shm/sem." + name));
}

TEST(FaketimeShm, EnvSetsFaketime) {
  EXPECT_TRUE(env_sets_faketime({"A=1", "FAKETIME=@2020-01-01 00:00:00"}));
  EXPECT_FALSE(env_sets_faketime({"FAKETIME_SHARED=x y", "NOFAKETIME=1"}));
  EXPECT_FALSE(env_sets_faketime({}));
}

TEST(FaketimeShm, SweepRemovesOnlyWhatADeadKdetLeft) {
  const std::string dir = make_temp_dir("kdet-ftshm-test");
  const fs::path d(dir);
  const long dead = test::dead_pid(), live = ::getpid();
  // Left by a dead kdet: both objects, and a semaphore whose memory was never made.
  touch(d / object_name(dead, 1));
  touch(d / ("sem." + object_name(dead, 1)));
  touch(d / ("sem." + object_name(dead, 2)));
  // Kept: a live owner's, a locked one, another user's, a link, other names.
  touch(d / object_name(live, 3));
  touch(d / ("sem." + object_name(live, 3)));
  touch(d / object_name(dead, 4));
  int held = ::open((d / object_name(dead, 4)).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  touch(d / object_name(dead, 5));
  ASSERT_EQ(::chown((d / object_name(dead, 5)).c_str(), ::geteuid() + 1, ::getegid()), 0);
  touch(d / "victim");
  fs::create_symlink(d / "victim", d / object_name(dead, 6));
  touch(d / "faketime_shm_12345");
  touch(d / (object_name(dead, 7) + "x"));

  EXPECT_EQ(sweep_stale_faketime_objects(dir), 2u);
  EXPECT_FALSE(fs::exists(d / object_name(dead, 1)));
  EXPECT_FALSE(fs::exists(d / ("sem." + object_name(dead, 1))));
  EXPECT_FALSE(fs::exists(d / ("sem." + object_name(dead, 2))));
  for (const auto& kept : {object_name(live, 3), "sem." + object_name(live, 3),
                           object_name(dead, 4), object_name(dead, 5), std::string("victim"),
                           std::string("faketime_shm_12345"), object_name(dead, 7) + "x"})
    EXPECT_TRUE(fs::exists(d / kept)) << kept;
  EXPECT_TRUE(fs::is_symlink(d / object_name(dead, 6)));
  ::close(held);
  EXPECT_EQ(sweep_stale_faketime_objects(dir), 1u) << "the lock is free now";
  EXPECT_EQ(sweep_stale_faketime_objects(dir + "/missing"), 0u);
  remove_tree(dir);
}
