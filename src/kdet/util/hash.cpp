#include "kdet/util/hash.hpp"

#include "kdet/util/error.hpp"

#define XXH_INLINE_ALL
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

namespace kdet {

namespace {
std::string to_hex(XXH128_hash_t h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    out[2 * i] = k_digits[c.digest[i] >> 4];
    out[2 * i + 1] = k_digits[c.digest[i] & 15];
  }
  return out;
}
} // namespace

std::string hash_bytes(std::string_view data) {
  return to_hex(XXH3_128bits(data.data(), data.size()));
}

std::string_view artifact_content(ArtifactForm form, std::string_view data) {
  if (form == ArtifactForm::ptx)
    while (!data.empty() && data.back() == '\0')
      data.remove_suffix(1);
  return data;
}

std::string artifact_hash(ArtifactForm form, std::string_view data) {
  return hash_bytes(artifact_content(form, data));
}

std::string hash_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error::format("cannot read {}: {}", path, std::strerror(errno));
  XXH3_state_t* st = XXH3_createState();
  XXH3_128bits_reset(st);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      XXH3_freeState(st);
      throw Error::format("cannot read {}: {}", path, std::strerror(e));
    }
    if (n == 0) break;
    XXH3_128bits_update(st, buf, static_cast<size_t>(n));
  }
  ::close(fd);
  std::string out = to_hex(XXH3_128bits_digest(st));
  XXH3_freeState(st);
  return out;
}

Hasher::Hasher() : m_state(XXH3_createState()) {
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(m_state));
}
Hasher::~Hasher() {
  XXH3_freeState(static_cast<XXH3_state_t*>(m_state));
}

Hasher& Hasher::add(std::string_view part) {
  add_u64(part.size());
  XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), part.data(), part.size());
  return *this;
}

Hasher& Hasher::add_raw(std::string_view bytes) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), bytes.data(), bytes.size());
  return *this;
}

Hasher& Hasher::add_u64(uint64_t value) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), &value, sizeof value);
  return *this;
}

std::string Hasher::hex() const {
  return to_hex(XXH3_128bits_digest(static_cast<XXH3_state_t*>(m_state)));
}

uint64_t mix_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

} // namespace kdet
