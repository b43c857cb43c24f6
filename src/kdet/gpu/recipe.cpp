//===- gpu/recipe.cpp - recipe TOML: parse, write, initial contents ---------===//
#include "kdet/gpu/recipe.hpp"

#include "kdet/util/error.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/toml_text.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <toml++/toml.h>

namespace kdet::gpu {

namespace {

struct TypeName {
  Type type;
  const char* name;
  size_t size;
  const char* unit;
};
constexpr TypeName k_types[] = {
    {Type::u8, "u8", 1, "bytes"},
    {Type::i32, "i32", 4, "32-bit integers"},
    {Type::u32, "u32", 4, "32-bit integers"},
    {Type::f32, "f32", 4, "floats"},
    {Type::i64, "i64", 8, "64-bit integers"},
    {Type::u64, "u64", 8, "64-bit integers"},
    {Type::f64, "f64", 8, "doubles"},
};

// Errors name the file and the line of the node at fault.
class Checker {
public:
  explicit Checker(std::string path) : m_path(std::move(path)) {}
  [[noreturn]] void fail(const toml::node* n, const std::string& message) const {
    int line = n ? static_cast<int>(n->source().begin.line) : 0;
    throw Error(line > 0 ? fmt::format("{}:{}: {}", m_path, line, message)
                         : fmt::format("{}: {}", m_path, message));
  }
  void keys(const toml::table& t, std::initializer_list<const char*> allowed,
            const std::string& where) const {
    for (auto&& [k, v] : t) {
      bool ok = false;
      for (const char* a : allowed)
        ok |= k.str() == a;
      if (!ok)
        fail(&v, fmt::format("unknown key '{}' in {}; valid keys: {}", k.str(), where,
                             fmt::join(allowed, ", ")));
    }
  }
  int64_t integer(const toml::node& n, const std::string& what, int64_t lo, int64_t hi) const {
    const auto* v = n.as_integer();
    if (!v || v->get() < lo || v->get() > hi)
      fail(&n, fmt::format("{}: expected an integer from {} to {}", what, lo, hi));
    return v->get();
  }
  std::array<uint32_t, 3> dims(const toml::table& t, const char* key) const {
    std::array<uint32_t, 3> d{1, 1, 1};
    const toml::node* n = t.get(key);
    if (!n) fail(&t, fmt::format("the recipe needs '{}' (N or [X, Y, Z])", key));
    if (const toml::array* a = n->as_array()) {
      if (a->empty() || a->size() > 3)
        fail(n, fmt::format("{}: give 1 to 3 dimensions, not {}", key, a->size()));
      for (size_t i = 0; i < a->size(); ++i)
        d[i] = static_cast<uint32_t>(integer(*a->get(i), key, 1, 0x7fffffff));
    } else {
      d[0] = static_cast<uint32_t>(integer(*n, key, 1, 0x7fffffff));
    }
    return d;
  }
  Type type(const toml::node& n, const std::string& what) const {
    if (const auto* s = n.as_string())
      for (const auto& t : k_types)
        if (s->get() == t.name) return t.type;
    fail(&n, fmt::format("{}: expected a type: u8, i32, u32, f32, i64, u64 or f64", what));
  }

private:
  std::string m_path;
};

const TypeName& info(Type type) {
  for (const auto& t : k_types)
    if (t.type == type) return t;
  return k_types[0];
}

uint64_t scalar_bits(const Checker& c, const toml::node& n, Type type, const std::string& what) {
  switch (type) {
  case Type::f32:
  case Type::f64: {
    double d = 0;
    if (const auto* f = n.as_floating_point())
      d = f->get();
    else if (const auto* i = n.as_integer())
      d = static_cast<double>(i->get());
    else
      c.fail(&n, fmt::format("{}: expected a number", what));
    if (type == Type::f64) {
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof d);
      return bits;
    }
    float f = static_cast<float>(d);
    if (std::isfinite(d) && !std::isfinite(f))
      c.fail(&n, fmt::format("{}: {} is out of range for f32", what, d));
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof f);
    return bits;
  }
  case Type::i32:
    return static_cast<uint32_t>(static_cast<int32_t>(c.integer(
        n, what, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())));
  case Type::u32:
    return static_cast<uint64_t>(c.integer(n, what, 0, std::numeric_limits<uint32_t>::max()));
  case Type::u8:
    return static_cast<uint64_t>(c.integer(n, what, 0, 255));
  case Type::u64:
    return static_cast<uint64_t>(c.integer(n, what, 0, std::numeric_limits<int64_t>::max()));
  default:
    return static_cast<uint64_t>(c.integer(n, what, std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<int64_t>::max()));
  }
}

