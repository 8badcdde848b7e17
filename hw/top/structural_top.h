// SC_MODULE StructuralTop: the accelerator composed of its block SC_MODULEs and six SRAM bank
// modules, wired by signals as flycol_top.sv wires the RTL (hw/top/README.md, "Structural top").
// Same environment ports and statistics as Accelerator; any block can be replaced by another view
// with the same ports (a Verilated RTL adapter) through StructuralBlockViews.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "hw/array/array.h"
#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/sc_run_ports.h"
#include "hw/controller/controller.h"
#include "hw/dma/dma.h"
#include "hw/feeder/feeder.h"
#include "hw/pool/pool_unit.h"
#include "hw/psum_manager/psum_manager.h"
#include "hw/sequencer/sequencer.h"
#include "hw/top/accelerator_core.h"
#include "hw/top/env_if.h"
#include "hw/top/structural_sram.h"
#include "hw/weight_fetcher/weight_fetcher.h"

namespace flycol::hw {

struct StructuralTop;  // SC_MODULE declares a struct (clang -Wmismatched-tags)

// The blocks of the structural top, in flycol_top.sv's order.
inline const std::vector<std::string>& structural_block_names() {
  static const std::vector<std::string> names = {"controller",     "dma",       "sequencer", "feeder",
                                                 "weight_fetcher", "pool_unit", "array",     "psum_manager"};
  return names;
}

// Chooses the view of each block. make() is called once per block while the top is elaborated;
// it returns false for the block's SystemC module, or instantiates another view with the same
// ports, binds it with top.bind(view) and returns true. The views live as long as this object.
class StructuralBlockViews {
public:
  virtual ~StructuralBlockViews() = default;
  virtual bool make(const std::string& block, StructuralTop& top) = 0;
};

SC_MODULE(StructuralTop) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};
  sc_core::sc_out<bool> idle_o{"idle_o"};
  sc_core::sc_port<CommandSourceIf> cmd_port{"cmd_port"};
  sc_core::sc_port<MemoryIf> mem_port{"mem_port"};

  // views == nullptr: every block is its SystemC module.
  StructuralTop(sc_core::sc_module_name name, const HwParams& p, StructuralBlockViews* views = nullptr);
  SC_HAS_PROCESS(StructuralTop);

  std::uint64_t cycle() const { return cycle_; }
  // Record the signals between the blocks (environment, engine handshakes, token, SRAM requests)
  // into a VCD trace file (call before sc_start).
  void trace(sc_core::sc_trace_file* tf) const;
  void expect_runs(std::uint64_t n) { runs_expected_ = n; }
  std::uint32_t done_count(Engine e) const { return done_count_[int(e)]; }
  AcceleratorStats stats() const;
  const HwParams& params() const { return p_; }
  // Backdoor access to the SRAMs: which = 0 ifmap, 1 weights, 2 psums.
  SramBank& bank(int which, int buffer) { return banks_[which][buffer & 1]->bank(); }

  // Port binding of each block view, exactly as flycol_top.sv connects the instance. Statistics
  // the top cannot see on the block's ports come from `gated_macs` (array) and `sel_stalls`
  // (feeder): counters of the view since reset.
  template <class M> void bind_controller(M& m);
  template <class M> void bind_dma(M& m);
  template <class M> void bind_sequencer(M& m);
  template <class M> void bind_feeder(M& m, std::function<std::uint64_t()> sel_stalls);
  template <class M> void bind_weight_fetcher(M& m);
  template <class M> void bind_pool_unit(M& m);
  template <class M> void bind_array(M& m, std::function<std::uint64_t()> gated_macs);
  template <class M> void bind_psum_manager(M& m);

