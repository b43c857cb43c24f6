//===- engine/interrupt.hpp - Ctrl-C without losing what was recorded --------===//
#pragma once

namespace kdet::engine {

// Installs SIGINT/SIGTERM handlers that mark kdet as interrupted and make
// interrupt_fd() readable, so threads blocked on workers wake up at once.
void install_interrupt_handler();

// Readable once an interrupt arrived; -1 before install_interrupt_handler().
int interrupt_fd();

bool interrupted();

} // namespace kdet::engine