RecipeArg parse_arg(const Checker& c, const toml::table& t, size_t index) {
  RecipeArg a;
  a.line = static_cast<int>(t.source().begin.line);
  std::string where = fmt::format("[[arg]] {}", index + 1);
  if (const toml::node* n = t.get("name")) {
    if (!n->as_string()) c.fail(n, where + ": 'name' must be a string");
    a.name = n->as_string()->get();
  } else {
    a.name = fmt::format("arg {}", index + 1);
  }
  const toml::node* buffer = t.get("buffer");
  const toml::node* scalar = t.get("scalar");
  if ((buffer != nullptr) == (scalar != nullptr))
    c.fail(&t, where + ": give either buffer = \"TYPE\" or scalar = \"TYPE\"");
  if (scalar) {
    c.keys(t, {"name", "scalar", "value"}, where + " (a scalar)");
    a.kind = RecipeArg::Kind::scalar;
    a.type = c.type(*scalar, where + ": scalar");
    if (a.type == Type::u8) c.fail(scalar, where + ": a scalar is 4 or 8 bytes, not u8");
    const toml::node* v = t.get("value");
    if (!v) c.fail(&t, where + ": a scalar needs 'value'");
    a.bits = scalar_bits(c, *v, a.type, where + ": value");
    return a;
  }
  c.keys(t, {"name", "buffer", "elements", "bytes", "init", "seed", "output"},
         where + " (a buffer)");
  a.type = c.type(*buffer, where + ": buffer");
  const toml::node* elements = t.get("elements");
  const toml::node* bytes = t.get("bytes");
  if ((elements != nullptr) == (bytes != nullptr))
    c.fail(&t, where + ": give either 'elements' or 'bytes'");
  int64_t max = static_cast<int64_t>(k_max_buffer_bytes);
  if (elements) {
    a.elements = static_cast<uint64_t>(
        c.integer(*elements, where + ": elements", 1, max / static_cast<int64_t>(size_of(a.type))));
  } else {
    auto b = static_cast<uint64_t>(c.integer(*bytes, where + ": bytes", 1, max));
    if (b % size_of(a.type) != 0)
      c.fail(bytes, fmt::format("{}: bytes {} is not a multiple of {}'s {} bytes", where, b,
                                to_string(a.type), size_of(a.type)));
    a.elements = b / size_of(a.type);
  }
  if (const toml::node* n = t.get("init")) {
    const auto* s = n->as_string();
    if (!s || (s->get() != "random" && s->get() != "zero"))
      c.fail(n, where + ": init must be \"random\" or \"zero\"");
    a.random = s->get() == "random";
  }
  if (const toml::node* n = t.get("seed"))
    a.seed = static_cast<uint64_t>(
        c.integer(*n, where + ": seed", 0, std::numeric_limits<int64_t>::max()));
  if (const toml::node* n = t.get("output")) {
    if (!n->as_boolean()) c.fail(n, where + ": output must be true or false");
    a.output = n->as_boolean()->get();
  }
  return a;
}

} // namespace

const char* to_string(Type type) {
  return info(type).name;
}

size_t size_of(Type type) {
  return info(type).size;
}

const char* unit_name(Type type) {
  return info(type).unit;
}