private:
  using Sig = sc_core::sc_signal<bool>;
  template <class T> using SigVec = sc_core::sc_vector<sc_core::sc_signal<T>>;

  void edge();          // the end of a cycle: environment, top registers and statistics
  void mid();           // the start of a cycle, half a period later: idle_o and the environment
  void check_buffer_ownership() const;
  void split_cmds();    // controller start commands to the blocks' command and RUN-field inputs
  void sram_mux();      // each buffer: the DMA when it asks, else the active RUN's reader
  void rdata_mux();     // the RUN's buffers' read data to its readers
  template <class M> void bind_clock(M& m);
  // The EX engine's issue stage and readers that take RUN fields: the clock, the RUN start, the fields.
  template <class M> void bind_run_start(M& m);
  template <class T> static void bind_vec(sc_core::sc_vector<T>& ports, SigVec<typename T::data_type>& sigs);
  // The block's SystemC module (u_<block>, port mode), owned by the top, unless `views` chose
  // another view of it (then nullptr).
  template <class T> T* own_module(const char* block, StructuralBlockViews* views);

  HwParams p_;
  std::uint64_t cycle_ = 0, runs_expected_ = 0;
  std::uint32_t done_count_[3] = {0, 0, 0};
  std::uint64_t mac_tokens_ = 0;
  sc_core::sc_event run_changed_;  // run_q_ changed: the SRAM multiplexers follow it
  AcceleratorStats stats_;
  bool in_cycle_ = false;  // a cycle's environment outputs are driven and it ends at the next edge
  std::function<std::uint64_t()> gated_macs_, sel_stalls_;
  std::vector<std::unique_ptr<sc_core::sc_module>> blocks_;  // the SystemC views the top owns

  // Top registers (flycol_top.sv: run_q, and the DMA commands kept for the ownership check).
  RunDesc run_q_;
  Command ld_cmd_q_, ps_cmd_q_;

  // Environment.
  Sig cmd_valid_{"cmd_valid"}, cmd_ready_{"cmd_ready"};
  sc_core::sc_signal<Command> cmd_{"cmd"};
  Sig mem_req_valid_{"mem_req_valid"}, mem_req_ready_{"mem_req_ready"}, mem_req_write_{"mem_req_write"};
  sc_core::sc_signal<std::uint64_t> mem_req_addr_{"mem_req_addr"};
  sc_core::sc_signal<int> mem_req_bytes_{"mem_req_bytes"};
  sc_core::sc_signal<MemBeatBits> mem_req_wdata_{"mem_req_wdata"}, mem_rsp_rdata_{"mem_rsp_rdata"};
  Sig mem_rsp_valid_{"mem_rsp_valid"};

  // Controller.
  SigVec<bool> eng_busy_{"eng_busy", 3}, eng_done_{"eng_done", 3}, eng_start_{"eng_start", 3};
  SigVec<Command> start_cmd_{"start_cmd", 3};
  Sig ctrl_idle_{"ctrl_idle"};

  // DMA.
  sc_core::sc_signal<DmaCmd> ld_cmd_{"ld_cmd"}, ps_cmd_{"ps_cmd"};
  sc_core::sc_signal<unsigned> dma_req_[3];
  Sig dma_we_[3];
  sc_core::sc_signal<std::uint32_t> dma_addr_[3];
  SigVec<word_elem_t> dma_wdata_[3];
  sc_core::sc_signal<std::uint64_t> dma_wmask_[3];

  // EX engine: the RUN fields, the issue stage, the readers and the array.
  RunFieldSignals run_;
  sc_core::sc_signal<FeederRun> feeder_run_{"feeder_run"};
  Sig tok_valid_{"tok_valid"}, tok_swap_{"tok_swap"}, tok_window_{"tok_window"}, pop_{"pop"}, claim_{"claim"};
  Sig weight_pop_{"weight_pop"};  // the sequencer's pop of the weight FIFO (MAC steps only)
  sc_core::sc_signal<int> cycle_kind_{"cycle_kind"}, unclaimed_{"unclaimed"}, res_col_{"res_col"};
  Sig lanes_valid_{"lanes_valid"}, has_word_{"has_word"}, pre_pop_{"pre_pop"}, res_valid_{"res_valid"};
  SigVec<elem_t> lane_data_, weight_word_;
  SigVec<acc_t> pre_word_, res_word_;
  // The pooling unit (section 16): its readiness for the issue stage and its result port.
  Sig pool_ready_{"pool_ready"}, pool_valid_{"pool_valid"};
  SigVec<acc_t> pool_word_;
  Sig fd_req_{"fd_req"}, fd_busy_{"fd_busy"}, wf_req_{"wf_req"}, wf_busy_{"wf_busy"};
  sc_core::sc_signal<std::uint32_t> fd_addr_{"fd_addr"}, wf_addr_{"wf_addr"};
  SigVec<word_elem_t> fd_rdata_, wf_rdata_, pm_rdata_;
  Sig pm_req_{"pm_req"}, pm_we_{"pm_we"}, pm_busy_{"pm_busy"};
  sc_core::sc_signal<std::uint32_t> pm_addr_{"pm_addr"};
  SigVec<word_elem_t> pm_wdata_;
  sc_core::sc_signal<std::uint64_t> pm_wmask_{"pm_wmask"};

  // SRAM banks [ifmap, weights, psums][buffer] and their port signals.
  std::unique_ptr<SramBankModule> banks_[3][2];
  Sig bank_req_[3][2], bank_we_[3][2];
  sc_core::sc_signal<std::uint32_t> bank_addr_[3][2];
  std::unique_ptr<SigVec<word_elem_t>> bank_wdata_[3][2], bank_rdata_[3][2];
  sc_core::sc_signal<std::uint64_t> bank_wmask_[3][2];
};

