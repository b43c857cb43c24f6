//===- capture/loads.cpp - modules loaded through the CUDA driver ----------===//
#include "kdet/capture/loads.hpp"

#include "kdet/capture/blobs.hpp"
#include "kdet/capture/kernel_names.hpp"
#include "kdet/diff/cubin_entries.hpp"
#include "kdet/util/fs.hpp"
#include "kdet/util/hash.hpp"
#include "kdet/util/strings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace kdet::capture {

namespace {

std::string form_of(std::string_view bytes) {
  if (bytes.size() >= 4 && bytes.substr(0, 4) == "\x7f"
                                                 "ELF")
    return "cubin";
  if (!diff::fatbin_members(bytes).empty() ||
      (bytes.size() >= 4 && bytes.substr(0, 4) == "\x50\xed\x55\xba"))
    return "fatbin";
  bool text = std::all_of(bytes.begin(), bytes.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u == 0 || u == '\n' || u == '\r' || u == '\t' || u >= 0x20;
  });
  return text ? "ptx" : "bytes";
}

void add_unique(std::vector<std::string>& to, std::vector<std::string> names) {
  for (auto& n : names)
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(std::move(n));
}

// The kernels an image holds, and the artifact hashes of the members a fatbin stores plainly.
std::vector<std::string> image_kernels(const std::string& form, std::string_view bytes,
                                       std::vector<std::string>& members) {
  std::vector<std::string> names;
  if (form == "ptx") add_unique(names, entry_names(bytes));
  if (form == "cubin") add_unique(names, diff::cubin_entry_names(bytes));
  if (form != "fatbin") return names;
  for (const auto& m : diff::fatbin_members(bytes)) {
    if (m.compressed || m.bytes.empty()) continue;
    if (m.kind == 1) {
      add_unique(names, entry_names(m.bytes));
      members.push_back(artifact_hash(ArtifactForm::ptx, m.bytes));
    } else if (m.kind == 2) {
      add_unique(names, diff::cubin_entry_names(m.bytes));
      members.push_back(artifact_hash(ArtifactForm::bytes, m.bytes));
    }
  }
  return names;
}

} // namespace

std::string LoadedModule::shipped_names() const {
  std::string names;
  for (const auto& f : shipped_in)
    names += (names.empty() ? "" : ", ") + f.substr(f.find_last_of('/') + 1);
  return names;
}

std::string LoadedModule::words() const {
  if (made_by.empty() && !shipped_in.empty())
    return fmt::format("shipped in {} (compiled ahead of time)", shipped_names());
  if (made_by.empty())
    return "made by a compiler kdet did not see" +
           (unseen_makers.empty() ? std::string() : " (" + unseen_makers + ")");
  return fmt::format("{} of bundle {}", holds ? "holds the output" : "the output",
                     fmt::join(made_by, ", "));
}

std::vector<LoadedModule> loaded_modules(std::vector<Compile>& loads,
                                         const std::vector<Compile>& compiles,
                                         const BlobStore& blobs,
                                         const std::vector<CompilerInside>& inside) {
  if (loads.empty()) return {}; // (and no map of every output made)
  // Each captured output by artifact hash: the bundles that gave it.
  std::map<std::string, std::vector<std::string>> made;
  for (const auto& c : compiles)
    for (const auto& o : c.outputs()) {
      auto& v = made[o.hash];
      if (std::find(v.begin(), v.end(), c.bundle()) == v.end()) v.push_back(c.bundle());
    }
  std::vector<LoadedModule> out;
  std::map<std::string, size_t> index;
  for (auto& l : loads) {
    if (l.inputs().empty()) continue;
    Input in = l.inputs()[0]; // (loads alike share their inputs: named here, in a copy)
    std::optional<std::string> bytes = blobs.get(in.hash);
    std::string form = bytes ? form_of(*bytes) : "bytes";
    std::string hash =
        blobs.artifact_hash_of(in.hash, form == "ptx" ? ArtifactForm::ptx : ArtifactForm::bytes);
    if (hash != in.hash) in.stored = std::exchange(in.hash, hash);
    auto [it, fresh] = index.emplace(in.hash, out.size());
    if (fresh) {
      LoadedModule m;
      m.image = in.hash;
      m.stored = in.stored;
      m.size = in.size;
      m.form = form;
      std::vector<std::string> members;
      if (bytes) m.kernels = image_kernels(form, *bytes, members);
      if (auto f = made.find(m.image); f != made.end()) m.made_by = f->second;
      for (const auto& h : members)
        if (auto f = made.find(h); f != made.end()) {
          m.holds = true;
          add_unique(m.made_by, f->second);
        }
      out.push_back(std::move(m));
    }
    LoadedModule& m = out[it->second];
    ++m.loads;
    m.pids.insert(l.pid);
    if (!l.options().empty()) m.via.insert(l.options()[0]);
    bool registered = !l.options().empty() && l.options()[0] == "__cudaRegisterFatBinary";
    if (in.name) (registered ? m.shipped_in : m.paths).insert(*in.name);
    if (m.unseen() && m.unseen_makers.empty())
      m.unseen_makers = makers_words(unseen_makers(inside, l));
  }
  return out;
}

std::string loaded_file(const LoadedModule& m) {
  return m.image + "." + (m.form == "bytes" ? std::string("bin") : m.form);
}

void write_loads(int out_fd, const std::string& shown, const BlobStore& blobs,
                 const std::vector<LoadedModule>& modules) {
  for (const auto& m : modules) {
    std::optional<std::string> bytes = blobs.get(m.stored.empty() ? m.image : m.stored);
    if (!bytes) continue;
    std::string rel = "loads/" + loaded_file(m);
    write_file_beneath(out_fd, rel, *bytes, shown + "/" + rel);
  }
}

nlohmann::json loads_json(const std::vector<LoadedModule>& modules) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& m : modules)
    a.push_back({{"image", m.image},
                 {"form", m.form},
                 {"size", m.size},
                 {"kernels", m.kernels},
                 {"via", m.via},
                 {"paths", m.paths},
                 {"shipped_in", m.shipped_in},
                 {"pids", m.pids},
                 {"loads", m.loads},
                 {"made_by", m.made_by},
                 {"holds", m.holds},
                 {"seen", m.seen()},
                 {"words", m.words()}});
  return a;
}

std::string loads_summary(const std::vector<LoadedModule>& modules) {
  if (modules.empty()) return "";
  auto count = [&](auto pred) {
    return static_cast<size_t>(std::count_if(modules.begin(), modules.end(), pred));
  };
  size_t seen = count([](const LoadedModule& m) { return m.seen(); });
  size_t unseen = count([](const LoadedModule& m) { return m.unseen(); });
  size_t shipped = modules.size() - seen - unseen;
  std::string s = fmt::format(
      "  loaded     {} module{} through the CUDA driver: {} made by a compile kdet saw, {}{} not\n",
      modules.size(), modules.size() == 1 ? "" : "s", seen,
      shipped ? fmt::format("{} shipped in the program or its libraries (compiled ahead of "
                            "time), ",
                            shipped)
              : "",
      unseen);
  for (const auto& m : modules) {
    if (!m.unseen()) continue;
    s += fmt::format("  UNSEEN     {} ({} {}, {}): {}\n",
                     m.kernels.empty() ? "a module with no kernel kdet can name"
                                       : "kernel " + display_names(m.kernels),
                     m.form, m.image.substr(0, 16), fmt::join(m.via, ", "), m.words());
  }
  return s;
}

} // namespace kdet::capture
