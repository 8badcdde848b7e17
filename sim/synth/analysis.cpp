// The netlist analysis (analysis.h): per module, the cells' kinds and connectivity; per module and
// part of its own cells, the carving of registers and their logic into other parts (fanout-free
// cones); the instance tree, expanded for the totals; and one flattened graph of every
// combinational cell for the longest paths.
#include "sim/synth/analysis.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol::synth {

Figures& Figures::operator+=(const Figures& o) {
  area += o.area;
  data_cap += o.data_cap;
  clock_cap += o.clock_cap;
  cells += o.cells;
  flops += o.flops;
  return *this;
}

Figures& Figures::operator-=(const Figures& o) {
  area -= o.area;
  data_cap -= o.data_cap;
  clock_cap -= o.clock_cap;
  cells -= std::min(cells, o.cells);
  flops -= std::min(flops, o.flops);
  return *this;
}

Figures Figures::scaled(double k) const {
  Figures f = *this;
  f.area *= k;
  f.data_cap *= k;
  f.clock_cap *= k;
  f.cells = std::uint64_t(double(cells) * k + 0.5);
  f.flops = std::uint64_t(double(flops) * k + 0.5);
  return f;
}

Figures Analysis::total() const {
  Figures t;
  for (const auto& p : parts) t += p;
  return t;
}

std::uint64_t Analysis::instances_of(const std::string& module) const {
  std::uint64_t n = 0;
  for (const auto& i : instances) n += i.module == module;
  return n;
}

namespace {

struct UnionFind {
  std::vector<int> parent;
  int add() {
    parent.push_back(int(parent.size()));
    return parent.back();
  }
  void grow(std::size_t n) {
    const std::size_t old = parent.size();
    parent.resize(old + n);
    for (std::size_t i = old; i < parent.size(); ++i) parent[i] = int(i);
  }
  int find(int x) {
    while (parent[std::size_t(x)] != x) {
      parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
      x = parent[std::size_t(x)];
    }
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::size_t(std::max(a, b))] = std::min(a, b);
  }
};

enum class Kind { comb, flop, module, macro };

struct Pin {
  int net = -1;  // local net (not canonical)
  bool input = true;
};

struct CellInfo {
  Kind kind = Kind::comb;
  const LibCell* lib = nullptr;
  int child = -1;          // module index (module or blackbox macro)
  std::vector<Pin> pins;   // timing pins: comb: inputs then the output last; flop: D then Q
};

struct ModInfo {
  const NetlistModule* m = nullptr;
  bool blackbox = false;
  std::vector<CellInfo> cells;
  // Canonical nets (buffers merged) for the carving.
  std::vector<int> canon;
  std::vector<std::vector<int>> members;  // canonical net -> its nets
  std::vector<int> driver;                // canonical net -> comb cell, -1
  std::vector<std::vector<int>> readers;  // canonical net -> cells reading it on a timing input
  std::vector<bool> is_output;            // canonical net is a module output
  std::vector<int> topo;                  // comb cells, drivers first
};

class Analyzer {
public:
  Analyzer(const Netlist& nl, const CellLibrary& lib, const BlockMap& map) : nl_(nl), lib_(lib), map_(map) {
    for (std::size_t i = 0; i < nl.modules().size(); ++i) index_[nl.modules()[i].name] = int(i);
    mods_.resize(nl.modules().size());
    for (std::size_t i = 0; i < nl.modules().size(); ++i) prepare(int(i));
  }

