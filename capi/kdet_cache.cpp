//===- capi/kdet_cache.cpp - the C API over cache::Store (kdet_cache.h) --------===//
//
// Thin: keys from caller-provided parts (backend "capi" in key.json), the same
// store, verification sampled here and performed by the caller's recompile.
// Exceptions never cross the C boundary: each entry point catches and returns
// KDET_CACHE_ERROR with the message in a thread-local string.
//
//===----------------------------------------------------------------------===//
#include "kdet_cache.h"

#include "kdet/cache/compile.hpp"
#include "kdet/cache/key.hpp"
#include "kdet/cache/store.hpp"
#include "kdet/engine/differences.hpp"
#include "kdet/util/hash.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <string>

#define KDET_API extern "C" __attribute__((visibility("default")))

using namespace kdet;

struct kdet_cache {
  explicit kdet_cache(const std::string& dir) : store(dir) {}
  cache::Store store;
  double verify_rate = cache::k_default_verify_rate;
  int policy = KDET_CACHE_POLICY_SERVE_FIRST;
  std::string warning;
  std::map<std::string, nlohmann::json> materials; // key -> key.json content, from make_key
};

struct kdet_cache_buffer {
  std::string data;
  bool set = false;
};

namespace {

thread_local std::string t_error;

template <typename F> int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    t_error = e.what();
  } catch (...) {
    t_error = "unknown error";
  }
  return KDET_CACHE_ERROR;
}

int fail(const std::string& why) {
  t_error = why;
  return KDET_CACHE_ERROR;
}

bool valid_key(const char* key) {
  if (!key || std::strlen(key) != 32) return false;
  for (const char* p = key; *p; ++p)
    if (!std::isxdigit(static_cast<unsigned char>(*p))) return false;
  return true;
}

void* copy_out(const std::string& s) {
  void* p = std::malloc(s.empty() ? 1 : s.size());
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  return p;
}

constexpr const char* k_artifact = "output";

void add_warning(kdet_cache* c, const std::string& w) {
  c->warning += w + "\n";
}

} // namespace

KDET_API kdet_cache* kdet_cache_open(const char* dir) {
  try {
    auto* c = new kdet_cache(cache::resolve_cache_dir(dir ? dir : ""));
    return c;
  } catch (const std::exception& e) {
    t_error = e.what();
    return nullptr;
  }
}

KDET_API void kdet_cache_close(kdet_cache* cache) {
  delete cache;
}

KDET_API const char* kdet_cache_last_error(void) {
  return t_error.c_str();
}

KDET_API const char* kdet_cache_last_warning(kdet_cache* cache) {
  return cache ? cache->warning.c_str() : "";
}

KDET_API int kdet_cache_set_verify_rate(kdet_cache* cache, double rate) {
  if (!cache) return fail("kdet_cache_set_verify_rate: NULL handle");
  if (!(rate >= 0 && rate <= 1))
    return fail(fmt::format("kdet_cache_set_verify_rate: {} is not in 0..1", rate));
  cache->verify_rate = rate;
  return KDET_CACHE_OK;
}

KDET_API int kdet_cache_set_policy(kdet_cache* cache, int policy) {
  if (!cache) return fail("kdet_cache_set_policy: NULL handle");
  if (policy != KDET_CACHE_POLICY_SERVE_FIRST && policy != KDET_CACHE_POLICY_FAIL)
    return fail(
        fmt::format("kdet_cache_set_policy: {} is neither SERVE_FIRST (0) nor FAIL (1)", policy));
  cache->policy = policy;
  return KDET_CACHE_OK;
}

KDET_API int kdet_cache_file_hash(const char* path, char out[33]) {
  return guarded([&] {
    if (!path || !out) return fail("kdet_cache_file_hash: NULL argument");
    std::string h = hash_file(path);
    std::memcpy(out, h.c_str(), 33);
    return KDET_CACHE_OK;
  });
}

