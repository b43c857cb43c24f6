//===- util/result.hpp - a value, or why there is none -----------------------===//
//
// The bottom layers' one way to fail where failing is ordinary: a cubin that is
// no ELF, options that name no target, a machine without PID namespaces. The
// caller decides what the failure means (skip, a note, a kdet::Error naming the
// file). kdet::Error is thrown below cli/ only where a file, folder or text the
// user named cannot be read or written and the command cannot go on (util/fs,
// util/numbers, util/toml_text; util/error.hpp). A compiler's failure is
// neither: it is a recorded outcome.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kdet {

// Why something did not work, in words for a person ("not an ELF file").
struct Failure {
  std::string why;
};

inline Failure failure(std::string why) {
  return Failure{std::move(why)};
}

template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {} // NOLINT: implicit by design
  Result(Failure f) : m_v(std::in_place_index<1>, std::move(f)) {}   // NOLINT: implicit by design

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return *std::get_if<0>(&checked()); }
  const T& value() const& { return *std::get_if<0>(&checked()); }
  T&& value() && { return std::move(*std::get_if<0>(&checked())); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Why it failed; "" when it did not.
  const std::string& why() const {
    static const std::string none;
    return ok() ? none : std::get_if<1>(&m_v)->why;
  }

private:
  std::variant<T, Failure>& checked() {
    assert(ok() && "value() of a failed Result");
    return m_v;
  }
  const std::variant<T, Failure>& checked() const {
    assert(ok() && "value() of a failed Result");
    return m_v;
  }

  std::variant<T, Failure> m_v;
};

// Success or why not, with no value: `Status s = check(); if (!s) use(s.why());`.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Failure f) : m_failure(std::move(f)) {} // NOLINT: implicit by design

  bool ok() const { return !m_failure; }
  explicit operator bool() const { return ok(); }
  const std::string& why() const {
    static const std::string none;
    return m_failure ? m_failure->why : none;
  }

private:
  std::optional<Failure> m_failure;
};

} // namespace kdet
