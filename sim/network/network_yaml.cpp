// Network -> network-file YAML (sim/network/network_yaml.h). One flow-style mapping per layer, as
// the hand-written files in configs/networks/ do; strings are double-quoted so any name survives.
#include "sim/network/network_yaml.h"

#include <cstdio>
#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace flycol {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}


std::string geometry(const Layer& l) {
  std::string s = l.ky == l.kx ? fmt::format(", k: {}", l.ky) : fmt::format(", ky: {}, kx: {}", l.ky, l.kx);
  if (l.sy != 1 || l.sx != 1) s += l.sy == l.sx ? fmt::format(", s: {}", l.sy) : fmt::format(", sy: {}, sx: {}", l.sy, l.sx);
  if (l.dy != 1 || l.dx != 1) s += l.dy == l.dx ? fmt::format(", d: {}", l.dy) : fmt::format(", dy: {}, dx: {}", l.dy, l.dx);
  if (l.pt || l.pb || l.pl || l.pr) {
    if (l.pt == l.pb && l.pb == l.pl && l.pl == l.pr) s += fmt::format(", p: {}", l.pt);
    else s += fmt::format(", pt: {}, pb: {}, pl: {}, pr: {}", l.pt, l.pb, l.pl, l.pr);
  }
  return s;
}

std::string pair(const PaperPair& p) { return fmt::format("{{explicit: {}, feeder: {}}}", p.expl, p.feeder); }

}  // namespace

std::string network_yaml(const Network& n, const std::string& header) {
  std::ostringstream o;
  if (!header.empty()) {
    std::istringstream lines(header);
    for (std::string line; std::getline(lines, line);) o << "# " << line << "\n";
  }
  o << "name: " << quoted(n.name) << "\n";
  if (!n.title.empty()) o << "title: " << quoted(n.title) << "\n";
  o << fmt::format("input: {{C: {}, H: {}, W: {}}}\n", n.in_c, n.in_h, n.in_w);
  const PaperFigures& p = n.paper;
  const std::pair<const char*, const PaperPair*> figs[] = {{"total_mb", &p.total_mb}, {"avg_gbps", &p.avg_gbps},
                                                           {"max_gbps", &p.max_gbps}, {"time_ms", &p.time_ms},
                                                           {"gflops", &p.gflops},     {"dram_stall_pct", &p.dram_stall_pct}};
  bool any = false;
  for (const auto& f : figs) any = any || f.second->given;
  if (any) {
    o << "paper:\n";
    for (const auto& f : figs)
      if (f.second->given) o << "  " << f.first << ": " << pair(*f.second) << "\n";
  }
  o << "layers:\n";
  // Host-op details the parser rebuilds from k/s/p ("3x3 s2 p1", "3x3", "s2", ...).
  static const std::regex ksp(R"(^(?:(\d+)x\1)?(?:\s*s(\d+))?(?:\s*p(\d+))?$)");
  for (const auto& l : n.layers) {
    std::string line = "  - {name: " + quoted(l.name);
    std::string comment;
    if (l.op == "conv") {
      if (l.layer.n != 1) line += fmt::format(", N: {}", l.layer.n);
      line += fmt::format(", C: {}, H: {}, W: {}, K: {}", l.layer.c * l.groups, l.layer.h, l.layer.w, l.layer.k * l.groups) +
              geometry(l.layer);
      if (l.groups != 1) line += fmt::format(", groups: {}", l.groups);
    } else if (l.op == "fc") {
      line += ", op: fc";
      if (l.layer.n != 1) line += fmt::format(", N: {}", l.layer.n);
      line += fmt::format(", C: {}, K: {}", l.layer.c, l.layer.k);
    } else {
      line += ", op: " + l.op + fmt::format(", C: {}, H: {}, W: {}", l.c, l.h, l.w);
      std::smatch m;
      if (!l.detail.empty() && std::regex_match(l.detail, m, ksp)) {
        if (m[1].matched) line += fmt::format(", k: {}", m[1].str());
        if (m[2].matched) line += fmt::format(", s: {}", m[2].str());
        if (m[3].matched) line += fmt::format(", p: {}", m[3].str());
      } else if (!l.detail.empty()) {
        comment = l.detail;
      }
    }
    if (!l.inputs.empty()) {
      std::vector<std::string> q;
      for (const auto& i : l.inputs) q.push_back(quoted(i));
      line += fmt::format(", inputs: [{}]", fmt::join(q, ", "));
    }
    line += "}";
    if (!comment.empty()) {
      for (char& ch : comment)
        if (ch == '\n') ch = ' ';
      line += "  # " + comment;
    }
    o << line << "\n";
  }
  return o.str();
}

}  // namespace flycol
