// The power proxy (power.h): places each traced signal in a part of the block map through the
// synthesized instance tree, then weights each part's activity by its synthesized capacitance.
#include "sim/power/power.h"

#include <cctype>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/common/find_by.h"
#include "sim/synth/block_map.h"

namespace flycol::power {
namespace {

std::vector<std::string> split_dots(const std::string& s) {
  // Scope names may hold brackets ("gen_pe_row[0]") but no dots of their own.
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    const auto b = s.find('.', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

struct Instance {
  std::string module, part;
  bool macro = false;
};

// Where one name of a signal lands.
struct Placement {
  bool ok = false;
  bool reg = false;        // the name is a register (x_q)
  int part = -1;           // index into the block map's parts
  bool input = false;      // the name is an input port (driven from outside the instance)
  std::size_t depth = 0;   // instance depth
  int sram = -1;           // 0..2: the request of an SRAM bank (ifmap, weights, psums)
};

class Placer {
public:
  explicit Placer(const synth::SynthReport& s) : map_(synth::BlockMap::standard()) {
    for (const auto& i : s.instances) insts_[i.path] = {i.module, i.part, i.part.empty()};
  }

  Placement place(const std::string& full) const {
    Placement p;
    const std::vector<std::string> c = split_dots(full);
    // c[0] is Verilator's TOP scope, c[1] the top module; names directly in TOP are the top
    // module's ports again, and package scopes hold constants.
    if (c.size() < 3 || c[1] != c[0]) return p;
    const std::string& var = c.back();
    if (var.empty() || std::isupper(static_cast<unsigned char>(var[0])) || var == "clk_i" || var == "rst_ni")
      return p;  // parameters, the clock (counted apart), the reset
    std::string cur, pending;
    std::size_t depth = 0;
    const Instance* inst = find("");
    const Instance* parent = nullptr;
    for (std::size_t i = 2; i + 1 < c.size(); ++i) {
      if (c[i].rfind("unnamedblk", 0) == 0) return p;  // loop variables
      pending = pending.empty() ? c[i] : pending + "." + c[i];
      const std::string path = cur.empty() ? pending : cur + "." + pending;
      if (const Instance* x = find(path)) {
        parent = inst;
        inst = x;
        cur = path;
        pending.clear();
        ++depth;
      }
    }
    if (!inst) return p;
    const std::string name = pending.empty() ? var : pending + "." + var;
    p.input = ends_with(var, "_i");
    p.reg = ends_with(var, "_q");
    p.depth = depth;
    if (inst->macro) {
      // An SRAM bank: its inputs are nets of the logic around it; its insides are the macro's.
      if (!p.input || !parent) return p;
      if (var == "req_i") {
        const std::string leaf = cur.substr(cur.rfind('.') == std::string::npos ? 0 : cur.rfind('.') + 1);
        p.sram = leaf == "u_ifmap" ? 0 : leaf == "u_weight" ? 1 : leaf == "u_psum" ? 2 : -1;
      }
      p.part = map_.part_index(parent->part);
      p.input = false;  // driven by the parent's logic
      p.ok = p.part >= 0;
      return p;
    }
    p.part = map_.part_index(map_.signal_part(inst->module, name, inst->part));
    p.ok = p.part >= 0;
    return p;
  }

private:
  const Instance* find(const std::string& path) const {
    return find_value(insts_, path);
  }
  const synth::BlockMap& map_;
  std::unordered_map<std::string, Instance> insts_;
};

}  // namespace

double PowerReport::logic_total() const {
  double t = 0;
  for (const auto& b : blocks) t += b.total();
  return t;
}

double PowerReport::logic_total_ungated() const {
  double t = 0;
  for (const auto& b : blocks) t += b.total_ungated();
  return t;
}

const BlockPower* PowerReport::block(const std::string& id) const { return find_by(blocks, &BlockPower::id, id); }

const PartPower* PowerReport::part(const std::string& id) const { return find_part_by_id(blocks, id); }

PowerReport power_proxy(const VcdToggleCounter& toggles, const synth::SynthReport& synth) {
  const synth::BlockMap& map = synth::BlockMap::standard();
  const Placer placer(synth);
  PowerReport r;
  r.cycles = toggles.samples() > 1 ? toggles.samples() - 1 : 0;
  const std::size_t np = map.parts().size();
  std::vector<std::uint64_t> bits(np, 0), tog(np, 0), reg_bits(np, 0), reg_changes(np, 0);
  for (const TracedSignal& s : toggles.signals()) {
    Placement best;
    bool reg = false;
    for (const auto& n : s.names) {
      const Placement p = placer.place(n);
      if (p.sram >= 0) {
        r.sram_reads[p.sram] += s.ones;  // accesses (reads and writes together, see power_json)
        r.sram_counted = true;
      }
      if (!p.ok) continue;
      reg = reg || p.reg;
      // The driver's name wins: not an input port, then the deepest instance.
      const bool better = !best.ok || (best.input && !p.input) || (best.input == p.input && p.depth > best.depth);
      if (better) best = p;
    }
    if (!best.ok) {
      r.unplaced_bits += std::uint64_t(s.width);
      continue;
    }
    bits[std::size_t(best.part)] += std::uint64_t(s.width);
    tog[std::size_t(best.part)] += s.toggles;
    if (reg) {
      reg_bits[std::size_t(best.part)] += std::uint64_t(s.width);
      reg_changes[std::size_t(best.part)] += std::uint64_t(s.width) * s.changes;
    }
  }
  for (const auto& bi : map.blocks()) {
    BlockPower b;
    b.id = bi.id;
    b.title = bi.title;
    for (std::size_t i = 0; i < map.parts().size(); ++i) {
      const synth::PartInfo& pi = map.parts()[i];
      if (synth::BlockMap::block_of(pi.id) != bi.id) continue;
      const synth::PartReport* sp = synth.part(pi.id);
      PartPower p;
      p.id = pi.id;
      p.title = pi.title;
      p.signal_bits = bits[i];
      p.toggles = tog[i];
      p.activity = bits[i] && r.cycles ? double(tog[i]) / (double(bits[i]) * double(r.cycles)) : 0.0;
      p.register_bits = reg_bits[i];
      p.clock_duty = reg_bits[i] && r.cycles ? double(reg_changes[i]) / (double(reg_bits[i]) * double(r.cycles)) : 1.0;
      if (sp) {
        p.switching = 0.5 * p.activity * sp->figures.data_cap;
        p.clock_ungated = sp->figures.clock_cap + double(sp->figures.flops) * kFlopInternalClockCap;
        p.clock = p.clock_ungated * p.clock_duty;
      }
      b.switching += p.switching;
      b.clock += p.clock;
      b.clock_ungated += p.clock_ungated;
      b.parts.push_back(p);
    }
    r.blocks.push_back(b);
  }
  // Parts measured only as differences (no RTL signal of their own was traced) take their
  // block's average activity.
  for (auto& b : r.blocks) {
    std::uint64_t bb = 0, bt = 0;
    double rb = 0, rc = 0;
    for (const auto& p : b.parts) {
      bb += p.signal_bits;
      bt += p.toggles;
      rb += double(p.register_bits);
      rc += double(p.register_bits) * p.clock_duty;
    }
    const double avg = bb && r.cycles ? double(bt) / (double(bb) * double(r.cycles)) : 0.0;
    const double duty = rb > 0 ? rc / rb : 1.0;
    for (auto& p : b.parts) {
      const synth::PartReport* sp = synth.part(p.id);
      if (!sp) continue;
      b.switching -= p.switching;
      b.clock -= p.clock;
      if (!p.signal_bits) {
        p.activity = avg;
        p.switching = 0.5 * avg * sp->figures.data_cap;
      }
      if (!p.register_bits) {
        p.clock_duty = duty;
        p.clock = p.clock_ungated * duty;
      }
      b.switching += p.switching;
      b.clock += p.clock;
    }
  }
  return r;
}

Json power_json(const PowerReport& p, double sram_share) {
  const double total = p.logic_total();
  const double chip = 1.0 - sram_share;
  Json j = Json::object();
  j["method"] = "toggles of every RTL signal per part x synthesized capacitance (flycol synth); clock of every "
                "flip-flop every cycle; docs/synth.md";
  j["units"] = "per cycle, in (inverter input capacitance) x Vdd^2 of hw/synth/flycol_cells.lib";
  j["cycles"] = p.cycles;
  j["logic_per_cycle"] = total;
  j["logic_per_cycle_ungated_clock"] = p.logic_total_ungated();
  j["sram_share_of_chip"] = sram_share;
  Json& bl = j["blocks"];
  bl = Json::object();
  for (const auto& b : p.blocks) {
    Json& x = bl[b.id];
    x["title"] = b.title;
    x["per_cycle"] = b.total();
    x["switching"] = b.switching;
    x["clock"] = b.clock;
    x["share_of_logic"] = total > 0 ? b.total() / total : 0.0;
    x["share_of_chip"] = total > 0 ? chip * b.total() / total : 0.0;
    x["clock_ungated"] = b.clock_ungated;
    x["share_of_logic_ungated_clock"] =
        p.logic_total_ungated() > 0 ? b.total_ungated() / p.logic_total_ungated() : 0.0;
    Json& pj = x["parts"];
    pj = Json::object();
    for (const auto& q : b.parts) {
      Json& y = pj[q.id.substr(q.id.find('/') + 1)];
      y["per_cycle"] = q.total();
      y["switching"] = q.switching;
      y["clock"] = q.clock;
      y["activity"] = q.activity;
      y["clock_duty"] = q.clock_duty;
      y["clock_ungated"] = q.clock_ungated;
      y["signal_bits"] = q.signal_bits;
      y["register_bits"] = q.register_bits;
      y["share_of_logic"] = total > 0 ? q.total() / total : 0.0;
      y["share_of_chip"] = total > 0 ? chip * q.total() / total : 0.0;
    }
  }
  if (p.sram_counted) {
    Json& s = j["sram_accesses"];
    const char* names[3] = {"ifmap", "weights", "psums"};
    for (int i = 0; i < 3; ++i) s[names[i]] = p.sram_reads[i];
  }
  j["unplaced_signal_bits"] = p.unplaced_bits;
  return j;
}

std::string power_text(const PowerReport& p, double sram_share) {
  const double total = p.logic_total();
  std::string out = fmt::format("  power proxy  {} cycles; share of the logic's dynamic power{}:\n", p.cycles,
                                sram_share > 0 ? fmt::format(" (of the chip, SRAMs {:.1f} %)", 100 * sram_share) : "");
  for (const auto& b : p.blocks) {
    const double s = total > 0 ? b.total() / total : 0.0;
    out += fmt::format("    {:<44} {:>6.2f} %", b.title, 100 * s);
    if (sram_share > 0) out += fmt::format("  ({:.2f} %)", 100 * s * (1 - sram_share));
    out += "\n";
  }
  if (const PartPower* r = p.part("pe_array/reserve_registers"))
    out += fmt::format("    {:<44} {:>6.2f} %\n", "of which reserve registers", total > 0 ? 100 * r->total() / total : 0.0);
  if (const PartPower* z = p.part("pe_array/zero_gating"))
    out += fmt::format("    {:<44} {:>6.2f} %\n", "of which zero gating logic", total > 0 ? 100 * z->total() / total : 0.0);
  // Present only when the configuration has operand isolation (its area comes from that variant).
  if (const PartPower* o = p.part("pe_array/operand_isolation"); o && o->signal_bits > 0)
    out += fmt::format("    {:<44} {:>6.2f} %\n", "of which operand isolation", total > 0 ? 100 * o->total() / total : 0.0);
  return out;
}

}  // namespace flycol::power