// ---- Port binding (flycol_top.sv's instance connections) ------------------------------------

template <class T>
void StructuralTop::bind_vec(sc_core::sc_vector<T>& ports, SigVec<typename T::data_type>& sigs) {
  for (std::size_t i = 0; i < ports.size(); ++i) ports[i](sigs[i]);
}

template <class M> void StructuralTop::bind_clock(M& m) {
  m.clk_i(clk_i);
  m.rst_ni(rst_ni);
}

template <class M> void StructuralTop::bind_run_start(M& m) {
  bind_clock(m);
  m.bind_run(eng_start_[1], run_);
}

template <class M> void StructuralTop::bind_controller(M& m) {
  bind_clock(m);
  m.cmd_valid_i(cmd_valid_);
  m.cmd_i(cmd_);
  m.cmd_ready_o(cmd_ready_);
  bind_vec(m.busy_i, eng_busy_);
  bind_vec(m.done_i, eng_done_);
  bind_vec(m.start_o, eng_start_);
  bind_vec(m.start_cmd_o, start_cmd_);
  m.idle_o(ctrl_idle_);
}

template <class M> void StructuralTop::bind_dma(M& m) {
  bind_clock(m);
  m.ld_start_i(eng_start_[0]);
  m.ld_cmd_i(ld_cmd_);
  m.ld_busy_o(eng_busy_[0]);
  m.ld_done_o(eng_done_[0]);
  m.ps_start_i(eng_start_[2]);
  m.ps_cmd_i(ps_cmd_);
  m.ps_busy_o(eng_busy_[2]);
  m.ps_done_o(eng_done_[2]);
  m.mem_req_valid_o(mem_req_valid_);
  m.mem_req_ready_i(mem_req_ready_);
  m.mem_req_write_o(mem_req_write_);
  m.mem_req_addr_o(mem_req_addr_);
  m.mem_req_bytes_o(mem_req_bytes_);
  m.mem_req_wdata_o(mem_req_wdata_);
  m.mem_rsp_valid_i(mem_rsp_valid_);
  m.mem_rsp_rdata_i(mem_rsp_rdata_);
  m.ifmap_req_o(dma_req_[0]);
  m.ifmap_we_o(dma_we_[0]);
  m.ifmap_addr_o(dma_addr_[0]);
  bind_vec(m.ifmap_wdata_o, dma_wdata_[0]);
  m.ifmap_wmask_o(dma_wmask_[0]);
  m.weight_req_o(dma_req_[1]);
  m.weight_we_o(dma_we_[1]);
  m.weight_addr_o(dma_addr_[1]);
  bind_vec(m.weight_wdata_o, dma_wdata_[1]);
  m.weight_wmask_o(dma_wmask_[1]);
  m.psum_req_o(dma_req_[2]);
  m.psum_we_o(dma_we_[2]);
  m.psum_addr_o(dma_addr_[2]);
  bind_vec(m.psum_wdata_o, dma_wdata_[2]);
  m.psum_wmask_o(dma_wmask_[2]);
  // Both psum buffers' held read data, buffer b at [b*ROWS].
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < p_.rows; ++i) m.psum_rdata_i[std::size_t(b * p_.rows + i)]((*bank_rdata_[2][b])[std::size_t(i)]);
}

