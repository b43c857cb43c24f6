//===- engine/run_queue.cpp - which run a slot makes next --------------------===//
#include "kdet/engine/run_queue.hpp"

#include <algorithm>

namespace kdet::engine {

bool runs_in_fresh_process(perturb::ProcessMode mode, uint64_t index) {
  return mode == perturb::ProcessMode::fresh ||
         (mode == perturb::ProcessMode::both && index % 2 == 0);
}

uint64_t same_chain_span(const perturb::Setting& setting) {
  if (setting.history == 0 || setting.process == perturb::ProcessMode::fresh) return 0;
  return setting.process == perturb::ProcessMode::both ? 2 * setting.history : setting.history;
}

uint64_t same_chain(const perturb::Setting& setting, uint64_t index) {
  const uint64_t span = same_chain_span(setting);
  return span == 0 ? 0 : index / span;
}

RunQueue::RunQueue(uint64_t first, uint64_t end, uint64_t unit)
    : m_next(first), m_end(end), m_unit(std::max<uint64_t>(1, unit)) {}

namespace {
// The first index at or after `i` of a same-process run of a `both` round (`same`), or of a
// fresh-process one.
uint64_t next_of_kind(uint64_t i, bool same) {
  return runs_in_fresh_process(perturb::ProcessMode::both, i) != same ? i : i + 1;
}
} // namespace

std::shared_ptr<RunQueue> RunQueue::shared_worker(uint64_t first, uint64_t end) {
  auto q = std::make_shared<RunQueue>(first, end, 1);
  q->m_shared = true;
  q->m_next_same = first;
  return q;
}

std::optional<RunQueue::Unit> RunQueue::take(bool& holds_shared) {
  std::lock_guard<std::mutex> lock(m_mu);
  if (m_closed) return std::nullopt;
  const uint64_t end = end_now();
  if (m_shared) {
    if (!m_shared_held) m_shared_held = holds_shared = true;
    if (!holds_shared) m_helped = true;
    const uint64_t fresh = next_of_kind(m_next, false);
    const uint64_t same = next_of_kind(m_next_same, true);
    // The holder alone keeps index order; with help, the shared worker's runs (which only it
    // can make) come first.
    if (holds_shared && same < end && (same < fresh || m_helped)) {
      m_next_same = same + 1;
      return Unit{same, same + 1};
    }
    if (fresh >= end) return std::nullopt;
    m_next = fresh + 1;
    return Unit{fresh, fresh + 1};
  }
  if (m_next >= end) return std::nullopt;
  const uint64_t a = m_next;
  m_next = std::min(m_end, (a / m_unit + 1) * m_unit);
  return Unit{a, std::min(m_next, end)};
}

void RunQueue::stop(uint64_t index) {
  std::lock_guard<std::mutex> lock(m_mu);
  m_last = std::min(m_last, index);
}

bool RunQueue::wanted(uint64_t index) const {
  std::lock_guard<std::mutex> lock(m_mu);
  return !m_closed && index <= m_last;
}

void RunQueue::close() {
  std::lock_guard<std::mutex> lock(m_mu);
  m_closed = true;
}

uint64_t RunQueue::left() const {
  std::lock_guard<std::mutex> lock(m_mu);
  if (m_closed) return 0;
  const uint64_t end = end_now();
  if (!m_shared) return end - std::min(end, m_next);
  auto count = [&](uint64_t from, bool same) { // runs of a kind in [from, end)
    const uint64_t f = next_of_kind(from, same);
    return f >= end ? 0 : (end - f + 1) / 2;
  };
  return count(m_next, false) + count(m_next_same, true);
}

} // namespace kdet::engine
