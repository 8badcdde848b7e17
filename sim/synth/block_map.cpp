// The block table (block_map.h). Module names are the RTL's (hw/<block>/*.sv); register and
// signal names are those of the _q/_d pairs and generate scopes in array.sv and pe.sv.
#include "sim/synth/block_map.h"

#include "sim/synth/netlist.h"

namespace flycol::synth {

const BlockMap& BlockMap::standard() {
  static const BlockMap m = [] {
    BlockMap b;
    b.blocks_ = {
        {"pe_array", "PE array"},
        {"feeder", "data feeder"},
        {"weight_fetcher", "weight fetcher"},
        {"psum_manager", "partial-sums manager"},
        {"pool_unit", "pooling unit"},
        {"control", "controller, sequencer and DMA"},
    };
    b.parts_ = {
        {"pe_array/mac", "multiply-accumulate units", "fp16_fma.sv or int_mac.sv, one per PE"},
        {"pe_array/pe_registers", "PE registers and control",
         "pe.sv: operand pass-through registers, accumulator, flags, the MAC-step multiplexer"},
        {"pe_array/reserve_registers", "reserve registers",
         "pe.sv: the reserve register and its swap/shift multiplexers (a PE minus one whose reserve chain is "
         "tied off)"},
        {"pe_array/zero_gating", "zero gating",
         "pe.sv: zero detection, the gate and the gated-step flag (a PE minus one with pe.zero_gating: false)"},
        {"pe_array/operand_isolation", "operand isolation",
         "pe.sv: the hold registers and multiplexers in front of the multiplier (a PE minus one with "
         "pe.operand_isolation: false)"},
        {"pe_array/array_edge", "array edge control", "array.sv: row shift control, result valid and column"},
        {"pe_array/gated_counter", "gated-MAC counter (statistics)",
         "array.sv gated_cnt_o: counts gated MACs for the reports; the paper's chip has no such counter"},
        {"feeder/index_counters", "index counters", "index_counters.sv"},
        {"feeder/selection_stage", "selection stage", "feeder.sv: SEL registers, global and local offsets"},
        {"feeder/feed_lanes", "feed lanes", "feed_lane.sv: shifted kernel pattern, selection, intermediate registers"},
        {"feeder/lane_fifos", "lane FIFOs", "fifo.sv inside each feed lane"},
        {"feeder/feed_registers", "feed registers",
         "array.sv: issue register and the staggered (triangular) registers of the ifmap elements and flags"},
        {"weight_fetcher/fetcher", "fetcher", "weight_fetcher.sv"},
        {"weight_fetcher/fifo", "weight FIFO", "fifo.sv inside the weight fetcher"},
        {"weight_fetcher/feed_registers", "weight feed registers",
         "array.sv: issue register and the staggered registers of the weights"},
        {"psum_manager/manager", "manager", "psum_manager.sv"},
        {"psum_manager/queues", "preload and result queues", "fifo.sv inside the partial-sums manager"},
        {"psum_manager/array_links", "preload skew, result de-skew, row windows",
         "array.sv: the registers that skew preload words into and results out of the reserve chains"},
        {"pool_unit/lanes", "pool lanes", "pool_lane.sv, one per array row: comparator, exact sum, divider"},
        {"pool_unit/framing", "window framing and divisors",
         "pool_unit.sv: window and context counters, each lane's divisor"},
        {"control/controller", "controller", "controller.sv with its command queues"},
        {"control/sequencer", "sequencer (issue stage)", "sequencer.sv"},
        {"control/dma", "DMA engines and memory arbiter", "dma.sv and below"},
        {"control/top_glue", "top-level glue", "flycol_top.sv: SRAM port multiplexers, the RUN register"},
    };
    b.modules_ = {
        {"flycol_top", "", "control/top_glue"},
        {"controller", "", "control/controller"},
        {"sequencer", "", "control/sequencer"},
        {"dma", "", "control/dma"},
        {"array", "", "pe_array/array_edge"},
        {"pe", "", "pe_array/pe_registers"},
        {"fp16_fma", "", "pe_array/mac"},
        {"int_mac", "", "pe_array/mac"},
        {"feeder", "", "feeder/selection_stage"},
        {"index_counters", "", "feeder/index_counters"},
        {"feed_lane", "", "feeder/feed_lanes"},
        {"fifo", "feed_lane", "feeder/lane_fifos"},
        {"weight_fetcher", "", "weight_fetcher/fetcher"},
        {"fifo", "weight_fetcher", "weight_fetcher/fifo"},
        {"psum_manager", "", "psum_manager/manager"},
        {"fifo", "psum_manager", "psum_manager/queues"},
        {"pool_unit", "", "pool_unit/framing"},
        {"pool_lane", "", "pool_unit/lanes"},
    };
    b.carve_ = {
        {"array", "feeder/feed_registers",
         {"iss_a_q", "iss_valid_q", "iss_swap_q", "iss_window_q", "gen_row_feed*"},
         {},
         {"iss_a_d", "iss_valid_d", "iss_swap_d", "iss_window_d", "feed_a", "feed_valid", "feed_swap", "feed_window"}},
        {"array", "weight_fetcher/feed_registers", {"iss_w_q", "gen_col_feed*"}, {}, {"iss_w_d", "feed_w"}},
        {"array", "psum_manager/array_links", {"gen_skew*", "gen_deskew*", "wcnt_q"}, {}, {"wcnt_d", "res_in"}},
        {"array", "pe_array/gated_counter", {}, {"gated_cnt_o"}, {}},
    };
    b.variants_ = {
        {"pe", "pe_array/reserve_registers", "no_reserve", {"res_q", "res_d", "res_o"}},
        {"pe", "pe_array/zero_gating", "no_zero_gating", {"a_zero", "w_zero", "gate", "gated_q", "gated_d", "gated_o"}},
        {"pe", "pe_array/operand_isolation", "no_operand_isolation",
         {"gen_iso*", "hold_a_q", "hold_a_d", "hold_w_q", "hold_w_d", "mul_a", "mul_w"}},
    };
    return b;
  }();
  return m;
}

int BlockMap::part_index(const std::string& id) const {
  for (std::size_t i = 0; i < parts_.size(); ++i)
    if (parts_[i].id == id) return int(i);
  return -1;
}

std::string BlockMap::block_of(const std::string& part) { return part.substr(0, part.find('/')); }

std::string BlockMap::module_part(const std::string& module, const std::string& parent_module,
                                  const std::string& parent_part) const {
  const ModuleRule* any = nullptr;
  for (const auto& r : modules_) {
    if (r.module != module) continue;
    if (r.parent == parent_module && !r.parent.empty()) return r.part;
    if (r.parent.empty() && !any) any = &r;
  }
  if (any) return any->part;
  return parent_part.empty() ? std::string("control/top_glue") : parent_part;
}

std::string BlockMap::signal_part(const std::string& module, const std::string& name,
                                  const std::string& own_part) const {
  const std::string base = net_base_name(name);
  auto any = [&](const std::vector<std::string>& pats) {
    for (const auto& p : pats)
      if (glob_match(p, base)) return true;
    return false;
  };
  for (const auto& r : variants_)
    if (r.module == module && any(r.rtl_signals)) return r.part;
  for (const auto& r : carve_)
    if (r.module == module && (any(r.registers) || any(r.cones) || any(r.rtl_signals))) return r.part;
  return own_part;
}

}  // namespace flycol::synth
