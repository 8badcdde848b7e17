// Yosys output is regular: "module NAME(ports);" at column 0, instantiations as
// "  TYPE INSTANCE (" with two spaces, port declarations as "  input [msb:lsb] name;". The
// parsing below relies on that layout (write_verilog -noattr) and on nothing else.
#include "sim/export/netlist.h"

#include <fstream>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/text.h"
#include "sim/export/process.h"

namespace flycol::rtlexport {
namespace {

// A Verilog identifier at text[pos]: escaped (backslash to the next white space, returned
// without the backslash) or simple. Sets `end` past it; empty if there is none.
std::string identifier_at(const std::string& text, std::size_t pos, std::size_t& end) {
  end = pos;
  if (pos >= text.size()) return "";
  if (text[pos] == '\\') {
    end = text.find_first_of(" \t", pos);
    if (end == std::string::npos) end = text.size();
    return text.substr(pos + 1, end - pos - 1);
  }
  auto simple = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && ((c >= '0' && c <= '9') || c == '$'));
  };
  if (!simple(text[pos], true)) return "";
  while (end < text.size() && simple(text[end], end == pos)) ++end;
  return text.substr(pos, end - pos);
}

// The module a Yosys name stands for: "$paramod$<hash>\fifo" and "$paramod\fifo\Width=..." give
// "fifo"; a plain name is itself.
std::string base_module(const std::string& name) {
  if (name.rfind("$paramod", 0) != 0) return name;
  const std::size_t slash = name.find('\\');
  if (slash == std::string::npos) return name;
  const std::size_t next = name.find('\\', slash + 1);
  return name.substr(slash + 1, next == std::string::npos ? std::string::npos : next - slash - 1);
}

std::string log_errors(const std::string& log_path) {
  std::ifstream f(log_path);
  std::string line, errors;
  std::vector<std::string> tail;
  while (std::getline(f, line)) {
    if (line.find("ERROR") != std::string::npos || line.find("rror:") != std::string::npos) errors += "  " + line + "\n";
    tail.push_back(line);
    if (tail.size() > 8) tail.erase(tail.begin());
  }
  if (!errors.empty()) return errors;
  std::string t;
  for (const auto& l : tail) t += "  " + l + "\n";
  return t;
}

}  // namespace

std::string yosys_script(const std::vector<std::string>& sv_files, const std::vector<std::string>& include_dirs,
                         const std::string& out_v, bool flatten) {
  std::string s =
      "# Elaborates flycol_top from the SystemVerilog of this package and writes the Verilog-2005\n"
      "# netlist (word level: no technology mapping). Run from the package root:\n"
      "#   yosys -s netlist/flycol_top.ys\n"
      "# It rewrites netlist/flycol_top.v as Yosys names things: flycol export then renames the\n"
      "# parameterized modules ($paramod$<hash>\\<module> -> flycol_<module>[_<n>], see README.md)\n"
      "# and adds a header, so the file in the package differs from a rerun in those lines only.\n"
      "# Yosys defines SYNTHESIS, which leaves out the simulation assertions.\n";
  std::string incdirs;  // where the sources find flycol_assert.svh
  for (const auto& d : include_dirs) incdirs += " -I" + d;
  for (const auto& f : sv_files) s += "read_verilog -sv" + incdirs + " " + f + "\n";
  s += "hierarchy -check -top flycol_top\n"
       "proc\n";
  if (flatten) s += "flatten\n";
  s += "opt\n"
       "check\n"
       "write_verilog -noattr " + out_v + "\n";
  return s;
}

void run_yosys(const std::string& yosys, const std::string& package_root, const std::string& script,
               const std::string& log_path) {
  const std::string exe = find_program(yosys);
  if (exe.empty())
    throw std::runtime_error(fmt::format(
        "cannot find Yosys ('{}' is not an executable{}): the Verilog-2005 netlist of the package is written by "
        "Yosys 0.23; install it (apt-get install yosys) or name it with --yosys",
        yosys, yosys.find('/') == std::string::npos ? " on PATH" : ""));
  const ProcessOutcome r = run_process({exe, "-q", "-l", log_path, "-s", script}, package_root, log_path);
  if (!r.ok())
    throw std::runtime_error(fmt::format("Yosys failed on the exported RTL ({}; {} {}):\n{}", r.describe(), exe, script,
                                         log_errors(log_path)));
}