std::string dims_text(const std::array<uint32_t, 3>& d) {
  if (d[1] == 1 && d[2] == 1) return std::to_string(d[0]);
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

Recipe parse_recipe(const std::string& text, const std::string& path) {
  Checker c(path);
  toml::table root = parse_toml(text, path);
  c.keys(root, {"kernel", "grid", "block", "shared_bytes", "arg"}, "the recipe");
  Recipe r;
  r.path = path;
  const toml::node* kernel = root.get("kernel");
  if (!kernel || !kernel->as_string() || kernel->as_string()->get().empty())
    c.fail(kernel ? kernel : &root, "the recipe needs 'kernel' (the kernel's name, a string)");
  r.kernel = kernel->as_string()->get();
  r.grid = c.dims(root, "grid");
  r.block = c.dims(root, "block");
  uint64_t threads = uint64_t{r.block[0]} * r.block[1] * r.block[2];
  if (threads > 1024)
    c.fail(root.get("block"),
           fmt::format("block: {} threads; a block holds at most 1024", threads));
  if (const toml::node* n = root.get("shared_bytes"))
    r.shared_bytes = static_cast<uint32_t>(c.integer(*n, "shared_bytes", 0, int64_t{48} * 1024));
  const toml::node* args = root.get("arg");
  if (!args) c.fail(&root, "the recipe needs its kernel's arguments, in order, as [[arg]] tables");
  const toml::array* list = args->as_array();
  if (!list || !list->is_array_of_tables())
    c.fail(args, "arg: write each argument as an [[arg]] table");
  for (size_t i = 0; i < list->size(); ++i)
    r.args.push_back(parse_arg(c, *list->get(i)->as_table(), i));
  return r;
}

std::string to_toml(const Recipe& r, const std::string& comment) {
  std::string out;
  for (size_t p = 0; p < comment.size();) {
    size_t e = comment.find('\n', p);
    if (e == std::string::npos) e = comment.size();
    out += "# " + comment.substr(p, e - p) + "\n";
    p = e + 1;
  }
  auto dims = [](const std::array<uint32_t, 3>& d) {
    return d[1] == 1 && d[2] == 1 ? std::to_string(d[0])
                                  : fmt::format("[{}, {}, {}]", d[0], d[1], d[2]);
  };
  out += fmt::format("kernel = \"{}\"\ngrid = {}\nblock = {}\nshared_bytes = {}\n", r.kernel,
                     dims(r.grid), dims(r.block), r.shared_bytes);
  for (const auto& a : r.args) {
    out += fmt::format("\n[[arg]]\nname = \"{}\"\n", a.name);
    if (a.kind == RecipeArg::Kind::buffer) {
      out += fmt::format("buffer = \"{}\"\nelements = {}\ninit = \"{}\"\n", to_string(a.type),
                         a.elements, a.random ? "random" : "zero");
      if (a.random) out += fmt::format("seed = {}\n", a.seed);
      out += fmt::format("output = {}\n", a.output);
      continue;
    }
    std::string value;
    if (a.type == Type::f32) {
      float f = 0;
      auto b = static_cast<uint32_t>(a.bits);
      std::memcpy(&f, &b, sizeof f);
      value = fmt::format("{:e}", static_cast<double>(f));
    } else if (a.type == Type::f64) {
      double d = 0;
      std::memcpy(&d, &a.bits, sizeof d);
      value = fmt::format("{:e}", d);
    } else if (a.type == Type::i32) {
      value = std::to_string(static_cast<int32_t>(static_cast<uint32_t>(a.bits)));
    } else if (a.type == Type::i64) {
      value = std::to_string(static_cast<int64_t>(a.bits));
    } else {
      value = std::to_string(a.bits);
    }
    out += fmt::format("scalar = \"{}\"\nvalue = {}\n", to_string(a.type), value);
  }
  return out;
}

std::string initial_contents(const RecipeArg& a) {
  std::string out(a.bytes(), '\0');
  if (!a.random) return out;
  char* p = out.data();
  const size_t n = out.size();
  uint64_t counter = 0;
  auto next = [&] { return mix_seed(a.seed, counter++); };
  if (a.type == Type::f32 || a.type == Type::f64) {
    // Uniform in [-1, 1), exact in the type: a 24- (53-) bit fraction.
    for (size_t i = 0; i < a.elements; ++i) {
      uint64_t r = next();
      if (a.type == Type::f32) {
        float f = static_cast<float>(r >> 40) * 0x1p-23f - 1.0f;
        std::memcpy(p + 4 * i, &f, 4);
      } else {
        double d = static_cast<double>(r >> 11) * 0x1p-52 - 1.0;
        std::memcpy(p + 8 * i, &d, 8);
      }
    }
    return out;
  }
  for (size_t off = 0; off < n; off += 8) {
    uint64_t r = next();
    std::memcpy(p + off, &r, std::min<size_t>(8, n - off));
  }
  return out;
}

} // namespace kdet::gpu