template <class M> void StructuralTop::bind_sequencer(M& m) {
  bind_run_start(m);
  m.lanes_ready_i(lanes_valid_);
  m.weight_ready_i(has_word_);
  m.unclaimed_i(unclaimed_);
  m.finish_i(eng_done_[1]);
  m.token_valid_o(tok_valid_);
  m.token_swap_o(tok_swap_);
  m.token_window_o(tok_window_);
  m.pop_o(pop_);
  m.weight_pop_o(weight_pop_);
  m.pool_ready_i(pool_ready_);
  m.claim_o(claim_);
  m.busy_o(eng_busy_[1]);
  m.cycle_kind_o(cycle_kind_);
}

template <class M> void StructuralTop::bind_feeder(M& m, std::function<std::uint64_t()> sel_stalls) {
  bind_clock(m);
  m.start_i(eng_start_[1]);
  m.run_i(feeder_run_);
  m.sram_req_o(fd_req_);
  m.sram_addr_o(fd_addr_);
  bind_vec(m.sram_rdata_i, fd_rdata_);
  m.lane_valid_o(lanes_valid_);
  bind_vec(m.lane_data_o, lane_data_);
  m.pop_i(pop_);
  m.busy_o(fd_busy_);
  sel_stalls_ = std::move(sel_stalls);
}

template <class M> void StructuralTop::bind_weight_fetcher(M& m) {
  bind_run_start(m);
  m.pop_i(weight_pop_);
  m.valid_o(has_word_);
  bind_vec(m.word_o, weight_word_);
  m.busy_o(wf_busy_);
  m.weight_req_o(wf_req_);
  m.weight_addr_o(wf_addr_);
  bind_vec(m.weight_rdata_i, wf_rdata_);
}

template <class M> void StructuralTop::bind_array(M& m, std::function<std::uint64_t()> gated_macs) {
  bind_clock(m);
  m.tok_valid_i(tok_valid_);
  m.tok_swap_i(tok_swap_);
  m.tok_window_i(tok_window_);
  bind_vec(m.tok_a_i, lane_data_);
  bind_vec(m.tok_w_i, weight_word_);
  bind_vec(m.pre_word_i, pre_word_);
  m.pre_pop_o(pre_pop_);
  m.res_valid_o(res_valid_);
  m.res_col_o(res_col_);
  bind_vec(m.res_word_o, res_word_);
  gated_macs_ = std::move(gated_macs);
}

template <class M> void StructuralTop::bind_psum_manager(M& m) {
  bind_run_start(m);
  m.unclaimed_o(unclaimed_);
  m.claim_i(claim_);
  m.pre_pop_i(pre_pop_);
  bind_vec(m.pre_word_o, pre_word_);
  m.res_valid_i(res_valid_);
  m.res_col_i(res_col_);
  bind_vec(m.res_word_i, res_word_);
  m.pool_valid_i(pool_valid_);
  bind_vec(m.pool_word_i, pool_word_);
  m.busy_o(pm_busy_);
  m.run_done_o(eng_done_[1]);
  m.psum_req_o(pm_req_);
  m.psum_we_o(pm_we_);
  m.psum_addr_o(pm_addr_);
  bind_vec(m.psum_wdata_o, pm_wdata_);
  m.psum_wmask_o(pm_wmask_);
  bind_vec(m.psum_rdata_i, pm_rdata_);
}

// The pooling unit: started with every RUN (it stays inactive in a convolution RUN), it takes the
// feed lanes' heads when the sequencer pops them and delivers its results to the psum manager.
template <class M> void StructuralTop::bind_pool_unit(M& m) {
  bind_clock(m);
  m.start_i(eng_start_[1]);
  m.run_i(feeder_run_);
  m.pop_i(pop_);
  bind_vec(m.lane_data_i, lane_data_);
  m.pool_ready_o(pool_ready_);
  m.res_valid_o(pool_valid_);
  bind_vec(m.res_word_o, pool_word_);
}

}  // namespace flycol::hw