std::vector<std::string> netlist_modules(const std::string& netlist) {
  std::vector<std::string> mods;
  for (const auto& line : split_lines(netlist)) {
    if (line.rfind("module ", 0) != 0) continue;
    std::size_t end = 0;
    const std::string name = identifier_at(line, 7, end);
    if (!name.empty()) mods.push_back(name);
  }
  return mods;
}

std::string rename_modules(const std::string& netlist, const std::string& top, const std::string& prefix) {
  const std::vector<std::string> mods = netlist_modules(netlist);
  const std::set<std::string> existing(mods.begin(), mods.end());
  std::map<std::string, int> count;
  for (const auto& m : mods)
    if (m != top) ++count[base_module(m)];
  std::map<std::string, std::string> rename;
  std::map<std::string, int> next;
  for (const auto& m : mods) {
    if (m == top) continue;
    const std::string base = base_module(m);
    std::string n = prefix + base;
    if (count[base] > 1) n += "_" + std::to_string(next[base]++);
    if (existing.count(n) && n != m) throw std::runtime_error(fmt::format("netlist: renaming '{}' to '{}' would clash", m, n));
    rename[m] = n;
  }
  std::string out;
  out.reserve(netlist.size());
  for (const auto& line : split_lines(netlist)) {
    std::string l = line;
    std::size_t pos = std::string::npos;
    if (l.rfind("module ", 0) == 0) pos = 7;
    else if (l.size() > 2 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ') pos = 2;
    if (pos != std::string::npos) {
      std::size_t end = 0;
      const std::string id = identifier_at(l, pos, end);
      auto it = rename.find(id);
      // A declaration, or an instantiation "  TYPE NAME (" (a known module name, then more text).
      if (it != rename.end() && (pos == 7 || l.back() == '(')) {
        std::size_t cut = end;
        if (l[pos] == '\\' && cut < l.size() && l[cut] == ' ') ++cut;  // the escape's terminating space
        l = l.substr(0, pos) + it->second + l.substr(cut);
      }
    }
    out += l;
    out += '\n';
  }
  return out;
}

std::vector<NetlistPort> netlist_ports(const std::string& netlist, const std::string& module) {
  std::vector<NetlistPort> ports;
  bool inside = false;
  for (const auto& line : split_lines(netlist)) {
    if (line.rfind("module ", 0) == 0) {
      std::size_t end = 0;
      inside = identifier_at(line, 7, end) == module;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("endmodule", 0) == 0) break;
    // "  input [msb:lsb] name;" or "  output name;" (an escaped name ends with a space).
    NetlistPort p;
    std::size_t pos = 0;
    if (line.rfind("  input ", 0) == 0) {
      pos = 8;
    } else if (line.rfind("  output ", 0) == 0) {
      pos = 9;
      p.input = false;
    } else {
      continue;
    }
    if (line.size() <= pos || line.back() != ';') continue;
    if (line[pos] == '[') {
      const std::size_t colon = line.find(':', pos), close = line.find(']', pos);
      if (colon == std::string::npos || close == std::string::npos || colon > close) continue;
      const int msb = std::stoi(line.substr(pos + 1, colon - pos - 1));
      const int lsb = std::stoi(line.substr(colon + 1, close - colon - 1));
      p.width = std::abs(msb - lsb) + 1;
      pos = close + 2;
    }
    std::size_t end = 0;
    p.name = identifier_at(line, pos, end);
    if (!p.name.empty()) ports.push_back(p);
  }
  return ports;
}

std::string yosys_version(const std::string& netlist) {
  const std::string head = netlist.substr(0, 400);
  const std::size_t at = head.find("Generated by Yosys");
  if (at == std::string::npos) return "";
  const std::size_t start = at + 13;  // "Yosys ..."
  const std::size_t end = head.find("*/", start);
  if (end == std::string::npos) return "";
  std::string v = head.substr(start, end - start);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
  return v;
}

}  // namespace flycol::rtlexport
