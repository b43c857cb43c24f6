//===- engine/interrupt.hpp - Ctrl-C without losing what was recorded --------===//
#pragma once

namespace kdet::engine {

// Installs SIGINT/SIGTERM handlers that mark kdet as interrupted and make
// interrupt_fd() readable, so threads blocked on workers wake up at once.
// With `leave_terminal_sigint`, a SIGINT typed at the terminal (sent by the
// kernel to the whole foreground group) is left to the child that got it too;
// one sent by a process (kill -INT) still interrupts.
void install_interrupt_handler(bool leave_terminal_sigint = false);

// Readable once an interrupt arrived; -1 before install_interrupt_handler().
int interrupt_fd();

bool interrupted();

} // namespace kdet::engine
