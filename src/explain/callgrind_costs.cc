#include "src/explain/callgrind_costs.h"

#include <cstdlib>
#include <vector>

namespace abench {
namespace {

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    const std::size_t start = at;
    while (at < line.size() && line[at] != ' ' && line[at] != '\t') ++at;
    if (at > start) words.push_back(line.substr(start, at - start));
  }
  return words;
}

std::uint64_t number(std::string_view text, int base) {
  return std::strtoull(std::string(text).c_str(), nullptr, base);
}

// A position: absolute ("0x98930", "1357"), relative to the last ("+4", "-2") or the same ("*").
std::uint64_t position(std::string_view text, std::uint64_t last) {
  if (text == "*") return last;
  if (text.front() == '+') return last + number(text.substr(1), 0);
  if (text.front() == '-') return last - number(text.substr(1), 0);
  return number(text, text.starts_with("0x") ? 16 : 10);
}

}  // namespace

std::uint64_t add_instruction_costs(std::string_view dump, InstructionCosts& into) {
  std::map<std::string, std::string> objects;  // "(3)" -> file, as ob= names them once
  std::string object;
  std::size_t positions = 0, ir = 0;  // fields before the costs; Ir's index among the events
  bool have_ir = false, instructions = false, call_cost_next = false;
  std::uint64_t last = 0, total = 0;
  std::size_t at = 0;
  while (at < dump.size()) {
    const std::size_t end = std::min(dump.find('\n', at), dump.size());
    const std::string_view line = dump.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    if (line.starts_with("positions:")) {
      const auto words = words_of(line.substr(10));
      positions = words.size();
      instructions = !words.empty() && words.front() == "instr";
    } else if (line.starts_with("events:")) {
      const auto words = words_of(line.substr(7));
      for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] == "Ir") ir = i, have_ir = true;
    } else if (line.starts_with("ob=") || line.starts_with("cob=")) {
      // "ob=(3) /usr/lib/libc.so.6" the first time, "ob=(3)" after; or a plain name. A call's
      // cob= can be where an id is named first; only ob= changes the current object.
      const std::string_view rest = line.substr(line.find('=') + 1);
      const std::size_t close = rest.starts_with("(") ? rest.find(')') : std::string_view::npos;
      std::string named(rest);
      if (close != std::string_view::npos) {
        const std::string id(rest.substr(0, close + 1));
        std::string_view name = rest.substr(close + 1);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        if (!name.empty()) objects[id] = std::string(name);
        named = objects[id];
      }
      if (line.starts_with("ob=")) object = named;
    } else if (line.starts_with("calls=")) {
      call_cost_next = true;  // the next cost line is the call's inclusive cost: not this instruction's own
    } else if (const char c = line.front(); (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
      const auto words = words_of(line);
      if (words.empty() || positions == 0) continue;
      last = position(words.front(), last);
      const bool own = !call_cost_next;
      call_cost_next = false;
      if (!own || !instructions || !have_ir || words.size() <= positions + ir) continue;
      const std::uint64_t cost = number(words[positions + ir], 10);
      into[object][last] += cost;
      total += cost;
    }
  }
  return total;
}

}  // namespace abench
