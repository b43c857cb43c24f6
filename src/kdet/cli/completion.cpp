//===- cli/completion.cpp - `kdet completion bash|commands` -----------------===//
//
// The bash completion script is written from the parsed CLI definitions (every
// command, option and fixed choice registered on the CLI11 app), so it cannot
// drift from them; the build writes it once and installs it into
// bash-completion's folder. `kdet completion commands` lists every command
// with its one-line description (the build makes a man page for each).
//
//===----------------------------------------------------------------------===//
#include "kdet/cli/main.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>

namespace kdet::cli {

namespace {

struct Node {
  std::string path; // "" for kdet itself, "run", "cache gc"
  const CLI::App* app;
};

void walk(const CLI::App* app, const std::string& path, std::vector<Node>& out) {
  out.push_back({path, app});
  for (const CLI::App* s :
       const_cast<CLI::App*>(app)->get_subcommands([](CLI::App*) { return true; }))
    if (!s->get_group().empty())
      walk(s, path.empty() ? s->get_name() : path + " " + s->get_name(), out);
}

// "{auto,always,never}" at the end of an option's type name: its fixed choices.
std::string choices(const CLI::Option* o) {
  std::string t = o->get_type_name();
  auto open = t.find('{'), close = t.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  std::string v = t.substr(open + 1, close - open - 1);
  for (auto& ch : v)
    if (ch == ',') ch = ' ';
  return v;
}

std::string bash_script(const std::vector<Node>& nodes) {
  std::string subs, opts, vals, takes;
  for (const auto& n : nodes) {
    std::string sub_names, opt_names;
    for (const CLI::App* s :
         const_cast<CLI::App*>(n.app)->get_subcommands([](CLI::App*) { return true; }))
      if (!s->get_group().empty()) sub_names += (sub_names.empty() ? "" : " ") + s->get_name();
    for (const CLI::Option* o : n.app->get_options()) {
      if (o->get_positional() || o->get_group().empty()) continue; // hidden: internal
      std::vector<std::string> names;
      for (const auto& l : o->get_lnames())
        names.push_back("--" + l);
      for (const auto& s : o->get_snames())
        names.push_back("-" + s);
      for (const auto& name : names) {
        opt_names += (opt_names.empty() ? "" : " ") + name;
        if (o->get_type_size_max() > 0) {
          takes += fmt::format("    '{} {}') return 0 ;;\n", n.path, name);
          std::string c = choices(o);
          if (!c.empty()) vals += fmt::format("    '{} {}') echo '{}' ;;\n", n.path, name, c);
        }
      }
    }
    if (!sub_names.empty()) subs += fmt::format("    '{}') echo '{}' ;;\n", n.path, sub_names);
    opts += fmt::format("    '{}') echo '{}' ;;\n", n.path, opt_names);
  }
  return fmt::format(
      R"BASH(# bash completion for kdet, written by `kdet completion bash` from kdet's
# own option definitions. Install as <bash-completion>/completions/kdet, or:
#   source <(kdet completion bash)

_kdet_subcommands() {{
  case "$1" in
{}  esac
}}
_kdet_options() {{
  case "$1" in
{}  esac
}}
_kdet_takes_value() {{
  case "$1 $2" in
{}  esac
  return 1
}}
_kdet_values() {{
  case "$1 $2" in
{}  esac
}}

_kdet() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev= path= w i subs opt
  ((COMP_CWORD > 0)) && prev=${{COMP_WORDS[COMP_CWORD - 1]}}
  COMPREPLY=()
  # The command path (`cache gc`): words that name a subcommand of the path so far, skipping
  # option values; after `--` the words are the compiler's or the command's.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${{COMP_WORDS[i]}}
    if [[ $w == -- ]]; then
      compopt -o default 2>/dev/null
      return 0
    fi
    if [[ $w == -* ]]; then
      if [[ ${{COMP_WORDS[i + 1]}} == = ]]; then
        ((i += 2))
      elif _kdet_takes_value "$path" "$w"; then
        ((i++))
      fi
      continue
    fi
    subs=" $(_kdet_subcommands "$path") "
    [[ $subs == *" $w "* ]] && path=${{path:+$path }}$w
  done
  # A value: `--backend nv` or `--backend=nv` (bash splits words at =).
  opt=
  if [[ $cur == = ]]; then
    opt=$prev
    cur=
  elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
    opt=${{COMP_WORDS[COMP_CWORD - 2]}}
  elif [[ $prev == -* ]] && _kdet_takes_value "$path" "$prev"; then
    opt=$prev
  fi
  if [[ -n $opt ]]; then
    local values
    values=$(_kdet_values "$path" "$opt")
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
    else
      compopt -o default 2>/dev/null
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_kdet_options "$path")" -- "$cur")
    return 0
  fi
  subs=$(_kdet_subcommands "$path")
  if [[ -n $subs ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
    return 0
  fi
  compopt -o default 2>/dev/null
  return 0
}}
complete -F _kdet kdet
)BASH",
      subs, opts, takes, vals);
}

int do_completion(const CLI::App* root, const std::string& what) {
  std::vector<Node> nodes;
  walk(root, "", nodes);
  if (what == "bash") {
    fmt::print("{}", bash_script(nodes));
    return 0;
  }
  for (const auto& n : nodes) {
    if (n.path.empty()) continue;
    // One line each (gen_docs.sh reads them as lines): a description's line breaks become spaces.
    std::string d = n.app->get_description();
    std::replace(d.begin(), d.end(), '\n', ' ');
    fmt::print("{}\t{}\n", n.path, d);
  }
  return 0;
}

} // namespace

void add_completion(CLI::App& root, Action& action) {
  auto what = std::make_shared<std::string>();
  const CLI::App* root_app = &root;
  auto* cmd = root.add_subcommand(
      "completion", "Print the bash completion script (bash), or every command (commands)");
  cmd->footer("Example: source <(kdet completion bash)\n"
              "Installed, the script is share/bash-completion/completions/kdet.");
  cmd->add_option("shell", *what, "bash, or commands: each command and its description")
      ->required()
      ->check(CLI::IsMember({"bash", "commands"}));
  cmd->callback([what, root_app, &action] {
    action = [what, root_app] { return do_completion(root_app, *what); };
  });
}

} // namespace kdet::cli