KDET_API int kdet_cache_name_key(kdet_cache* cache, const char* key, const char* input_name,
                                 const char* compiler_name) {
  return guarded([&] {
    if (!cache || !key) return fail("kdet_cache_name_key: NULL argument");
    auto it = cache->materials.find(key);
    if (it == cache->materials.end())
      return fail(fmt::format("kdet_cache_name_key: key {} was not made by kdet_cache_make_key on "
                              "this handle",
                              key));
    if (input_name) it->second["input"]["name"] = input_name;
    if (compiler_name) it->second["compiler"]["path"] = compiler_name;
    return KDET_CACHE_OK;
  });
}

KDET_API int kdet_cache_make_key(kdet_cache* cache, const void* input, size_t input_size,
                                 const char* compiler_id, const char* const* options,
                                 size_t n_options, const char* const* env, size_t n_env,
                                 char key_out[33]) {
  return guarded([&] {
    if ((!input && input_size) || !compiler_id || !key_out || (!options && n_options) ||
        (!env && n_env))
      return fail("kdet_cache_make_key: NULL argument");
    cache::KeyMaterial m;
    m.backend = "capi";
    m.compiler.backend = "capi";
    m.compiler.content_hash = compiler_id;
    for (size_t i = 0; i < n_options; ++i)
      m.options.emplace_back(options[i] ? options[i] : "");
    for (size_t i = 0; i < n_env; ++i) {
      std::string kv = env[i] ? env[i] : "";
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        return fail(fmt::format("kdet_cache_make_key: env entry '{}' is not NAME=VALUE", kv));
      m.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    std::sort(m.env.begin(), m.env.end());
    std::string_view in(static_cast<const char*>(input), input_size);
    m.input_hash = hash_bytes(in);
    m.input_size = input_size;
    std::string key = cache::compute_key(m);
    std::memcpy(key_out, key.c_str(), 33);
    if (cache) cache->materials[key] = cache::to_json(m);
    return KDET_CACHE_OK;
  });
}

namespace {

// kdet_cache_lookup; `count` says whether the call enters `kdet cache stats` (a caller's lookup
// does, get_or_compile's second look after its own store does not).
int lookup(kdet_cache* cache, const char* key, void** data, size_t* size, int* verify, bool count) {
  return guarded([&] {
    if (!cache || !data || !size) return fail("kdet_cache_lookup: NULL argument");
    if (!valid_key(key))
      return fail("kdet_cache_lookup: the key must be 32 hex digits (kdet_cache_make_key)");
    cache->warning.clear();
    *data = nullptr;
    *size = 0;
    if (verify) *verify = 0;
    cache::Lookup l = cache->store.lookup(key);
    for (const auto& w : l.warnings)
      add_warning(cache, w);
    if (!l.hit) {
      if (count) cache->store.count('m');
      return KDET_CACHE_MISS;
    }
    if (l.variants.size() > 1) {
      std::string msg =
          fmt::format("cache key {} holds {} variants: the compiler is nondeterministic for this "
                      "input (see `kdet cache report`)",
                      key, l.variants.size());
      add_warning(cache, msg);
      if (cache->policy == KDET_CACHE_POLICY_FAIL) {
        t_error = msg;
        if (count) cache->store.count('r');
        return KDET_CACHE_REFUSED;
      }
    }
    if (l.first.artifacts.size() != 1)
      return fail(fmt::format("cache key {}: the entry holds {} artifacts, the C API handles one",
                              key, l.first.artifacts.size()));
    *data = copy_out(l.first.artifacts[0].data);
    *size = l.first.artifacts[0].data.size();
    if (verify) *verify = cache::sample(cache->verify_rate) ? 1 : 0;
    if (count) cache->store.count('h');
    return KDET_CACHE_OK;
  });
}

} // namespace

KDET_API int kdet_cache_lookup(kdet_cache* cache, const char* key, void** data, size_t* size,
                               int* verify) {
  return lookup(cache, key, data, size, verify, true);
}

KDET_API int kdet_cache_store(kdet_cache* cache, const char* key, const void* data, size_t size,
                              int verification) {
  return guarded([&] {
    if (!cache || (!data && size)) return fail("kdet_cache_store: NULL argument");
    if (!valid_key(key))
      return fail("kdet_cache_store: the key must be 32 hex digits (kdet_cache_make_key)");
    cache->warning.clear();
    std::vector<backend::Artifact> arts = {
        {k_artifact, std::string(static_cast<const char*>(data), size)}};
    std::string vid = cache::variant_id(arts);
    auto it = cache->materials.find(key);
    nlohmann::json kj =
        it != cache->materials.end() ? it->second : nlohmann::json{{"backend", "capi"}};
    cache::Origin origin;
    origin.how = verification ? "verify" : "fill";
    origin.command = "C API (libkdet_cache)";
    auto order = cache->store.variant_order(key);
    if (verification && !order.empty() && order[0] == vid) {
      cache->store.log_event(key, {{"event", "verify"}, {"result", "match"}, {"variant", vid}});
      cache->store.count('v');
      return KDET_CACHE_OK;
    }
    cache::PutResult p = cache->store.put(key, kj, "", arts, origin);
    if (p.first == vid) return KDET_CACHE_OK;
    cache::LoadedVariant first;
    std::string why;
    std::string difference = cache->store.load_variant(key, p.first, first, why)
                                 ? engine::describe(first.artifacts, arts)
                                 : "first variant unreadable: " + why;
    if (verification) cache->store.count('x');
    if (verification)
      cache->store.log_event(
          key,
          {{"event", "verify"}, {"result", "mismatch"}, {"served", p.first}, {"recompiled", vid}});
    add_warning(
        cache,
        fmt::format("{} MISMATCH for cache key {}: this compile gave variant {} ({}), the first "
                    "stored is {}; both are kept ({} variants); difference: {}",
                    verification ? "verification" : "store", key, vid.substr(0, 12),
                    p.added ? "new" : "already known", p.first.substr(0, 12), p.variants,
                    difference));
    return KDET_CACHE_MISMATCH;
  });
}

KDET_API int kdet_cache_variants(kdet_cache* cache, const char* key) {
  return guarded([&] {
    if (!cache || !valid_key(key)) return fail("kdet_cache_variants: NULL handle or malformed key");
    return static_cast<int>(cache->store.variant_order(key).size());
  });
}

KDET_API void kdet_cache_free(void* data) {
  std::free(data);
}

KDET_API int kdet_cache_buffer_set(kdet_cache_buffer* out, const void* data, size_t size) {
  if (!out || (!data && size)) return fail("kdet_cache_buffer_set: NULL argument");
  out->data.assign(static_cast<const char*>(data), size);
  out->set = true;
  return KDET_CACHE_OK;
}

KDET_API int kdet_cache_get_or_compile(kdet_cache* cache, const char* key,
                                       kdet_cache_compile_fn compile, void* user, void** data,
                                       size_t* size) {
  if (!compile) return fail("kdet_cache_get_or_compile: NULL compile callback");
  int verify = 0;
  int rc = kdet_cache_lookup(cache, key, data, size, &verify);
  if (rc == KDET_CACHE_ERROR || rc == KDET_CACHE_REFUSED) return rc;
  if (rc == KDET_CACHE_OK && !verify) return rc;
  std::string lookup_warning = cache->warning;
  kdet_cache_buffer buf;
  if (compile(user, &buf) != 0 || !buf.set) {
    if (rc == KDET_CACHE_OK) { // a failed verification compile: serve the cached bytes
      cache->warning = lookup_warning + "verification compile failed; serving the cached variant\n";
      return KDET_CACHE_OK;
    }
    return fail(
        fmt::format("kdet_cache_get_or_compile: the compile callback failed for key {}", key));
  }
  int src =
      kdet_cache_store(cache, key, buf.data.data(), buf.data.size(), rc == KDET_CACHE_OK ? 1 : 0);
  cache->warning = lookup_warning + cache->warning;
  if (src == KDET_CACHE_ERROR) return src;
  if (rc == KDET_CACHE_MISS) {
    // Serve the first stored variant (normally this compile's bytes).
    kdet_cache_free(*data);
    void* d = nullptr;
    size_t n = 0;
    int again = lookup(cache, key, &d, &n, nullptr, false);
    if (again != KDET_CACHE_OK) {
      *data = copy_out(buf.data);
      *size = buf.data.size();
      return src;
    }
    *data = d;
    *size = n;
  }
  return src;
}