  Analysis run() {
    Analysis a;
    a.parts.assign(map_.parts().size(), Figures{});
    a.part_paths.assign(map_.parts().size(), PathInfo{});
    const int top = 0;
    walk(a, top, "", map_.module_part(module_base_name(nl_.top().name), "", ""));
    a.loop_cells = depth(a);
    return a;
  }

private:
  // ---- per module ----------------------------------------------------------------------------
  void prepare(int mi) {
    ModInfo& M = mods_[std::size_t(mi)];
    const NetlistModule& m = nl_.modules()[std::size_t(mi)];
    M.m = &m;
    M.blackbox = m.blackbox;
    if (m.blackbox) return;
    for (const NetlistCell& c : m.cells) {
      CellInfo ci;
      if (const LibCell* lc = lib_.find(c.type)) {
        ci.lib = lc;
        ci.kind = lc->flop ? Kind::flop : Kind::comb;
        Pin out, d;
        int outputs = 0;
        for (const auto& [formal, net] : c.pins) {
          const LibPin* p = lc->pin(formal);
          if (!p) throw InputError(m.name, c.type, fmt::format("pin {} is not in the cell library", formal));
          if (!p->input) {
            out = {net, false};
            ++outputs;
          } else if (lc->flop) {
            if (formal == "D") d = {net, true};
          } else {
            ci.pins.push_back({net, true});
          }
        }
        if (outputs != 1)
          throw InputError(lib_.name(), c.type, "a cell must have exactly one connected output pin for the analysis");
        if (lc->flop) {
          if (d.net < 0) throw InputError(lib_.name(), c.type, "a flip-flop needs its data input on pin D");
          ci.pins.push_back(d);
        }
        ci.pins.push_back(out);
      } else {
        const auto it = index_.find(c.type);
        if (it == index_.end())
          throw InputError(m.name, c.type, "cell type is neither in the cell library nor a module of the netlist");
        const NetlistModule& child = nl_.modules()[std::size_t(it->second)];
        ci.kind = child.blackbox ? Kind::macro : Kind::module;
        ci.child = it->second;
        for (const auto& [formal, net] : c.pins) {
          const int cn = child.net(formal);
          const bool is_in = cn >= 0 && std::find(child.inputs.begin(), child.inputs.end(), cn) != child.inputs.end();
          ci.pins.push_back({net, is_in});
        }
      }
      M.cells.push_back(std::move(ci));
    }
    // Canonical nets.
    UnionFind uf;
    uf.grow(m.nets.size());
    for (const auto& [a, b] : m.buffers) uf.unite(a, b);
    M.canon.resize(m.nets.size());
    M.members.assign(m.nets.size(), {});
    for (std::size_t n = 0; n < m.nets.size(); ++n) {
      M.canon[n] = uf.find(int(n));
      M.members[std::size_t(M.canon[n])].push_back(int(n));
    }
    M.driver.assign(m.nets.size(), -1);
    M.readers.assign(m.nets.size(), {});
    M.is_output.assign(m.nets.size(), false);
    for (int o : m.outputs) M.is_output[std::size_t(M.canon[std::size_t(o)])] = true;
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
      const CellInfo& c = M.cells[ci];
      for (std::size_t k = 0; k < c.pins.size(); ++k) {
        const int cn = M.canon[std::size_t(c.pins[k].net)];
        const bool is_out = c.kind == Kind::comb || c.kind == Kind::flop ? k + 1 == c.pins.size() : !c.pins[k].input;
        if (is_out) {
          if (c.kind == Kind::comb) M.driver[std::size_t(cn)] = int(ci);
        } else {
          M.readers[std::size_t(cn)].push_back(int(ci));
        }
      }
    }
    // Topological order of the combinational cells (Kahn); cells on loops are left out.
    std::vector<int> indeg(M.cells.size(), 0);
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
      if (M.cells[ci].kind != Kind::comb) continue;
      for (std::size_t k = 0; k + 1 < M.cells[ci].pins.size(); ++k)
        indeg[ci] += M.driver[std::size_t(M.canon[std::size_t(M.cells[ci].pins[k].net)])] >= 0;
    }
    std::vector<int> ready;
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci)
      if (M.cells[ci].kind == Kind::comb && indeg[ci] == 0) ready.push_back(int(ci));
    while (!ready.empty()) {
      const int c = ready.back();
      ready.pop_back();
      M.topo.push_back(c);
      const int out = M.canon[std::size_t(M.cells[std::size_t(c)].pins.back().net)];
      for (int r : M.readers[std::size_t(out)]) {
        const CellInfo& rc = M.cells[std::size_t(r)];
        if (rc.kind != Kind::comb) continue;
        // One decrement per input pin on this net.
        for (std::size_t k = 0; k + 1 < rc.pins.size(); ++k)
          if (M.canon[std::size_t(rc.pins[k].net)] == out && --indeg[std::size_t(r)] == 0) ready.push_back(r);
      }
    }
  }

  static bool any_match(const std::vector<std::string>& pats, const std::string& name) {
    const std::string base = net_base_name(name);
    for (const auto& p : pats)
      if (glob_match(p, base)) return true;
    return false;
  }

  // Part of every cell of module `mi` whose own cells belong to `own` (an index of parts()).
  std::vector<int> assign(int mi, int own) {
    const ModInfo& M = mods_[std::size_t(mi)];
    const std::string base = module_base_name(M.m->name);
    std::vector<int> part(M.cells.size(), own);
    std::vector<char> claimed(M.cells.size(), 0);
    for (const CarveRule& r : map_.carve_rules()) {
      if (r.module != base) continue;
      const int target = map_.part_index(r.part);
      std::vector<char> is_root(M.m->nets.size(), 0), flop_in(M.cells.size(), 0), cand(M.cells.size(), 0),
          incl(M.cells.size(), 0);
      for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
        const CellInfo& c = M.cells[ci];
        if (c.kind != Kind::flop || claimed[ci]) continue;
        const int q = M.canon[std::size_t(c.pins.back().net)];
        bool hit = false;
        for (int n : M.members[std::size_t(q)]) hit = hit || any_match(r.registers, M.m->nets[std::size_t(n)]);
        if (!hit) continue;
        flop_in[ci] = 1;
        is_root[std::size_t(M.canon[std::size_t(c.pins[0].net)])] = 1;
      }
      if (!r.cones.empty())
        for (std::size_t n = 0; n < M.m->nets.size(); ++n)
          if (any_match(r.cones, M.m->nets[n])) is_root[std::size_t(M.canon[n])] = 1;
      // Candidates: the backward cone of the roots through unclaimed combinational cells.
      std::vector<int> stack;
      for (std::size_t n = 0; n < is_root.size(); ++n)
        if (is_root[n]) stack.push_back(int(n));
      while (!stack.empty()) {
        const int net = stack.back();
        stack.pop_back();
        const int d = M.driver[std::size_t(net)];
        if (d < 0 || claimed[std::size_t(d)] || cand[std::size_t(d)]) continue;
        cand[std::size_t(d)] = 1;
        const CellInfo& c = M.cells[std::size_t(d)];
        for (std::size_t k = 0; k + 1 < c.pins.size(); ++k) stack.push_back(M.canon[std::size_t(c.pins[k].net)]);
      }
      // Fanout-free: a candidate joins when its output is a root or is read only by joined cells
      // and the carved registers. Readers come later in the topological order.
      for (auto it = M.topo.rbegin(); it != M.topo.rend(); ++it) {
        const int c = *it;
        if (!cand[std::size_t(c)]) continue;
        const int out = M.canon[std::size_t(M.cells[std::size_t(c)].pins.back().net)];
        bool ok = is_root[std::size_t(out)] != 0;
        if (!ok) {
          ok = !M.is_output[std::size_t(out)];
          for (int rd : M.readers[std::size_t(out)]) {
            const bool inside = incl[std::size_t(rd)] || flop_in[std::size_t(rd)];
            ok = ok && inside;
          }
        }
        if (ok) incl[std::size_t(c)] = 1;
      }
      for (std::size_t ci = 0; ci < M.cells.size(); ++ci)
        if (incl[ci] || flop_in[ci]) {
          part[ci] = target;
          claimed[ci] = 1;
        }
    }
    return part;
  }

  struct Cached {
    std::vector<int> part;
    std::vector<Figures> figures;  // per part
  };

  const Cached& cached(int mi, int own) {
    const auto key = std::make_pair(mi, own);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Cached c;
    c.part = assign(mi, own);
    c.figures.assign(map_.parts().size(), Figures{});
    const ModInfo& M = mods_[std::size_t(mi)];
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
      const CellInfo& cell = M.cells[ci];
      if (!cell.lib) continue;
      Figures& f = c.figures[std::size_t(c.part[ci])];
      f.area += cell.lib->area;
      f.data_cap += cell.lib->data_capacitance();
      f.clock_cap += cell.lib->clock_capacitance();
      ++f.cells;
      f.flops += cell.lib->flop;
    }
    return cache_.emplace(key, std::move(c)).first->second;
  }

  void walk(Analysis& a, int mi, const std::string& path, const std::string& own) {
    const ModInfo& M = mods_[std::size_t(mi)];
    const std::string base = module_base_name(M.m->name);
    const int own_idx = map_.part_index(own);
    if (own_idx < 0) throw std::logic_error("block map: unknown part " + own);
    a.instances.push_back({path, base, own});
    inst_module_.push_back(mi);
    const Cached& c = cached(mi, own_idx);
    for (std::size_t p = 0; p < c.figures.size(); ++p) a.parts[p] += c.figures[p];
    const NetlistModule& m = *M.m;
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
      const CellInfo& cell = M.cells[ci];
      if (cell.kind != Kind::module && cell.kind != Kind::macro) continue;
      const std::string name = m.cells[ci].name.empty() ? fmt::format("cell{}", ci) : m.cells[ci].name;
      const std::string child_path = path.empty() ? name : path + "." + name;
      const std::string child_base = module_base_name(nl_.modules()[std::size_t(cell.child)].name);
      if (cell.kind == Kind::macro) {
        a.macros.push_back({child_path, child_base});
        continue;
      }
      walk(a, cell.child, child_path, map_.module_part(child_base, base, own));
    }
  }

  // ---- flattened longest paths ---------------------------------------------------------------
  struct FlatCell {
    int out;
    int in_begin, in_end;
    int part;
  };
  struct Point {
    int gid;
    int part;
    int inst;  // index into Analysis::instances
    int net;   // local net of that instance (its name)
  };

  // Instantiates module `mi` (instance number `inst` of the walk order) with its port nets bound
  // to the parent's global nets; returns the next instance number.
  int flatten(const Analysis& a, int mi, int inst, const std::vector<int>& binding) {
    const ModInfo& M = mods_[std::size_t(mi)];
    const NetlistModule& m = *M.m;
    const int base = int(uf_.parent.size());
    uf_.grow(m.nets.size());
    for (std::size_t n = 0; n < binding.size(); ++n)
      if (binding[n] >= 0) uf_.unite(base + int(n), binding[n]);
    for (const auto& [x, y] : m.buffers) uf_.unite(base + x, base + y);
    const int own = map_.part_index(a.instances[std::size_t(inst)].part);
    const std::vector<int>& part = cached(mi, own).part;
    int next = inst + 1;
    for (std::size_t ci = 0; ci < M.cells.size(); ++ci) {
      const CellInfo& c = M.cells[ci];
      if (c.kind == Kind::comb) {
        FlatCell f{base + c.pins.back().net, int(in_.size()), 0, part[ci]};
        for (std::size_t k = 0; k + 1 < c.pins.size(); ++k) in_.push_back(base + c.pins[k].net);
        f.in_end = int(in_.size());
        comb_.push_back(f);
      } else if (c.kind == Kind::flop) {
        ends_.push_back({base + c.pins[0].net, part[ci], inst, c.pins.back().net});
        starts_.push_back({base + c.pins.back().net, part[ci], inst, c.pins.back().net});
      } else if (c.kind == Kind::macro) {
        for (const Pin& p : c.pins) {
          Point pt{base + p.net, -2, inst, p.net};  // part -2: take the driver's part
          (p.input ? ends_ : starts_).push_back(pt);
        }
      } else {
        const NetlistModule& child = nl_.modules()[std::size_t(c.child)];
        std::vector<int> b(child.nets.size(), -1);
        const NetlistCell& nc = m.cells[ci];
        for (const auto& [formal, net] : nc.pins) {
          const int cn = child.net(formal);
          if (cn >= 0) b[std::size_t(cn)] = base + net;
        }
        next = flatten(a, c.child, next, b);
      }
    }
    return next;
  }

  std::uint64_t depth(Analysis& a) {
    std::vector<int> top_binding;
    const int top = 0;
    // Top-level ports are starts and ends of their own.
    flatten(a, top, 0, top_binding);
    const NetlistModule& tm = nl_.modules()[std::size_t(top)];
    for (int n : tm.inputs) starts_.push_back({n, -1, 0, n});
    for (int n : tm.outputs) ends_.push_back({n, -2, 0, n});

    const std::size_t nets = uf_.parent.size();
    std::vector<int> driver(nets, -1);
    for (std::size_t c = 0; c < comb_.size(); ++c) {
      comb_[c].out = uf_.find(comb_[c].out);
      driver[std::size_t(comb_[c].out)] = int(c);
    }
    for (int& g : in_) g = uf_.find(g);
    // Readers (CSR) and Kahn's order.
    std::vector<int> indeg(comb_.size(), 0), count(comb_.size() + 1, 0);
    for (std::size_t c = 0; c < comb_.size(); ++c)
      for (int k = comb_[c].in_begin; k < comb_[c].in_end; ++k) {
        const int d = driver[std::size_t(in_[std::size_t(k)])];
        if (d >= 0) {
          ++indeg[c];
          ++count[std::size_t(d) + 1];
        }
      }
    for (std::size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
    std::vector<int> succ(std::size_t(count.back()));
    std::vector<int> fill(count.begin(), count.end() - 1);
    for (std::size_t c = 0; c < comb_.size(); ++c)
      for (int k = comb_[c].in_begin; k < comb_[c].in_end; ++k) {
        const int d = driver[std::size_t(in_[std::size_t(k)])];
        if (d >= 0) succ[std::size_t(fill[std::size_t(d)]++)] = int(c);
      }
    std::vector<int> arrival(comb_.size(), 0), pred(comb_.size(), -1), ready;
    std::uint64_t done = 0;
    for (std::size_t c = 0; c < comb_.size(); ++c)
      if (indeg[c] == 0) ready.push_back(int(c));
    while (!ready.empty()) {
      const int c = ready.back();
      ready.pop_back();
      ++done;
      int best = 0, best_pred = -1;
      const FlatCell& f = comb_[std::size_t(c)];
      for (int k = f.in_begin; k < f.in_end; ++k) {
        const int d = driver[std::size_t(in_[std::size_t(k)])];
        if (d >= 0 && arrival[std::size_t(d)] > best) {
          best = arrival[std::size_t(d)];
          best_pred = d;
        }
      }
      arrival[std::size_t(c)] = best + 1;
      pred[std::size_t(c)] = best_pred;
      for (int s = count[std::size_t(c)]; s < count[std::size_t(c) + 1]; ++s)
        if (--indeg[std::size_t(succ[std::size_t(s)])] == 0) ready.push_back(succ[std::size_t(s)]);
    }
    // Start points by net, to name where a path begins.
    std::unordered_map<int, std::size_t> start_of;
    for (std::size_t i = 0; i < starts_.size(); ++i) start_of.emplace(uf_.find(starts_[i].gid), i);

    auto describe = [&](const Point& p) {
      const InstanceRecord& r = a.instances[std::size_t(p.inst)];
      const NetlistModule& m = nl_.modules()[std::size_t(inst_module_[std::size_t(p.inst)])];
      const std::string& net = m.nets[std::size_t(p.net)];
      return r.path.empty() ? net : r.path + "/" + net;
    };
    auto trace = [&](int end_gid, const Point& end) {
      PathInfo pi;
      const int d = driver[std::size_t(end_gid)];
      pi.depth = d >= 0 ? arrival[std::size_t(d)] : 0;
      pi.end = describe(end);
      int c = d, first = -1;
      while (c >= 0) {
        first = c;
        c = pred[std::size_t(c)];
      }
      int start_net = end_gid;
      if (first >= 0) {
        // The first cell's latest input is a net without a combinational driver.
        const FlatCell& f = comb_[std::size_t(first)];
        start_net = f.in_begin < f.in_end ? in_[std::size_t(f.in_begin)] : end_gid;
        for (int k = f.in_begin; k < f.in_end; ++k)
          if (start_of.count(in_[std::size_t(k)])) {
            start_net = in_[std::size_t(k)];
            break;
          }
      }
      const auto s = start_of.find(start_net);
      pi.start = s != start_of.end() ? describe(starts_[s->second]) : std::string("a constant");
      return pi;
    };
    for (const Point& e : ends_) {
      const int g = uf_.find(e.gid);
      const int d = driver[std::size_t(g)];
      const int arr = d >= 0 ? arrival[std::size_t(d)] : 0;
      int part = e.part;
      if (part == -2) part = d >= 0 ? comb_[std::size_t(d)].part : -1;
      if (part >= 0 && arr > a.part_paths[std::size_t(part)].depth) a.part_paths[std::size_t(part)] = trace(g, e);
      if (arr > a.critical.depth) a.critical = trace(g, e);
    }
    return comb_.size() - done;
  }

  const Netlist& nl_;
  const CellLibrary& lib_;
  const BlockMap& map_;
  std::map<std::string, int> index_;
  std::vector<ModInfo> mods_;
  std::map<std::pair<int, int>, Cached> cache_;
  UnionFind uf_;
  std::vector<FlatCell> comb_;
  std::vector<int> in_;
  std::vector<Point> starts_, ends_;
  std::vector<int> inst_module_;
};

}  // namespace

Analysis analyze(const Netlist& nl, const CellLibrary& lib, const BlockMap& map) {
  Analyzer an(nl, lib, map);
  return an.run();
}

Figures own_figures(const NetlistModule& m, const CellLibrary& lib) {
  Figures f;
  for (const NetlistCell& c : m.cells)
    if (const LibCell* lc = lib.find(c.type)) {
      f.area += lc->area;
      f.data_cap += lc->data_capacitance();
      f.clock_cap += lc->clock_capacitance();
      ++f.cells;
      f.flops += lc->flop;
    }
  return f;
}

}  // namespace flycol::synth
