// BLIF reader for the mapped netlists Yosys writes (netlist.h). Only what `write_blif -cname
// -blackbox` produces after technology mapping is accepted: .model/.inputs/.outputs/.subckt/
// .cname/.names (buffers and constants)/.blackbox/.end; anything else is an error, so that a
// change of flow that leaves unmapped logic behind does not go unnoticed.
#include "sim/synth/netlist.h"

#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/find_by.h"
#include "sim/common/input_error.h"
#include "sim/report/json.h"

namespace flycol::synth {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream ss(line);
  std::string w;
  while (ss >> w) out.push_back(w);
  return out;
}

}  // namespace

int NetlistModule::net(const std::string& n) const {
  const auto it = index_.find(n);
  return it == index_.end() ? -1 : it->second;
}

int NetlistModule::intern(const std::string& n) {
  const auto [it, fresh] = index_.emplace(n, int(nets.size()));
  if (fresh) nets.push_back(n);
  return it->second;
}

Netlist Netlist::parse_blif(const std::string& text, const std::string& source) {
  Netlist nl;
  std::istringstream in(text);
  std::string raw, line;
  int lineno = 0, start_line = 0;
  NetlistModule* cur = nullptr;
  // A pending .names: its nets and cover rows, closed by the next statement.
  std::vector<std::string> names_nets, names_rows;
  int names_line = 0;
  auto fail = [&](int at, const std::string& what) -> void {
    throw InputError(source, "", fmt::format("line {}: {}", at, what));
  };
  auto close_names = [&] {
    if (names_nets.empty()) return;
    const std::string& out = names_nets.back();
    if (names_nets.size() == 1) {
      const bool one = names_rows.size() == 1 && names_rows[0] == "1";
      if (!names_rows.empty() && !one) fail(names_line, "unsupported constant cover for " + out);
      (one ? cur->const1 : cur->const0).push_back(cur->intern(out));
    } else if (names_nets.size() == 2 && names_rows.size() == 1 && names_rows[0] == "1 1") {
      cur->buffers.emplace_back(cur->intern(names_nets[0]), cur->intern(out));
    } else {
      fail(names_line, "unmapped logic (.names " + out + "): the netlist must contain only library cells");
    }
    names_nets.clear();
    names_rows.clear();
  };

  while (std::getline(in, raw)) {
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (line.empty()) start_line = lineno;
    if (!raw.empty() && raw.back() == '\\') {  // continuation
      line += raw.substr(0, raw.size() - 1) + " ";
      continue;
    }
    line += raw;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const std::vector<std::string> w = split(line);
    line.clear();
    if (w.empty()) continue;
    if (w[0][0] != '.') {  // a cover row of the pending .names
      if (names_nets.empty()) fail(start_line, "cover row outside .names");
      std::string row = w[0];
      for (std::size_t i = 1; i < w.size(); ++i) row += " " + w[i];
      names_rows.push_back(row);
      continue;
    }
    close_names();
    const std::string& kw = w[0];
    if (kw == ".model") {
      if (w.size() != 2) fail(start_line, ".model needs one name");
      nl.index_[w[1]] = int(nl.modules_.size());
      nl.modules_.emplace_back();
      cur = &nl.modules_.back();
      cur->name = w[1];
      continue;
    }
    if (!cur) fail(start_line, kw + " outside a .model");
    if (kw == ".inputs" || kw == ".outputs") {
      auto& ports = kw == ".inputs" ? cur->inputs : cur->outputs;
      for (std::size_t i = 1; i < w.size(); ++i) ports.push_back(cur->intern(w[i]));
    } else if (kw == ".subckt") {
      if (w.size() < 2) fail(start_line, ".subckt needs a type");
      NetlistCell c;
      c.type = w[1];
      for (std::size_t i = 2; i < w.size(); ++i) {
        const auto eq = w[i].rfind('=');
        if (eq == std::string::npos) fail(start_line, "pin binding without '=': " + w[i]);
        c.pins.emplace_back(w[i].substr(0, eq), cur->intern(w[i].substr(eq + 1)));
      }
      cur->cells.push_back(std::move(c));
    } else if (kw == ".cname") {
      if (cur->cells.empty() || w.size() != 2) fail(start_line, ".cname without a preceding .subckt");
      cur->cells.back().name = w[1];
    } else if (kw == ".names") {
      names_nets.assign(w.begin() + 1, w.end());
      names_line = start_line;
      if (names_nets.empty()) fail(start_line, ".names without nets");
    } else if (kw == ".blackbox") {
      cur->blackbox = true;
    } else if (kw == ".end") {
      cur = nullptr;
    } else if (kw == ".attr" || kw == ".param" || kw == ".conn") {
      if (kw == ".conn") {
        if (w.size() != 3) fail(start_line, ".conn needs two nets");
        cur->buffers.emplace_back(cur->intern(w[1]), cur->intern(w[2]));
      }
    } else {
      fail(start_line, "unsupported BLIF statement " + kw);
    }
  }
  if (cur) close_names();
  if (nl.modules_.empty()) throw InputError(source, "", "no .model in the netlist");
  return nl;
}

Netlist Netlist::load_blif(const std::string& path) {
  return parse_blif(read_input_file(path, "the netlist"), path);
}

const NetlistModule* Netlist::find(const std::string& name) const {
  const auto* i = find_value(index_, name);
  return i == nullptr ? nullptr : &modules_[std::size_t(*i)];
}

std::string module_base_name(const std::string& name) {
  std::string n = name;
  if (!n.empty() && n[0] == '\\') n.erase(0, 1);
  if (n.rfind("$paramod", 0) == 0) {
    const auto a = n.find('\\');
    if (a == std::string::npos) return n;
    const auto b = n.find('\\', a + 1);
    return n.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  }
  return n;
}

std::string net_base_name(const std::string& name) {
  if (name.empty() || name.back() != ']') return name;
  const auto open = name.rfind('[');
  if (open == std::string::npos) return name;
  for (std::size_t i = open + 1; i + 1 < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, open);
}

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace flycol::synth
