#include "kdet/engine/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace kdet::engine {

namespace {
int g_pipe[2] = {-1, -1};
std::atomic<bool> g_interrupted{false};

void on_signal(int) {
  g_interrupted.store(true);
  char c = 1;
  ssize_t ignored = ::write(g_pipe[1], &c, 1);
  (void)ignored;
}
} // namespace

void install_interrupt_handler() {
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_fd() { return g_pipe[0]; }
bool interrupted() { return g_interrupted.load(); }

} // namespace kdet::engine
