#include "kdet/engine/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace kdet::engine {

namespace {
int g_pipe[2] = {-1, -1};
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_leave_terminal_sigint{false};

void on_signal(int sig, siginfo_t* info, void*) {
  if (sig == SIGINT && g_leave_terminal_sigint.load() && info && info->si_code == SI_KERNEL) return;
  g_interrupted.store(true);
  char c = 1;
  ssize_t ignored = ::write(g_pipe[1], &c, 1);
  (void)ignored;
}
} // namespace

void install_interrupt_handler(bool leave_terminal_sigint) {
  g_leave_terminal_sigint.store(leave_terminal_sigint);
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_fd() {
  return g_pipe[0];
}
bool interrupted() {
  return g_interrupted.load();
}

} // namespace kdet::engine
